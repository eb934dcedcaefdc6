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

/** Where the disk side runs, and whether TMPDIR is already on a tmpfs. */
interface DiskSide {
  where: string;
  topdir?: string;
  tmpdirOnTmpfs?: boolean;
}

const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
/** File systems held in RAM: none of them is the disk a TMPDIR would otherwise be on. */
const RAM_FS = new Set(['tmpfs', 'devtmpfs', 'ramfs']);

/**
 * The folder the disk side runs in. rambake never writes under TMPDIR, so it is a folder beside
 * it: TMPDIR's nearest existing parent (the disk a TMPDIR moved to RAM would otherwise live on).
 * When TMPDIR is on a tmpfs already, that parent may be RAM too (TMPDIR its own mount, or under
 * a tmpfs /tmp): then the disk is the first of SSTATE_DIR, DEPLOY_DIR, TOPDIR and the folder
 * the tmpfs is mounted in that is no tmpfs: where the kept outputs are, and where TMPDIR would
 * be without its tmpfs.
 */
async function diskSide(load: LoadOptions, notes: string[]): Promise<DiskSide> {
  let bd: Awaited<ReturnType<typeof loadBuildDir>>;
  try {
    bd = await loadBuildDir(load);
  } catch {
    const where = process.cwd();
    notes.push(`no build directory: the disk side runs in ${where}`);
    return { where };
  }
  const { tmpdir: tmp } = bd.paths;
  const mount = await readMountFor(tmp).catch(() => undefined);
  if (!mount || !RAM_FS.has(mount.fstype)) {
    const where = nearestExisting(dirname(tmp));
    notes.push(`disk side: ${where}, the folder holding TMPDIR (${tmp})`);
    return { where, topdir: bd.topdir, tmpdirOnTmpfs: false };
  }
  // Beside the kept outputs (in their parent folders, not among BitBake's files), else TOPDIR.
  const candidates: [string, string][] = [
    ['beside DEPLOY_DIR', dirname(bd.paths.deployDir)],
    ['beside SSTATE_DIR', dirname(bd.paths.sstateDir)],
    ['TOPDIR', bd.topdir],
    ['the folder the tmpfs is mounted in', dirname(mount.mountPoint)],
  ];
  let found: [string, string] | undefined;
  for (const [what, path] of candidates) {
    const at = nearestExisting(path);
    if (under(at, tmp)) continue;
    const m = await readMountFor(at).catch(() => undefined);
    if (m && !RAM_FS.has(m.fstype)) {
      found = [what, at];
      break;
    }
  }
  const onTmpfs = `TMPDIR (${tmp}) is already on a tmpfs (${mount.mountPoint})`;
  if (found) {
    notes.push(
      `${onTmpfs}: the disk side runs in ${found[1]} (${found[0]}), the disk the kept outputs are on and TMPDIR would be without its tmpfs`,
    );
    return { where: found[1], topdir: bd.topdir, tmpdirOnTmpfs: true };
  }
  const where = under(bd.topdir, tmp) ? nearestExisting(dirname(mount.mountPoint)) : bd.topdir;
  notes.push(
    `${onTmpfs}, and so are DEPLOY_DIR, SSTATE_DIR and TOPDIR: no disk to compare with, the disk side runs in ${where}`,
  );
  return { where, topdir: bd.topdir, tmpdirOnTmpfs: true };
}

export async function runBenchIo(load: LoadOptions, opts: BenchIoOptions = {}): Promise<BenchIoResult> {
  const notes: string[] = [];
  const total = opts.seconds ?? 60;
  const side: DiskSide = opts.dir ? { where: opts.dir } : await diskSide(load, notes);
  const { where, topdir } = side;
  const disk = await scratchIn(where);
  const isRoot = opts.isRoot ?? process.getuid?.() === 0;
  let tmpfs: ScratchDir | undefined;
  try {
    if (disk.tmpfs) notes.push(`${where} is on a tmpfs: both sides measure RAM, no saving is claimed`);
    tmpfs = await scratchTmpfs(tmpdir(), isRoot);
    const sides = tmpfs ? 4 : 2;
    // Four runs share the budget evenly: disk and tmpfs, each without and with fsync.
    const each = total / sides;
    const result: BenchIoResult = {
      schemaVersion: BENCH_IO_SCHEMA_VERSION,
      at: new Date().toISOString(),
      seconds: total,
      ...(side.tmpdirOnTmpfs === undefined ? {} : { tmpdirOnTmpfs: side.tmpdirOnTmpfs }),
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
