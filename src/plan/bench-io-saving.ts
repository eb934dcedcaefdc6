// What a `rambake bench-io` result says about this build's TMPDIR, in one sentence shared by
// bench-io's own output and plan's io reason, so the two never word it differently.

import { dirname } from 'node:path';
import type { BenchIoResult } from '../system/bench-io-record.js';

/**
 * The saving, or undefined when nothing can be claimed (no tmpfs to compare with, or the disk
 * side was on a tmpfs too). A TMPDIR already on a tmpfs is told what its tmpfs saves now
 * against the disk it would be on without it, never that a tmpfs "would save".
 * Example: `TMPDIR on tmpfs would save about 87% of file-system time against its disk at /srv/build (ext4)`.
 */
export function benchIoSaving(r: BenchIoResult): string | undefined {
  if (r.savedShare === undefined || r.disk.fsType === 'tmpfs') return undefined;
  const share = `about ${Math.round(r.savedShare * 100)}% of file-system time`;
  // The disk side ran in a scratch folder made (and removed) inside this one.
  const disk = `${r.disk.kind === 'dir' ? dirname(r.disk.path) : r.disk.path} (${r.disk.fsType})`;
  if (r.tmpdirOnTmpfs === true)
    return `TMPDIR is already on a tmpfs: it saves ${share} against the disk at ${disk}, where TMPDIR would be without it`;
  if (r.tmpdirOnTmpfs === false) return `TMPDIR on tmpfs would save ${share} against its disk at ${disk}`;
  // A record from before rambake noted where TMPDIR was: no claim about it.
  return `a tmpfs saves ${share} against the disk at ${disk}`;
}
