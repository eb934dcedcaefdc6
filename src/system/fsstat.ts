// Free space and inodes of a file system via statfs(2). BitBake's disk monitor counts free
// space as f_bavail × f_frsize; Node's statfs reports f_bsize, which equals f_frsize on Linux
// file systems (ext4, xfs, btrfs, tmpfs), so bavail × bsize is the same figure.

import { type StatsFs, statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';

/** statfs f_type of tmpfs (TMPFS_MAGIC in linux/magic.h). */
export const TMPFS_MAGIC = 0x01021994;

export interface FsStat {
  totalBytes: number;
  /** What an unprivileged writer (and BB_DISKMON) can still use: bavail × bsize. */
  freeBytes: number;
  /** Same figure as freeBytes, under df's name ("Avail"). */
  availBytes: number;
  /** Free including the root-reserved blocks: bfree × bsize. */
  freeBytesForRoot: number;
  /** df's "Used": (blocks − bfree) × bsize. */
  usedBytes: number;
  totalInodes: number;
  freeInodes: number;
  blockSize: number;
  /** statfs f_type (magic number). */
  fsType: number;
}

type RawStatFs = Pick<StatsFs, 'type' | 'bsize' | 'blocks' | 'bfree' | 'bavail' | 'files' | 'ffree'>;

export function toFsStat(raw: RawStatFs): FsStat {
  const free = raw.bavail * raw.bsize;
  return {
    totalBytes: raw.blocks * raw.bsize,
    freeBytes: free,
    availBytes: free,
    freeBytesForRoot: raw.bfree * raw.bsize,
    usedBytes: (raw.blocks - raw.bfree) * raw.bsize,
    totalInodes: raw.files,
    freeInodes: raw.ffree,
    blockSize: raw.bsize,
    fsType: raw.type,
  };
}

export async function statFs(path: string): Promise<FsStat> {
  return toFsStat(await statfs(path));
}

/** The synchronous form, for samplers that must not interleave with other awaits. */
export function statFsSync(path: string): FsStat {
  return toFsStat(statfsSync(path));
}

export const isTmpfs = (stat: FsStat): boolean => stat.fsType === TMPFS_MAGIC;
