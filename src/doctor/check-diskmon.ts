// doctor: BB_DISKMON_DIRS against the file system TMPDIR is on. Poky's template stops new tasks
// with 1G free; on a 1 GiB tmpfs that is the whole of it, and the real BitBake stopped a build
// with 11 MB used ("running low (1.000GB left)", rc 1). A threshold that fires before the file
// system is 80% full wastes a fifth of it; one as large as the file system stops every build.
// BitBake compares by directory, but what runs out is the file system, so entries are matched
// to TMPDIR by mount (an entry may name ${TMPDIR}, its mount point or any folder on it).

import type { BuildDir } from '../bitbake/builddir-types.js';
import { type DiskmonEntry, diskmonDirPath, diskmonValue, parseDiskmonDirs } from '../plan/diskmon.js';
import type { BuildFacts, MountFacts } from '../plan/facts-types.js';
import { formatBytes, formatCount } from '../text/format.js';
import type { Finding } from './findings.js';

/** A threshold may leave at most this share of the file system unused. */
const MAX_SHARE = 0.2;

export function checkDiskmon(bd: BuildDir, facts: BuildFacts): Finding[] {
  const v = bd.vars.BB_DISKMON_DIRS;
  if (v.value === undefined || v.value.trim() === '' || v.needsBitBake) return [];
  const at = { ...(v.file ? { file: v.file } : {}), ...(v.line ? { line: v.line } : {}) };
  const parsed = parseDiskmonDirs(v.value);
  if (parsed.error !== undefined) {
    return [
      {
        id: 'diskmon-invalid',
        severity: 'warning',
        message: `BB_DISKMON_DIRS: ${parsed.error}; BitBake logs an error and builds with no disk monitor at all`,
        ...at,
        fix: 'write each entry as ACTION,DIR,MINSPACE,MININODES with sizes such as 1G, 100M, 100K (no 0, no decimals)',
      },
    ];
  }
  const mount = facts.paths.tmpdir.mount;
  const fs = facts.paths.tmpdir.fs;
  const total = fs?.totalBytes ?? mount?.sizeBytes;
  if (mount === undefined || total === undefined || total <= 0) return [];
  const inodes = fs?.totalInodes ?? mount.nrInodes ?? 0;
  const fix = `write BB_DISKMON_DIRS = "${diskmonValue(bd.paths.tmpdir, total, inodes)}" (what rambake apply writes for this file system)`;
  const out: Finding[] = [];
  for (const entry of parsed.entries) {
    if (entry.action === 'WARN' || !onTmpdirFs(bd, facts, mount, entry)) continue;
    const space = judge(entry.minSpace, total, formatBytes);
    // BitBake drops inode thresholds on file systems that report no inode count.
    const nodes = inodes > 0 ? judge(entry.minInodes, inodes, (n) => `${formatCount(n)} inodes`) : undefined;
    const worst = [space, nodes].filter((j): j is Judgement => j !== undefined);
    if (worst.length === 0) continue;
    const atOnce = worst.some((j) => j.atOnce);
    const does = entry.action === 'HALT' ? 'halts the build' : 'starts no new task';
    const where = `${mount.mountPoint} (${mount.fsType}, ${formatBytes(total)}${inodes > 0 ? `, ${formatCount(inodes)} inodes` : ''})`;
    const said =
      entry.action === 'HALT'
        ? '"Immediately halt since the disk space monitor action is "HALT"!"'
        : '"No new tasks can be executed since the disk space monitor action is "STOPTASKS"!"';
    out.push({
      id: atOnce ? 'diskmon-stops-at-once' : 'diskmon-stops-early',
      severity: atOnce ? 'error' : 'warning',
      message: atOnce
        ? `BB_DISKMON_DIRS entry ${entry.text} ${does} with less than ${worst.map((j) => j.shown).join(' or ')} free on ${where}: that is the whole file system, so BitBake stops every build at its first check (${said})`
        : `BB_DISKMON_DIRS entry ${entry.text} ${does} once less than ${worst.map((j) => `${j.shown} (${j.percent}%)`).join(' or ')} is free on ${where}: before TMPDIR's file system is ${100 - MAX_SHARE * 100}% full`,
      ...at,
      fix,
    });
  }
  return out;
}

interface Judgement {
  shown: string;
  /** The threshold as a share of the file system, in whole percent. */
  percent: number;
  atOnce: boolean;
}

/** Whether a threshold leaves more than MAX_SHARE of `total` unused; undefined when it does not. */
function judge(
  threshold: number | undefined,
  total: number,
  show: (n: number) => string,
): Judgement | undefined {
  if (threshold === undefined || threshold <= total * MAX_SHARE) return undefined;
  return {
    shown: show(threshold),
    percent: Math.round((threshold / total) * 100),
    atOnce: threshold >= total,
  };
}

/** The entry's folder is on the file system TMPDIR is on (facts.ts looked its mount up). */
function onTmpdirFs(bd: BuildDir, facts: BuildFacts, tmpMount: MountFacts, entry: DiskmonEntry): boolean {
  const path = diskmonDirPath(bd, entry.dir);
  if (path === undefined) return false;
  if (path === bd.paths.tmpdir) return true;
  const found = facts.diskmonDirs?.[path]?.mount;
  return found !== undefined && found.id === tmpMount.id;
}
