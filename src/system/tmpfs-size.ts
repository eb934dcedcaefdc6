// tmpfs size= and nr_inodes= values. The kernel reads them with memparse (binary suffixes
// k m g t p e, any case) and size= also takes a percentage of RAM; mountinfo prints size in k.

import { RambakeError } from '../errors.js';

export interface TmpfsLimits {
  /** size= in bytes, when given as an amount. */
  sizeBytes?: number;
  /** size= as a percentage of RAM (`size=50%`): resolve with Meminfo.memTotal. */
  sizePercent?: number;
  /** nr_inodes= (0 means unlimited). */
  nrInodes?: number;
}

const SUFFIX: Record<string, number> = {
  '': 1,
  k: 2 ** 10,
  m: 2 ** 20,
  g: 2 ** 30,
  t: 2 ** 40,
  p: 2 ** 50,
  e: 2 ** 60,
};

/** `8g` → 8589934592, `400k` → 409600, `8388608k` → 8589934592. */
export function parseMemSize(value: string): number {
  // `8g` → ['8', 'g']
  const m = /^(\d+)([kmgtpe]?)$/i.exec(value.trim());
  if (!m)
    throw new RambakeError(
      `bad size "${value}" (expected a number with an optional k, m, g suffix, e.g. 8g)`,
    );
  return Number(m[1]) * SUFFIX[m[2]!.toLowerCase()]!;
}

/** `size=` value: `8g` → { sizeBytes }, `50%` → { sizePercent: 50 }. */
export function parseTmpfsSize(value: string): Pick<TmpfsLimits, 'sizeBytes' | 'sizePercent'> {
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  if (percent) return { sizePercent: Number(percent[1]) };
  return { sizeBytes: parseMemSize(value) };
}

/** Picks size= and nr_inodes= out of a tmpfs option list. */
export function parseTmpfsOptions(options: readonly string[]): TmpfsLimits {
  const limits: TmpfsLimits = {};
  for (const option of options) {
    const eq = option.indexOf('=');
    if (eq < 0) continue;
    const key = option.slice(0, eq);
    const value = option.slice(eq + 1);
    if (key === 'size') Object.assign(limits, parseTmpfsSize(value));
    else if (key === 'nr_inodes') limits.nrInodes = parseMemSize(value);
  }
  return limits;
}

/**
 * The tmpfs cap in bytes, resolving a percentage against total RAM; undefined for `size=0`
 * (unlimited). mountinfo omits size= when it is the kernel default, half of RAM.
 */
export function tmpfsSizeBytes(limits: TmpfsLimits, memTotal: number): number | undefined {
  const bytes =
    limits.sizeBytes ??
    (limits.sizePercent === undefined ? memTotal / 2 : (memTotal * limits.sizePercent) / 100);
  return bytes === 0 ? undefined : Math.floor(bytes);
}
