// The shapes of `rambake plan`: what the sizing model takes (options, measured history) and
// what it gives (a RamPlan that `rambake apply` writes and the reporters render).

import type { RecordedRun } from '../timeline/timeline-runs.js';
import type { Footprint, TaskSpan } from './footprint.js';

export const PLAN_SCHEMA_VERSION = 1;

export type PlanScope = 'tmpdir' | 'workdir';

export type NeedSource = 'recorded-run' | 'tmpdir-tmpfs' | 'published';

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

/** What BitBake's buildstats say about each task of the builds a history covers. */
export interface TaskTimes {
  /** Seconds per `<pn>:<do_x>` (setscene as `do_x_setscene`), newest build wins. */
  seconds: Map<string, number>;
  /** Start, end and bytes written of each task: what the footprint is measured with. */
  spans: TaskSpan[];
  /** BUILDNAMEs read. */
  builds: string[];
}

/**
 * Everything measured on this build, read once for plan, steps and the prediction: the
 * recorded runs (one model, timeline/timeline-runs.ts), compile memory and task times from
 * buildstats, and the footprint each task left on TMPDIR in the newest run.
 */
export interface History {
  /** Every recorded run, oldest first. */
  runs: RecordedRun[];
  /** The newest recorded run. */
  run?: RecordedRun;
  /** Peak bytes per work dir (`<arch>/<pn>/<pv>`) over all runs. */
  workdirPeaks: Record<string, number>;
  compile?: CompileRss;
  /** Buildstats of the newest run's builds; without a run, of the newest build of the targets asked about. */
  times: TaskTimes;
  footprint?: Footprint;
  /** The targets of the measured build (`times`): the recorded command, or BB_CMDLINE in its event log. */
  builtTargets?: { targets: string[]; from: string; command?: string[] };
  /** The newest buildstats build: where it lives and whether it completed without a failed task. */
  newestBuild?: { name: string; dir: string; completed: boolean };
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
  /**
   * `need`: where the need comes from, most measured first: the recorded runs' peaks, a build
   * that completed on the tmpfs TMPDIR is on now, or published figures.
   */
  sources: {
    history: boolean;
    need: NeedSource;
    runs: number;
    buildstats: number;
    published?: string;
  };
  uncertainty: string;
  reasons: PlanReason[];
  verdict: { fits: boolean; inSteps: boolean; text: string };
}
