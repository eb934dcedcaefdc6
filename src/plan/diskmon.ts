// BB_DISKMON_DIRS (bitbake/lib/bb/monitordisk.py): space-separated `ACTION,DIR,MINSPACE,MININODES`.
// What BitBake does with it, and what rambake relies on:
// - ACTION is STOPTASKS (start no new task, let the running ones finish), HALT (kill the
//   running tasks) or WARN; ABORT is the deprecated name of HALT.
// - Sizes and inode counts are a number with no leading zero and an optional G, M or K
//   (binary, any case); a bare number means bytes (the manual's "KB" is wrong); `100K` inodes
//   = 102400. "0" is not a number to it: the entry, and with it the whole monitor, is refused.
// - One of the two thresholds may be empty, not both; any bad entry disables the whole monitor.
// - DIR goes through realpath and is created when missing; the check runs at every heartbeat
//   (1 s) while tasks run: free = f_bavail × f_frsize, free inodes = f_favail, and the action
//   fires when free < threshold (strictly). A file system that reports 0 inodes in all
//   (dynamic inodes, a tmpfs with nr_inodes=0) has its inode threshold dropped.
// - A warning repeats only when free space fell by more than BB_DISKMON_WARNINTERVAL
//   (50M, 5K by default) since the last one.
// - On a tmpfs, total and free are measured against its size= cap, not against free RAM.

import { isAbsolute, resolve } from 'node:path';
import type { BuildDir, BuildPaths } from '../bitbake/builddir-types.js';

const KiB = 1024;
const MiB = KiB * 1024;
const GiB = MiB * 1024;

/** 1073741824 → "1G", 104857600 → "100M", 1536 → "1536" (not a whole K: bare bytes). */
export function formatDiskmonSize(bytes: number): string {
  const n = Math.max(0, Math.floor(bytes));
  if (n > 0 && n % GiB === 0) return `${n / GiB}G`;
  if (n > 0 && n % MiB === 0) return `${n / MiB}M`;
  if (n > 0 && n % KiB === 0) return `${n / KiB}K`;
  return String(n);
}

/** Inode thresholds: 102400 → "100K", 1000 → "1000" (monitordisk multiplies K by 1024). */
export function formatDiskmonInodes(count: number): string {
  return formatDiskmonSize(count);
}

/** "1G" → 1073741824, "100k" → 102400, "1500" → 1500; "0", "1.5G", "01M", "" → undefined. */
export function parseDiskmonSize(text: string): number | undefined {
  const m = /^([1-9][0-9]*)([gmk]?)\s?$/i.exec(text);
  if (!m?.[1]) return undefined;
  const unit = { g: GiB, m: MiB, k: KiB, '': 1 }[(m[2] ?? '').toLowerCase()] ?? 1;
  return Number(m[1]) * unit;
}

export type DiskmonAction = 'STOPTASKS' | 'HALT' | 'WARN';

export interface DiskmonEntry {
  /** The entry as written (after BitBake's expansion), e.g. `STOPTASKS,/b/tmp,1G,100K`. */
  text: string;
  action: DiskmonAction;
  dir: string;
  /** Bytes; undefined when left empty. */
  minSpace?: number;
  /** Inodes; undefined when left empty. */
  minInodes?: number;
}

export interface DiskmonParse {
  entries: DiskmonEntry[];
  /** Why BitBake would refuse the value and run with no disk monitor at all. */
  error?: string;
}

/** `STOPTASKS,${TMPDIR},1G,100K HALT,/tmp,10M` → its entries, or the first one BitBake refuses. */
export function parseDiskmonDirs(value: string): DiskmonParse {
  const entries: DiskmonEntry[] = [];
  for (const text of value.split(/\s+/).filter(Boolean)) {
    // ACTION,DIR,SPACE[,INODES]: BitBake splits at the first three commas.
    const m = /^([^,]*),([^,]*),([^,]*),?(.*)$/.exec(text);
    if (!m) return { entries, error: `"${text}" is not ACTION,DIR,MINSPACE,MININODES` };
    const [, rawAction = '', dir = '', space = '', inodes = ''] = m;
    const action = rawAction === 'ABORT' ? 'HALT' : rawAction;
    if (action !== 'STOPTASKS' && action !== 'HALT' && action !== 'WARN')
      return { entries, error: `"${text}": unknown action ${rawAction} (STOPTASKS, HALT or WARN)` };
    if (dir === '') return { entries, error: `"${text}" names no folder` };
    const minSpace = space === '' ? undefined : parseDiskmonSize(space);
    if (space !== '' && minSpace === undefined)
      return { entries, error: `"${text}": disk space ${space} is not N, NK, NM or NG with N ≥ 1` };
    const minInodes = inodes === '' ? undefined : parseDiskmonSize(inodes);
    if (inodes !== '' && minInodes === undefined)
      return { entries, error: `"${text}": inode count ${inodes} is not N, NK, NM or NG with N ≥ 1` };
    if (minSpace === undefined && minInodes === undefined)
      return { entries, error: `"${text}" sets neither a disk space nor an inode threshold` };
    entries.push({
      text,
      action,
      dir,
      ...(minSpace === undefined ? {} : { minSpace }),
      ...(minInodes === undefined ? {} : { minInodes }),
    });
  }
  return { entries };
}

export interface DiskmonThresholds {
  stopSpace: number;
  stopInodes: number;
  haltSpace: number;
  haltInodes: number;
}

/**
 * Poky's template margins (1G/100K to stop starting tasks, 100M/1K to halt), fitted to a file
 * system of `total`: Poky's figure, but at most `most` of the total and at least `least` of it.
 */
function fitted(total: number, poky: number, least: number, most: number): number {
  return Math.max(total * least, Math.min(total * most, poky));
}

