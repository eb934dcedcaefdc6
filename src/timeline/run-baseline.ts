// What a run's "peak" means, one rule for run's summary, report, plan and --predict.
//
// With TMPDIR on a file system of its own (a tmpfs), the file system's used bytes are TMPDIR's.
// On a disk shared with other files (/, /home), `used` counts them too: a 209 MiB build on a
// 177 GiB root disk "peaks" at 177 GiB. There the run's own peak is its growth above a baseline:
// what the disk held at the first sample, less the work dirs that sample already saw (when
// attached to a running build they are the build's, not the disk's).

import type { TimelineHeader, TimelineSample } from './timeline-types.js';

/** TMPDIR had a file system of its own: used bytes are TMPDIR's alone. */
export function ownFileSystem(header: Pick<TimelineHeader, 'tmpfs'> | undefined): boolean {
  return header?.tmpfs.fsType === 'tmpfs';
}

/** Bytes that were not the run's: 0 on a file system of its own, else the first sample's rest. */
export function baselineBytes(
  ownFs: boolean,
  first: Pick<TimelineSample, 'fs' | 'workdirs'> | undefined,
): number {
  if (ownFs || !first) return 0;
  let workdirs = 0;
  for (const b of Object.values(first.workdirs ?? {})) workdirs += b;
  return Math.max(0, first.fs.usedBytes - workdirs);
}

/** A file the run wrote next to TMPDIR on the disk it shares (sstate, downloads): when, how big. */
export interface Written {
  /** Epoch ms (the file's mtime). */
  t: number;
  bytes: number;
}

/**
 * The run's own bytes in a sample, the one rule for run, report, plan and --predict: on a
 * tmpfs of its own all of `used`; on a shared disk `used` less the baseline and less what the
 * run had written by then outside TMPDIR (sstate archives, downloads: a tmpfs TMPDIR never
 * holds them). `written` is what plan/history-outside.ts found.
 */
export class OwnUsage {
  readonly outsideBytes: number;
  private readonly times: number[];
  /** sums[i]: bytes written at or before times[i]. */
  private readonly sums: number[];

  constructor(
    readonly baselineBytes: number,
    written: readonly Written[] = [],
  ) {
    const sorted = [...written].sort((a, b) => a.t - b.t);
    this.times = sorted.map((w) => w.t);
    let sum = 0;
    this.sums = sorted.map((w) => (sum += w.bytes));
    this.outsideBytes = sum;
  }

  /** Bytes written outside TMPDIR at or before `t`. */
  writtenBy(t: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : this.sums[lo - 1]!;
  }

  /** The run's own bytes when the file system had `used` bytes in use at `t`. */
  of(t: number, used: number): number {
    return Math.max(0, used - this.baselineBytes - this.writtenBy(t));
  }
}

/** The fullest sample by the run's own bytes; bytes 0 and at null when there is none. */
export function ownPeak(
  own: OwnUsage,
  samples: readonly { t: number; fs: { usedBytes: number } }[],
): { bytes: number; at: number | null } {
  let peak: { bytes: number; at: number | null } = { bytes: 0, at: null };
  for (const s of samples) {
    const bytes = own.of(s.t, s.fs.usedBytes);
    if (peak.at === null || bytes > peak.bytes) peak = { bytes, at: s.t };
  }
  return peak;
}
