// The shape of `rambake report` (text, JSON and HTML all render this one value). JSON
// consumers key on `schemaVersion`; times are epoch milliseconds, sizes bytes, CPU seconds.

import type { Lingering } from '../timeline/lingering.js';
import type { ChurnBuild, Recurring, SstateSummary, TaskReuse } from './churn.js';

export const REPORT_SCHEMA_VERSION = 1;

export interface ReportRun {
  /**
   * run: a recorded run (a timeline); buildstats: no run was recorded, the report is made from
   * the newest buildstats build alone (no fill chart, no work-dir peaks).
   */
  source: 'run' | 'buildstats';
  /** The timeline file (source run), or the buildstats build folder (source buildstats). */
  file: string;
  startedAt: number | null;
  /** Time of the last line with a time. */
  endedAt: number | null;
  command: string[] | null;
  /** The commands the run ran: the steps of `rambake run --steps`, else the command alone. */
  commands: string[][];
  /** The last target of the command (kept for older readers: `targets` has them all). */
  target: string | null;
  /** Every target of the build: the command's, or the last step's for a run in steps. */
  targets: string[];
  buildDir: string | null;
  tmpdir: string | null;
  fs: {
    mountPoint: string | null;
    fsType: string | null;
    /** tmpfs `size=`; null on a disk. */
    sizeBytes: number | null;
    nrInodes: number | null;
    /** TMPDIR had a tmpfs of its own: `used` is TMPDIR alone. */
    ownFs: boolean;
  };
  exitCode: number | null;
  /** The timeline ended with its summary line (false: the watcher was killed, figures recomputed). */
  complete: boolean;
  samples: number;
  /** BUILDNAMEs of the buildstats folders this run covers. */
  builds: string[];
  /** Where those buildstats folders were found (BUILDSTATS_BASE, or rambake-keep after revert). */
  buildstatsBase: string | null;
  /** Why the build did not finish: BitBake's disk monitor, ENOSPC, or a non-zero exit. */
  stopped: ReportStop | null;
}

export interface ReportStop {
  kind: 'diskmon' | 'enospc' | 'failed';
  message: string;
}

/** One command of a run in steps (`rambake run --steps`). */
export interface ReportStep {
  index: number;
  command: string[];
  targets: string[];
  startedAt: number;
  /** null: the run ended (or the watcher died) before the step did. */
  endedAt: number | null;
  exitCode: number | null;
  /** The run's own fullest while this step ran (above the baseline on a shared disk). */
  peakBytes: number;
  peakAt: number | null;
}

/** A recorded run, as the comparison shows it. */
export interface ReportRunBrief {
  file: string;
  startedAt: number | null;
  targets: string[];
  /** The run's own peak (above the baseline on a shared disk). */
  peakBytes: number;
  exitCode: number | null;
  stopped: ReportStop | null;
  /** Empty for a run in one go. */
  steps: ReportStep[];
}

/** The same targets built in one go and in steps: the peaks side by side. */
export interface ReportComparison {
  oneGo: ReportRunBrief;
  stepped: ReportRunBrief;
  /** The stepped peak as a share of the one-go peak (0.43 = 43 %); null when one-go peak is 0. */
  ratio: number | null;
  /** The tmpfs size both are measured against, when TMPDIR had a tmpfs of its own. */
  sizeBytes: number | null;
}

export interface UsagePoint {
  bytes: number;
  inodes: number;
  at: number | null;
}

export interface ReportUsage {
  peak: UsagePoint & { inodesAt: number | null };
  final: UsagePoint | null;
  totalBytes: number;
  totalInodes: number;
  /** What the file system held that is not this run's (a shared disk: the first sample). */
  baselineBytes: number;
  /** What the run wrote next to TMPDIR on that shared disk (sstate, downloads): not TMPDIR's. */
  outsideBytes: number;
  /** The peak of what the run itself put in TMPDIR: used less the baseline and less `outsideBytes` written by then. */
  peakRunBytes: number;
  enospc: { at: number; message: string }[];
}

export interface FillSeries {
  /** A work-dir key, `other` (the rest of the work dirs) or `non-work` (used − work dirs). */
  key: string;
  label: string;
  kind: 'workdir' | 'other' | 'non-work';
}

export interface ReportFill {
  series: FillSeries[];
  /** Downsampled (the fullest sample of each stretch), `values` in the order of `series`. */
  points: { t: number; used: number; values: number[] }[];
  /** The tmpfs size line; null when TMPDIR was on a disk. */
  sizeBytes: number | null;
}

export interface RecipePeak {
  workdir: string;
  pn: string;
  pv: string;
  bytes: number;
}

export interface RecipeCpu {
  pn: string;
  pf: string;
  /** User + system time of the task processes and their children. */
  cpuSeconds: number;
  /** Wall time summed over the recipe's tasks. */
  elapsed: number;
  tasks: number;
}

export interface ReportChurn {
  /** How many of the newest builds `rambake churn` analysed for recurrences. */
  analysed: number;
  /** This run's builds as the churn analysis sees them. */
  builds: ChurnBuild[];
  /** Recurring churn that involves this run's builds. */
  recurring: Recurring[];
}

export interface ReportSstate {
  build: string;
  summary: SstateSummary | null;
  reuse: TaskReuse[];
}

export type RecommendationRule =
  | 'tmpfs-size'
  | 'tmpfs-inodes'
  | 'enospc'
  | 'rm-work-exclude'
  | 'stale-workdir'
  | 'held-by-rm-work'
  | 'steps-giant'
  | 'churn'
  | 'plan';

export interface Recommendation {
  /** Which rule produced it (each is documented where the rule is written). */
  rule: RecommendationRule;
  severity: 'info' | 'warn';
  text: string;
  bytes?: number;
  pn?: string;
}

export interface ReportSkipped {
  path: string;
  why: string;
}

export interface Report {
  schemaVersion: number;
  run: ReportRun;
  usage: ReportUsage;
  fill: ReportFill;
  topByPeak: RecipePeak[];
  topByCpu: RecipeCpu[];
  lingering: Lingering[];
  heldGiBMin: number;
  churn: ReportChurn | null;
  sstate: ReportSstate[];
  recommendations: Recommendation[];
  /** Inputs read only in part, or not at all, and why. */
  skipped: ReportSkipped[];
  /** This run's steps (`rambake run --steps`); empty for a run in one go. */
  steps: ReportStep[];
  /** An earlier run of the same targets of the other kind (one go / in steps), side by side. */
  comparison: ReportComparison | null;
}
