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
