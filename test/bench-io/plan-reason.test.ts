// How plan quotes a saved bench-io result: by whether TMPDIR was already on a tmpfs when it was
// measured ("saves" now, or "would save"), neutrally for a record that does not say, and not at
// all when the disk side was a tmpfs too (RAM against RAM).

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePlan } from '../../src/plan/sizing.js';
import {
  BENCH_IO_SCHEMA_VERSION,
  type BenchIoResult,
  benchIoFile,
} from '../../src/system/bench-io-record.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();

const record = (extra: Partial<BenchIoResult>): BenchIoResult => ({
  schemaVersion: BENCH_IO_SCHEMA_VERSION,
  at: '2026-12-03T21:00:00.000Z',
  seconds: 1,
  disk: { path: '/srv/build/.rambake-bench-io-x1', fsType: 'ext4', kind: 'dir', noFsync: [], fsync: [] },
  speedup: { noFsync: 7.7, fsync: 40, phases: {} },
  savedShare: 0.87,
  notes: [],
  ...extra,
});

describe('plan quotes bench-io by where TMPDIR was', () => {
  it('"saves" on a TMPDIR already on a tmpfs, "would save" on one on disk, neither without a disk', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const load = { buildDir: ex.topdir, env: {} };
    const ioReason = async (r: BenchIoResult) => {
      mkdirSync(dirname(benchIoFile(ex.topdir)), { recursive: true });
      writeFileSync(benchIoFile(ex.topdir), JSON.stringify(r));
      return (await makePlan(load, {})).reasons.find((x) => x.topic === 'io')?.text;
    };

    const onTmpfs = await ioReason(record({ tmpdirOnTmpfs: true }));
    expect(onTmpfs).toMatch(
      /7\.7× faster than the disk \(40\.0× with fsync\): TMPDIR is already on a tmpfs: it saves about 87% of file-system time against the disk at \/srv\/build \(ext4\), where TMPDIR would be without it$/,
    );
    expect(onTmpfs).not.toMatch(/would save/);

    const onDisk = await ioReason(record({ tmpdirOnTmpfs: false }));
    expect(onDisk).toMatch(
      /TMPDIR on tmpfs would save about 87% of file-system time against its disk at \/srv\/build \(ext4\)$/,
    );

    // A record saved before rambake noted where TMPDIR was: no claim either way.
    const unknown = await ioReason(record({}));
    expect(unknown).toMatch(
      /: a tmpfs saves about 87% of file-system time against the disk at \/srv\/build \(ext4\)$/,
    );
    expect(unknown).not.toMatch(/TMPDIR/);

    const ramOnly = record({
      tmpdirOnTmpfs: true,
      disk: { path: '/dev/shm/x/.rambake-bench-io-x1', fsType: 'tmpfs', kind: 'dir', noFsync: [], fsync: [] },
    });
    expect(await ioReason(ramOnly)).toBeUndefined();
  });
});