/**
 * Thresholds for a tmpfs of `size` bytes and `inodes` inodes (0: unlimited, so no inode checks).
 *
 * What each action is for, on a tmpfs that rambake sized to hold the build:
 * - STOPTASKS starts no new task and lets the running ones finish, so its margin is what the
 *   tasks already running may still write. Poky's 1 GiB is that margin for full-size recipes
 *   on a disk of hundreds of GB. A build planned into a small tmpfs has tasks to match, and
 *   1 GiB of a 1 GiB tmpfs stops the build at its first check (seen on the real BitBake with
 *   11 MB used). So: Poky's 1 GiB, but at most 10% of the tmpfs (it stays usable to 90%), and
 *   at least 5% (on a big tmpfs more jobs run big recipes at once).
 * - HALT kills the running tasks: the last line before ENOSPC, which corrupts whatever was
 *   being written (sstate objects, stamps, package data). Its margin is what the running tasks
 *   can write between two checks (1 s apart) plus the time the workers take to die: Poky's
 *   100 MiB, at most 2% of the tmpfs, at least 1%.
 * - Inodes the same way from Poky's 100K and 1K (a tmpfs charges every hard link to nr_inodes).
 * Rounded down to whole MiB and K so BitBake reads them as written, never below 1M and 1K
 * (BitBake refuses 0).
 *
 *   tmpfs     nr_inodes   STOPTASKS         HALT           stops new tasks at   halts at
 *   512 MiB   400K        51M,40K           10M,4K         90% full             98%
 *   1 GiB     400K        102M,40K          20M,4K         90%                  98%
 *   8 GiB     512K        819M,51K          100M,5K        90%                  98.8%
 *   14 GiB    896K        1G,89K            143M,8K        92.9%                99%
 *   64 GiB    4M          3276M,204K        655M,40K       95%                  99%
 * (nr_inodes as `rambake plan` chooses them: 64K per GiB, at least 400K.)
 */
export function tmpfsThresholds(size: number, inodes: number): DiskmonThresholds {
  const mib = (b: number) => Math.max(MiB, Math.floor(b / MiB) * MiB);
  const kilo = (n: number) => (inodes > 0 ? Math.max(KiB, Math.floor(n / KiB) * KiB) : 0);
  return {
    stopSpace: mib(fitted(size, GiB, 0.05, 0.1)),
    haltSpace: mib(fitted(size, 100 * MiB, 0.01, 0.02)),
    stopInodes: kilo(fitted(inodes, 100 * KiB, 0.05, 0.1)),
    haltInodes: kilo(fitted(inodes, KiB, 0.01, 0.02)),
  };
}

/** One line for `rambake plan`'s reasons: the rule above, in words. */
export const DISKMON_RULE =
  "BB_DISKMON_DIRS fits Poky's margins to the tmpfs: new tasks stop with 1G left but at most 10% and at least 5% of the tmpfs (what running tasks may still write), the build halts with 100M left but at most 2% and at least 1% (a second of writes before ENOSPC), inodes alike from 100K and 1K; DL_DIR and SSTATE_DIR keep Poky's thresholds";

/**
 * The whole value: the tmpfs at its fitted thresholds, and DL_DIR / SSTATE_DIR (on disk) at
 * Poky's template thresholds, written as `${DL_DIR}` so BitBake expands them.
 */
export function diskmonValue(tmpfsPath: string, size: number, inodes: number): string {
  const t = tmpfsThresholds(size, inodes);
  const entry = (action: string, dir: string, space: number, nodes: number) =>
    `${action},${dir},${formatDiskmonSize(space)}${nodes > 0 ? `,${formatDiskmonInodes(nodes)}` : ''}`;
  return [
    entry('STOPTASKS', tmpfsPath, t.stopSpace, t.stopInodes),
    entry('HALT', tmpfsPath, t.haltSpace, t.haltInodes),
    entry('STOPTASKS', '${DL_DIR}', GiB, 100 * KiB),
    entry('HALT', '${DL_DIR}', 100 * MiB, KiB),
    entry('STOPTASKS', '${SSTATE_DIR}', GiB, 100 * KiB),
    entry('HALT', '${SSTATE_DIR}', 100 * MiB, KiB),
  ].join(' ');
}

/** Variables an unexpanded entry may still name, and the BuildDir path each stands for. */
const PATH_VARS: Record<string, keyof BuildPaths> = {
  TOPDIR: 'topdir',
  TMPDIR: 'tmpdir',
  DL_DIR: 'dlDir',
  SSTATE_DIR: 'sstateDir',
  DEPLOY_DIR: 'deployDir',
  LOG_DIR: 'logDir',
  BASE_WORKDIR: 'baseWorkdir',
  PERSISTENT_DIR: 'persistentDir',
};

/** An entry's folder as BitBake resolves it (relative to TOPDIR, where it runs); undefined if not known. */
export function diskmonDirPath(bd: BuildDir, dir: string): string | undefined {
  const expanded = dir.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => {
    const key = PATH_VARS[name];
    return key === undefined ? whole : bd.paths[key];
  });
  if (expanded.includes('${')) return undefined;
  return isAbsolute(expanded) ? resolve(expanded) : resolve(bd.topdir, expanded);
}

/** The folders the build's BB_DISKMON_DIRS names (for facts.ts to find their file systems and the doctor to check them). */
export function diskmonDirPaths(bd: BuildDir): string[] {
  const value = bd.vars.BB_DISKMON_DIRS.value;
  if (value === undefined || bd.vars.BB_DISKMON_DIRS.needsBitBake) return [];
  const paths = parseDiskmonDirs(value).entries.map((e) => diskmonDirPath(bd, e.dir));
  return [...new Set(paths.filter((p): p is string => p !== undefined))];
}
