// /proc/meminfo: RAM, swap and shared memory in bytes. The kernel prints sizes in "kB",
// which are KiB (fs/proc/meminfo.c shifts pages by 10), so every kB figure is × 1024.

import { readFile } from 'node:fs/promises';
import { RambakeError } from '../errors.js';

export interface Meminfo {
  memTotal: number;
  /** The kernel's estimate of memory available without swapping (MemAvailable). */
  memAvailable: number;
  memFree: number;
  swapTotal: number;
  swapFree: number;
  /** tmpfs and shared memory pages: where a tmpfs TMPDIR's files live. */
  shmem: number;
  buffers: number;
  cached: number;
  /** Every line, by its key: bytes for kB lines, plain counts (HugePages_*) as printed. */
  all: Record<string, number>;
  /** True when MemAvailable was missing (kernel < 3.14) and was estimated as free + buffers + cached. */
  availableEstimated: boolean;
}

// `MemTotal:       16318412 kB` → ['MemTotal', '16318412', 'kB']
const LINE = /^([A-Za-z0-9_()]+):\s+(\d+)(?:\s+(kB))?\s*$/;

/** Parses /proc/meminfo text; `source` names the file in errors. */
export function parseMeminfo(text: string, source = '/proc/meminfo'): Meminfo {
  const all: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const value = Number(m[2]);
    all[m[1]!] = m[3] === 'kB' ? value * 1024 : value;
  }
  const need = (key: string): number => {
    const value = all[key];
    if (value === undefined) throw new RambakeError(`${source}: no ${key} line (is this /proc/meminfo?)`);
    return value;
  };
  const memTotal = need('MemTotal');
  const memFree = need('MemFree');
  const buffers = all.Buffers ?? 0;
  const cached = all.Cached ?? 0;
  const available = all.MemAvailable;
  return {
    memTotal,
    memAvailable: available ?? memFree + buffers + cached,
    memFree,
    swapTotal: all.SwapTotal ?? 0,
    swapFree: all.SwapFree ?? 0,
    shmem: all.Shmem ?? 0,
    buffers,
    cached,
    all,
    availableEstimated: available === undefined,
  };
}

export async function readMeminfo(path = '/proc/meminfo'): Promise<Meminfo> {
  return parseMeminfo(await readFile(path, 'utf8'), path);
}
