// The one BuildDir model: every path and setting rambake uses, resolved once, with where
// each value came from. Produced by `loadBuildDir` (builddir.ts); everything else reads it.

import type { LockState } from '../system/bitbake-lock.js';
import type { ConfDiagnostic, ConfIO, Location, Statement } from './conf/types.js';
import type { Layer } from './layers.js';

/** Best first: BitBake itself, the newest event log, rambake's own evaluation, a default. */
export type VarSource = 'bitbake' | 'eventlog' | 'conf' | 'default';

export interface ResolvedVar {
  /** The expanded value; undefined when unset everywhere. */
  value: string | undefined;
  source: VarSource;
  /** For `conf`: the assignment whose value won. */
  file?: string;
  line?: number;
  /** The value holds `${@…}` Python that only BitBake can evaluate. */
  needsBitBake?: boolean;
  /** How a default was derived, e.g. "CPUs available (affinity), capped at 64". */
  note?: string;
}

/** The variables the model resolves (bitbake-formats.md §3 plus the settings rambake reads). */
export const BUILD_VARS = [
  'TOPDIR',
  'TMPDIR',
  'BASE_WORKDIR',
  'STAMPS_DIR',
  'COMPONENTS_DIR',
  'DEPLOY_DIR',
  'LOG_DIR',
  'BUILDSTATS_BASE',
  'SSTATE_MANIFESTS',
  'PERSISTENT_DIR',
  'DL_DIR',
  'SSTATE_DIR',
  'MACHINE',
  'DISTRO',
  'BB_NUMBER_THREADS',
  'PARALLEL_MAKE',
  'BB_SCHEDULER',
  'INHERIT',
  'RM_WORK_EXCLUDE',
  'BB_DISKMON_DIRS',
  'SSTATE_MIRRORS',
  'BB_HASHSERVE',
] as const;
export type BuildVarName = (typeof BUILD_VARS)[number];

export interface BuildPaths {
  topdir: string;
  tmpdir: string;
  baseWorkdir: string;
  stampsDir: string;
  componentsDir: string;
  /** `${TMPDIR}/work-shared`: never cleaned by rm_work. */
  workShared: string;
  deployDir: string;
  logDir: string;
  buildstatsBase: string;
  sstateManifests: string;
  persistentDir: string;
  dlDir: string;
  sstateDir: string;
}

export interface BuildDir {
  topdir: string;
  layout: 'classic' | 'bitbake-setup';
  /** bitbake-setup: the `<setup>` folder holding config/, layers/, build/. */
  setupDir?: string;
  /** bitbake-setup: where the shared site.conf symlink points. */
  sharedSiteConf?: string;
  /** conf files of the build dir that exist (absolute paths). */
  confFiles: { bblayers: string; local?: string; auto?: string; site?: string; toolcfg?: string };
  vars: Record<BuildVarName, ResolvedVar>;
  paths: BuildPaths;
  machine: string | undefined;
  distro: string | undefined;
  /** rm_work is in INHERIT. */
  rmWork: boolean;
  rmWorkExclude: string[];
  layers: Layer[];
  /** Every statement read, in order, for checks such as `doctor`. */
  statements: Statement[];
  /** Files read, in order. */
  files: string[];
  diagnostics: ConfDiagnostic[];
  /** A BitBake server holds `bitbake.lock` (a lock on it, or a live BitBake PID in it). */
  buildRunning: boolean;
  /** The state of `bitbake.lock` behind buildRunning (a stale file is not a running build). */
  bitbakeLock?: LockState;
  /** The event log whose `allvariables` line was used, if any. */
  eventLog?: string;
  /**
   * The folder of this build's console logs when BB_CONSOLELOG puts them elsewhere than
   * `${LOG_DIR}/cooker/${MACHINE}` (apply's block keeps them on disk under rambake-keep).
   */
  consoleLogDir?: string;
  /**
   * Where BitBake's own values (bitbake -e or the event log) differ from rambake's reading of
   * the conf files, and why; empty when BitBake was not asked.
   */
  disagreements: Disagreement[];
  /** Why a source was not used (stale event log, build running, bitbake -e failed). */
  notes: string[];
  /**
   * The paths rambake could not resolve (Python only BitBake evaluates, a relative path): their
   * variable is marked needsBitBake and `paths` holds bitbake.conf's default for them only so
   * that code which needs a string keeps going; no file-system check may trust it.
   */
  unresolvedPaths?: UnresolvedPath[];
  /** Any variable, from the best source available (same order as `vars`). */
  getVar(name: string): ResolvedVar;
}

export interface UnresolvedPath {
  key: keyof BuildPaths;
  variable: BuildVarName;
  /** The value as rambake read it (with its `${@…}` or relative path). */
  value: string;
  file?: string;
  line?: number;
  /** True when the value holds Python (`${@…}`) or is set by anonymous Python; false: not absolute. */
  python: boolean;
  /** bitbake.conf's default, which `paths` holds in its place. */
  assumed: string;
}

export interface Disagreement {
  name: BuildVarName;
  /** rambake's own evaluation of the conf files. */
  rambake: ResolvedVar;
  /** BitBake's value (undefined: unset). */
  bitbake: string | undefined;
  why: string;
}

export interface LoadOptions {
  /** `--build-dir`; else `env.BUILDDIR`; else the nearest folder upward from `cwd` with conf/bblayers.conf. */
  buildDir?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Which sources of truth to ask besides the static evaluation (both default to true). */
  sources?: { getvar?: boolean; eventlog?: boolean };
  /** The file system as the conf reader sees it (default: the real one). */
  confIO?: ConfIO;
}

export type { Location };
