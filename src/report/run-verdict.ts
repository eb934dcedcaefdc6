// What `rambake run` says when a build on a tmpfs fails with the tmpfs full: it did not fit, and
// what to do next (steps when it ran in one go, more room when even the steps did not fit).

import { tmpfsThresholds } from '../plan/diskmon.js';
import { formatBytes } from '../text/format.js';
import { renderShellCommand } from '../text/shell.js';

export interface FullTmpfsInput {
  exitCode: number;
  peak: { bytes: number; inodes: number };
  /** TMPDIR's file system when it is a tmpfs (statfs after the run); undefined on a disk. */
  tmpfs?: { totalBytes: number; totalInodes: number };
  /** The command after `--`. */
  command: readonly string[];
  stepped: boolean;
}

/**
 * One line when the build failed and the tmpfs had reached the point where BitBake's disk
 * monitor (as rambake sets it) stops new tasks, in bytes or inodes; otherwise undefined: a
 * build that failed for another reason is not blamed on its size.
 */
export function renderFullTmpfs(input: FullTmpfsInput): string | undefined {
  const fs = input.tmpfs;
  if (input.exitCode === 0 || !fs || fs.totalBytes === 0) return undefined;
  const t = tmpfsThresholds(fs.totalBytes, fs.totalInodes);
  const bytesFull = input.peak.bytes >= fs.totalBytes - t.stopSpace;
  const inodesFull = fs.totalInodes > 0 && input.peak.inodes >= fs.totalInodes - t.stopInodes;
  if (!bytesFull && !inodesFull) return undefined;
  const what = bytesFull
    ? `TMPDIR peaked at ${formatBytes(input.peak.bytes)} of its ${formatBytes(fs.totalBytes)} tmpfs`
    : `TMPDIR used ${input.peak.inodes} of its tmpfs's ${fs.totalInodes} inodes`;
  const next = input.stepped
    ? 'even in steps it does not fit: mount a larger tmpfs (rambake plan says how large) or keep the giants on disk (rambake plan lists WORKDIR:pn-<giant> lines)'
    : `in one go it does not fit. Build the giants first, one at a time: ${renderShellCommand(['rambake', 'run', '--steps', 'auto', '--', ...input.command])} (rambake steps says which), or mount a larger tmpfs (rambake plan)`;
  return `rambake: the build failed with the tmpfs full: ${what}; ${next}`;
}
