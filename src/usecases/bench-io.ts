// `rambake bench-io`: how much a build's file-system work would gain from a tmpfs TMPDIR on
// this host. The same workload runs on TMPDIR's file system (or --dir) and on a tmpfs, with
// and without fsync; the result is saved to ${TOPDIR}/rambake/bench-io.json (outside TMPDIR,
// which may be volatile) so `plan` can cite it.

import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { loadBuildDir } from '../bitbake/builddir.js';
import type { LoadOptions } from '../bitbake/builddir-types.js';
import {
  type PhaseFigure,
  runWorkload,
  type ScratchDir,
  scratchIn,
  scratchTmpfs,
} from '../system/bench-io.js';
import {
  BENCH_IO_SCHEMA_VERSION,
  type BenchIoResult,
  type FsFigures,
  saveBenchIoResult,
} from '../system/bench-io-record.js';
import { nearestExisting } from '../system/host-facts.js';
import { readMountFor } from '../system/mounts.js';

export interface BenchIoOptions {
  dir?: string;
  seconds?: number;
  /** Files per round; tests make it small. */
  files?: number;
  isRoot?: boolean;
}

/** Time the whole mix takes at these rates, for the same op counts. */
function mixSeconds(ops: readonly PhaseFigure[], rates: readonly PhaseFigure[]): number {
  return ops.reduce((sum, p) => {
    const rate = rates.find((r) => r.phase === p.phase)?.opsPerSecond ?? 0;
    return sum + (rate > 0 ? p.ops / rate : 0);
  }, 0);
}

/** Pure: speedups and the saved share from the two sets of figures. */
export function compareFigures(
  disk: FsFigures,
  tmpfs: FsFigures,
): Pick<BenchIoResult, 'speedup' | 'savedShare'> {
  const phases: Record<string, number> = {};
  for (const p of disk.noFsync) {
    const t = tmpfs.noFsync.find((x) => x.phase === p.phase);
    if (t && p.opsPerSecond > 0) phases[p.phase] = t.opsPerSecond / p.opsPerSecond;
  }
  const ratio = (a: PhaseFigure[], b: PhaseFigure[]) => {
    const onTmpfs = mixSeconds(a, b);
    return onTmpfs > 0 ? mixSeconds(a, a) / onTmpfs : 0;
  };
  const speedNo = ratio(disk.noFsync, tmpfs.noFsync);
  return {
    speedup: { noFsync: speedNo, fsync: ratio(disk.fsync, tmpfs.fsync), phases },
    savedShare: speedNo > 0 ? 1 - 1 / speedNo : 0,
  };
}

async function measure(scratch: ScratchDir, seconds: number, files: number | undefined): Promise<FsFigures> {
  const mount = await readMountFor(scratch.path).catch(() => undefined);
  const opts = files === undefined ? {} : { files };
  return {
    path: scratch.path,
    fsType: mount?.fstype ?? (scratch.tmpfs ? 'tmpfs' : 'unknown'),
    kind: scratch.kind,
    noFsync: runWorkload(scratch.path, { seconds, fsync: false, ...opts }),
    fsync: runWorkload(scratch.path, { seconds, fsync: true, ...opts }),
  };
}

export async function runBenchIo(load: LoadOptions, opts: BenchIoOptions = {}): Promise<BenchIoResult> {
  const notes: string[] = [];
  const total = opts.seconds ?? 60;
  let topdir: string | undefined;
  let where = opts.dir;
  if (!where) {
    try {
      const bd = await loadBuildDir(load);
      topdir = bd.topdir;
      // rambake never writes under TMPDIR: the scratch folder goes beside it, in its nearest
      // existing parent (the disk a TMPDIR moved to RAM would otherwise live on).
      where = nearestExisting(dirname(bd.paths.tmpdir));
      notes.push(`disk side: ${where}, the folder holding TMPDIR (${bd.paths.tmpdir})`);
    } catch {
      where = process.cwd();
      notes.push(`no build directory: the disk side runs in ${where}`);
    }
  }
  const disk = await scratchIn(where);
  const isRoot = opts.isRoot ?? process.getuid?.() === 0;
  let tmpfs: ScratchDir | undefined;
  try {
    if (disk.tmpfs) notes.push(`${where} is already on a tmpfs: both sides measure RAM`);
    tmpfs = await scratchTmpfs(tmpdir(), isRoot);
    const sides = tmpfs ? 4 : 2;
    // Four runs share the budget evenly: disk and tmpfs, each without and with fsync.
    const each = total / sides;
    const result: BenchIoResult = {
      schemaVersion: BENCH_IO_SCHEMA_VERSION,
      at: new Date().toISOString(),
      seconds: total,
      disk: await measure(disk, each, opts.files),
      notes,
    };
    if (tmpfs) {
      notes.push(
        tmpfs.kind === 'private-tmpfs'
          ? 'tmpfs side: a private tmpfs mounted for this run (unmounted after)'
          : 'tmpfs side: a folder of /dev/shm (not root: no private mount)',
      );
      result.tmpfs = await measure(tmpfs, each, opts.files);
      Object.assign(result, compareFigures(result.disk, result.tmpfs));
    } else notes.push('no tmpfs available (not root and /dev/shm is not a tmpfs): disk figures only');
    if (topdir) result.savedTo = await saveBenchIoResult(topdir, result);
    return result;
  } finally {
    await disk.release();
    await tmpfs?.release();
  }
}
