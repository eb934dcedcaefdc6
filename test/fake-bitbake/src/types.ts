// Shared shapes of the fake BitBake: the configuration it runs with (built from its own
// reading of the conf files by config.ts, or by hand in tests) and the scenario files it replays.

export type RecipeKind = 'target' | 'native' | 'cross' | 'kernel' | 'image' | 'allarch';

/** Everything the engine needs from the build's configuration, already expanded. */
export interface FakeConfig {
  topdir: string;
  tmpdir: string;
  baseWorkdir: string;
  stampsDir: string;
  componentsDir: string;
  /** `${TMPDIR}/work-shared`: never cleaned by rm_work. */
  workShared: string;
  deployDir: string;
  logDir: string;
  /** The folder of BB_CONSOLELOG (bitbake.conf: `${LOG_DIR}/cooker/${MACHINE}/${DATETIME}.log`). */
  consoleLogDir: string;
  /** The folder of BB_DEFAULT_EVENTLOG (bitbake.conf: `${LOG_DIR}/eventlog/${DATETIME}.json`). */
  eventLogDir: string;
  buildstatsBase: string;
  sstateManifests: string;
  dlDir: string;
  sstateDir: string;
  /** A recipe's WORKDIR when the conf sets it (e.g. `WORKDIR:pn-zlib`); else BASE_WORKDIR/arch/pn/pv. */
  workdirOf?: (r: { pn: string; pv: string; arch: string }) => string;
  /** BB_DISKMON_DIRS and BB_DISKMON_WARNINTERVAL, as set; unset: no disk monitor. */
  diskmon?: { dirs: string; warnInterval?: string };
  threads: number;
  scheduler: 'speed' | 'completion';
  rmWork: boolean;
  rmWorkExclude: string[];
  machine: string;
  distro: string;
  /** Expanded values written to the event log's `allvariables` line. */
  vars: Record<string, string>;
  /** Where each var was set, for the event log's history entries. */
  varOrigins: Record<string, { file?: string; line?: number }>;
  /** Layer paths in BBLAYERS order (tids and the Build Configuration block use them). */
  layers: { name: string; path: string }[];
}

/** One folder a task fills: [file count, total bytes] at size scale 1. */
export type FolderWrite = [number, number];

export interface ScenarioRecipe {
  pn: string;
  pv: string;
  pr: string;
  /** MULTIMACH_TARGET_SYS, e.g. core2-64-poky-linux, x86_64-linux. */
  arch: string;
  kind: RecipeKind;
  /** Build-time dependencies (PNs): their do_populate_sysroot feeds this recipe sysroot. */
  deps: string[];
  /** Images: packages installed by do_rootfs. */
  rdeps?: string[];
  /** .bb path relative to the first layer; default recipes-<group>/<bpn>/<bpn>_<pv>.bb. */
  bb?: string;
  /** Seconds per task (real-world); missing tasks take the kind's default. */
  durations?: Record<string, number>;
  /** Folder (WORKDIR-relative, or a known shared area) → what the owning task writes. */
  writes?: Record<string, FolderWrite>;
  rmWorkExclude?: boolean;
}

export interface Scenario {
  name: string;
  description: string;
  target: string;
  /** Printed in "Parsing of N .bb files complete". */
  bbFiles: number;
  timeScale: number;
  sizeScale: number;
  /**
   * Lines per virtual second that do_configure, do_compile and do_install write into their
   * log while they run, as a real task's output streams in (each write is an inotify event for
   * a watch on temp/). Written every 20 ms of real time at most; none when absent.
   */
  logLinesPerSecond?: number;
  recipes: ScenarioRecipe[];
  /** Tasks that fail (always). */
  fail?: { pn: string; task: string }[];
  /** sstate objects never created (SSTATE_SKIP_CREATION, failed uploads, pruned caches). */
  sstateSkipCreation?: { pn: string; task: string }[];
  /** From build number `fromBuild` on, recipe `pn` is at version `pv`. */
  versionBump?: { pn: string; pv: string; fromBuild: number }[];
}

export type TaskMode = 'real' | 'noexec' | 'setscene' | 'current';

export interface TaskRecord {
  pn: string;
  pf: string;
  task: string;
  setscene: boolean;
  noexec: boolean;
  /** Virtual (unscaled) seconds since the build started. */
  start: number;
  end: number;
  status: 'passed' | 'failed' | 'interrupted';
}

export interface BuildResult {
  exitCode: number;
  records: TaskRecord[];
  buildName: string;
  consoleLog: string;
  failed: string[];
  interrupted: boolean;
}
