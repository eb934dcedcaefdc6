// The recorded-run timeline: `${TOPDIR}/rambake/runs/<start-time>.jsonl`, one JSON object per
// line, flushed as written, so a watcher killed with -9 leaves a file every reader accepts
// (a torn last line is ignored). Written by watch/ (`rambake watch`, `rambake run`); read by
// plan (history), report and steps.

export const TIMELINE_SCHEMA_VERSION = 1;

/** First line. */
export interface TimelineHeader {
  type: 'header';
  schemaVersion: number;
  /** ISO time the watcher started. */
  startedAt: string;
  buildDir: string;
  tmpdir: string;
  /** The file system holding TMPDIR (a tmpfs for a RAM build). */
  tmpfs: { mountPoint: string; fsType: string; source: string; sizeBytes?: number; nrInodes?: number };
  host: { memTotal: number; swapTotal: number; cpus: number };
  command?: string[];
  /** `rambake run --steps`: the commands run one after the other (`command` is them joined). */
  steps?: string[][];
  bbNumberThreads?: number;
}

/** Every interval: the file system's fill and the live work dirs' sizes. */
export interface TimelineSample {
  type: 'sample';
  /** Epoch milliseconds. */
  t: number;
  fs: { usedBytes: number; totalBytes: number; usedInodes: number; totalInodes: number };
  /** Bytes per live work dir, keyed `<arch>/<pn>/<pv>` (hardlink-aware, once per inode). */
  workdirs: Record<string, number>;
}

export type WorkdirState =
  | 'active'
  | 'waiting-rm-work'
  | 'cleaned'
  | 'refilled'
  | 'excluded'
  | 'work-shared'
  | 'stale'
  | 'failed';

/**
 * Task events read from the log of a build that was running when the watcher started keep
 * their own time (from buildstats); `replayed` marks those whose time is unknown, timed at the attach.
 */
export type TimelineEvent =
  | {
      type: 'task-start';
      t: number;
      pf?: string;
      pn: string;
      task: string;
      setscene: boolean;
      tid?: string;
      replayed?: boolean;
    }
  | {
      type: 'task-end';
      t: number;
      pn: string;
      pf?: string;
      task: string;
      setscene: boolean;
      status: 'succeeded' | 'failed';
      replayed?: boolean;
    }
  | {
      type: 'workdir-appear' | 'workdir-disappear';
      t: number;
      workdir: string;
      arch: string;
      pn: string;
      pv: string;
    }
  | {
      type: 'workdir-state';
      t: number;
      workdir: string;
      pn: string;
      pv: string;
      state: WorkdirState;
      reason?: string;
    }
  | { type: 'enospc'; t: number; message: string }
  /** `rambake run --steps`: one command of the steps starts, and ends with its exit code. */
  | { type: 'step-start'; t: number; index: number; command: string[] }
  | { type: 'step-end'; t: number; index: number; command: string[]; exitCode: number }
  | { type: 'build-start' | 'build-end'; t: number; log?: string; exitCode?: number };

/** Last line when the watcher ended cleanly (absent after kill -9: readers recompute it). */
export interface TimelineSummary {
  type: 'summary';
  t: number;
  /** Most bytes used (at `at`) and most inodes used (at `inodesAt`). */
  peak: { bytes: number; inodes: number; at: number; inodesAt?: number };
  /**
   * On a disk shared with other files: what it held that was not the run's (run-baseline.ts);
   * the run's own peak is `peak.bytes` minus this. Absent on a file system of TMPDIR's own.
   */
  baselineBytes?: number;
  /** Biggest work dirs in the sample of the bytes peak, biggest first. */
  topAtPeak?: { workdir: string; bytes: number }[];
  heldGiBMin: number;
  /** Peak bytes per work dir (`<arch>/<pn>/<pv>`), over the whole run. */
  workdirPeaks: Record<string, number>;
  lingering: {
    pn: string;
    pv: string;
    workdir: string;
    state: WorkdirState;
    bytes: number;
    reason: string;
    /** Absolute path of the folder. */
    path?: string;
  }[];
  exitCode?: number;
}

export type TimelineLine = TimelineHeader | TimelineSample | TimelineEvent | TimelineSummary;
