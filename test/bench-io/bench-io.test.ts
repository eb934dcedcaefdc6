// bench-io with a tiny workload: both file systems exercised, figures consistent, the result
// saved under TOPDIR/rambake with where TMPDIR was, and nothing left behind (files or mounts).

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderBenchIo } from '../../src/report/bench-io.js';
import { PHASES, runWorkload } from '../../src/system/bench-io.js';
import { type FsFigures, readBenchIoResult } from '../../src/system/bench-io-record.js';
import { makeColors } from '../../src/text/format.js';
import { compareFigures, runBenchIo } from '../../src/usecases/bench-io.js';
import { copyExample, tempDir } from '../helpers/exec.js';

const isRoot = process.getuid?.() === 0;
const shmIsTmpfs = (() => {
  try {
    return fs.statfsSync('/dev/shm').type === 0x01021994;
  } catch {
    return false;
  }
})();
const onTmpfs = (dir: string) => fs.statfsSync(dir).type === 0x01021994;
const mounts = () =>
  fs
    .readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .filter((l) => l.includes('bench-io'));

describe('bench-io', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('the workload counts every phase and removes its files', () => {
    const dir = tempDir('rambake-bench-io-');
    cleanup = dir.cleanup;
    const figs = runWorkload(dir.path, { seconds: 0, fsync: false, files: 40 });
    expect(figs.map((f) => f.phase)).toEqual([...PHASES]);
    expect(figs.map((f) => f.ops)).toEqual([40, 120, 40, 160]);
    for (const f of figs) expect(f.opsPerSecond).toBeGreaterThan(0);
    expect(fs.readdirSync(dir.path)).toEqual([]);
  });

  it('the saved share follows from the per-phase rates', () => {
    const fig = (rates: number[]): FsFigures => ({
      path: '/x',
      fsType: 'ext4',
      kind: 'dir',
      noFsync: PHASES.map((phase, i) => ({
        phase,
        ops: 100,
        seconds: 100 / rates[i]!,
        opsPerSecond: rates[i]!,
      })),
      fsync: PHASES.map((phase, i) => ({
        phase,
        ops: 100,
        seconds: 100 / rates[i]!,
        opsPerSecond: rates[i]!,
      })),
    });
    const r = compareFigures(fig([100, 100, 100, 100]), fig([400, 400, 400, 400]));
    expect(r.speedup?.noFsync).toBeCloseTo(4);
    expect(r.savedShare).toBeCloseTo(0.75);
    expect(r.speedup?.phases.unpack).toBeCloseTo(4);
  });

  it.skipIf(!isRoot && !shmIsTmpfs)(
    'measures disk and a tmpfs, saves the result, leaves nothing behind',
    async () => {
      const ex = copyExample();
      cleanup = ex.cleanup;
      const r = await runBenchIo(
        { buildDir: ex.topdir, sources: { getvar: false, eventlog: false } },
        { seconds: 1, files: 30 },
      );
      expect(r.disk.noFsync.every((p) => p.ops > 0)).toBe(true);
      expect(r.disk.fsync.every((p) => p.ops > 0)).toBe(true);
      expect(r.tmpfs?.kind).toBe(isRoot ? 'private-tmpfs' : 'dev-shm');
      expect(r.tmpfs?.fsType).toBe('tmpfs');
      expect(r.tmpfs?.noFsync.every((p) => p.ops > 0)).toBe(true);
      expect(r.speedup?.noFsync).toBeGreaterThan(0);
      expect(r.savedTo).toBe(path.join(ex.topdir, 'rambake', 'bench-io.json'));
      const saved = await readBenchIoResult(ex.topdir);
      // The example's TMPDIR (${TOPDIR}/tmp) is not made yet: it is on the temp folder's disk.
      expect(saved).toMatchObject({
        schemaVersion: 1,
        tmpdirOnTmpfs: onTmpfs(ex.topdir),
        disk: { kind: 'dir' },
        tmpfs: { fsType: 'tmpfs' },
      });
      expect(saved?.speedup).toBeDefined();
      // Nothing left: no scratch folder beside TMPDIR, no mount, no /dev/shm folder. Only this
      // run's own paths are checked: other bench-io tests run beside this file.
      expect(fs.readdirSync(ex.topdir).filter((n) => n.includes('bench-io'))).toEqual([]);
      expect(fs.existsSync(r.disk.path)).toBe(false);
      expect(mounts().filter((l) => l.includes(` ${r.tmpfs?.path} `))).toEqual([]);
      expect(fs.existsSync(r.tmpfs?.path ?? '')).toBe(false);
      const text = renderBenchIo(r, makeColors(false)).join('\n');
      if (onTmpfs(ex.topdir)) expect(text).not.toMatch(/would save/);
      else {
        expect(text).toMatch(
          /TMPDIR on tmpfs would save about \d+% of file-system time against its disk at /,
        );
        expect(text).toContain(`against its disk at ${ex.topdir} (`);
        expect(text).not.toMatch(/already on a tmpfs/);
      }
      expect(text).toMatch(/unpack/);
    },
  );

  it('reads no result when none was saved', async () => {
    const dir = tempDir();
    cleanup = dir.cleanup;
    expect(await readBenchIoResult(dir.path)).toBeUndefined();
  });
});
