// The plan cites the last `rambake bench-io` measured on this build.

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

describe('plan and bench-io', () => {
  it('adds an io reason with the measured speedup, and none without a measurement', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const load = { buildDir: ex.topdir, env: {} };
    expect((await makePlan(load, {})).reasons.some((r) => r.topic === 'io')).toBe(false);
    const result: BenchIoResult = {
      schemaVersion: BENCH_IO_SCHEMA_VERSION,
      at: '2026-12-02T23:00:00.000Z',
      seconds: 1,
      disk: { path: '/var/tmp', fsType: 'ext4', kind: 'dir', noFsync: [], fsync: [] },
      speedup: { noFsync: 3.5, fsync: 40, phases: {} },
      savedShare: 0.71,
      notes: [],
    };
    mkdirSync(dirname(benchIoFile(ex.topdir)), { recursive: true });
    writeFileSync(benchIoFile(ex.topdir), JSON.stringify(result));
    const io = (await makePlan(load, {})).reasons.find((r) => r.topic === 'io');
    expect(io?.text).toMatch(/3\.5× faster .*40\.0× with fsync.*about 71% of file-system time/);
  });
});
