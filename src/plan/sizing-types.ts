// The shapes of `rambake plan`: what the sizing model takes (options, measured history) and
// what it gives (a RamPlan that `rambake apply` writes and the reporters render).

export const PLAN_SCHEMA_VERSION = 1;

export type PlanScope = 'tmpdir' | 'workdir';

export interface PlanOptions {
  /** RAM in bytes instead of MemTotal: "what if I had 32 GB". */
  ram?: number;
  scope?: PlanScope;
  /** The image or `world` the build makes; picks the published figures when there is no history. */
  target?: string;
  /** tmpfs size in bytes chosen by the user: the model checks it instead of choosing one. */
  size?: number;
  /** Mount point instead of the default (`${TOPDIR}/tmp-ram`, or `${TMPDIR}/work` for workdir scope). */
  path?: string;
}

/** One recorded run (`${TOPDIR}/rambake/runs/*.jsonl`), reduced to what sizing needs. */
export interface RunPeak {
  file: string;
  startedAt?: string;
  /** The summary line was there (false: a killed watcher, peaks recomputed from samples). */
  summarised: boolean;
  /** Peak bytes used on the TMPDIR file system. */
  peakBytes: number;
  peakInodes: number;
  /** Largest sum of live work-dir sizes in one sample (what a WORKDIR-only tmpfs must hold). */
  peakWorkBytes: number;
  /** TMPDIR had a file system of its own (a tmpfs): `peakBytes` is TMPDIR alone. */
  onTmpfs: boolean;
  /** Used bytes in the first sample: on a shared disk, the peak minus this is the run's growth. */
  firstUsedBytes?: number;
  /** tmpfs size= of the run, when it was on a tmpfs. */
  sizeBytes?: number;
  workdirPeaks: Record<string, number>;
  samples: number;
  /** ENOSPC seen: the run's peak is a floor, not the true need. */
  enospc: boolean;
  /** Lines that were not JSON (a torn last line of a killed watcher is one). */
  skippedLines: number;
}

/** Memory per compile job, from buildstats `ru_maxrss` of do_compile tasks. */
export interface CompileRss {
  builds: string[];
  tasks: number;
  /** 90th percentile, bytes. */
  p90Bytes: number;
  maxBytes: number;
  /** The heaviest PFs, largest first. */
  heaviest: { pf: string; bytes: number }[];
}

export interface History {
  runs: RunPeak[];
  /** Peak bytes per work dir (`<arch>/<pn>/<pv>`) over all runs. */
  workdirPeaks: Record<string, number>;
  compile?: CompileRss;
  notes: string[];
}

export interface PlanReason {
  topic: string;
  text: string;
  figures?: Record<string, number | string>;
}

export interface GiantPlacement {
  pn: string;
  /** Measured (or published) peak bytes of its work dir. */
  bytes: number;
  reason: string;
  conf: string;
}

export interface RamPlan {
  schemaVersion: number;
  topdir: string;
  tmpfs: { path: string; size: number; nrInodes: number; scope: PlanScope };
  threads: { bbNumberThreads: number; parallelMake: string; lowered: boolean };
  /** The BB_DISKMON_DIRS value. */
  diskmon: string;
  /** The managed block's lines, without markers. */
  conf: string[];
  mount: { source: string; options: string[] };
  /** Memory the tmpfs must leave free for compilers: jobs × bytes per job. */
  reserve: { jobs: number; perJobBytes: number; bytes: number; from: 'buildstats' | 'published' };
  /** The tmpfs may exceed free RAM because its pages can go to swap. */
  swapHelps: boolean;
  /** Bytes the build needs on the tmpfs (with the margin), and where that figure came from. */
  need: { bytes: number; inodes: number };
  placeOnDisk: GiantPlacement[];
  rmWorkExclude: { pn: string; bytes?: number; text: string }[];
  sources: { history: boolean; runs: number; buildstats: number; published?: string };
  uncertainty: string;
  reasons: PlanReason[];
  verdict: { fits: boolean; inSteps: boolean; text: string };
}
