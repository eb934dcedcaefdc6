// BB_DISKMON_DIRS for a tmpfs build (bitbake/lib/bb/monitordisk.py): space-separated
// `ACTION,DIR,MINSPACE,MININODES`. Sizes take G, M, K (binary) and a bare number means bytes
// (the manual's "KB" is wrong); inode counts take the same suffixes, so `100K` = 102400.
// On a tmpfs, free space is measured against its size= cap, so thresholds scale with the size.

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

export interface DiskmonThresholds {
  stopSpace: number;
  stopInodes: number;
  haltSpace: number;
  haltInodes: number;
}

/**
 * Thresholds for a tmpfs of `size` bytes and `inodes` inodes: stop starting tasks when 5% is
 * left (at least 1 GiB, Poky's template figure), halt at 1% (at least 100 MiB); the same
 * shares of inodes (at least Poky's 100K and 1K). Rounded down to whole MiB / K so they read well.
 */
export function tmpfsThresholds(size: number, inodes: number): DiskmonThresholds {
  const mib = (b: number) => Math.floor(b / MiB) * MiB;
  const kilo = (n: number) => Math.floor(n / KiB) * KiB;
  return {
    stopSpace: Math.max(GiB, mib(size * 0.05)),
    haltSpace: Math.max(100 * MiB, mib(size * 0.01)),
    stopInodes: Math.max(100 * KiB, kilo(inodes * 0.05)),
    haltInodes: Math.max(KiB, kilo(inodes * 0.01)),
  };
}

/**
 * The whole value: the tmpfs at its scaled thresholds, and DL_DIR / SSTATE_DIR (on disk) at
 * Poky's template thresholds, written as `${DL_DIR}` so BitBake expands them.
 */
export function diskmonValue(tmpfsPath: string, size: number, inodes: number): string {
  const t = tmpfsThresholds(size, inodes);
  const entry = (action: string, dir: string, space: number, nodes: number) =>
    `${action},${dir},${formatDiskmonSize(space)},${formatDiskmonInodes(nodes)}`;
  return [
    entry('STOPTASKS', tmpfsPath, t.stopSpace, t.stopInodes),
    entry('HALT', tmpfsPath, t.haltSpace, t.haltInodes),
    entry('STOPTASKS', '${DL_DIR}', GiB, 100 * KiB),
    entry('HALT', '${DL_DIR}', 100 * MiB, KiB),
    entry('STOPTASKS', '${SSTATE_DIR}', GiB, 100 * KiB),
    entry('HALT', '${SSTATE_DIR}', 100 * MiB, KiB),
  ].join(' ');
}
