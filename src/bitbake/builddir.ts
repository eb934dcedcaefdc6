// The one BuildDir model. Every path and setting is resolved here, once, from the best source:
//   1. the `allvariables` line of the newest event log, when no conf file read is newer than it;
//   2. BitBake itself (one cached `bitbake -e`), when on PATH and no build holds the server;
//   3. rambake's static evaluation of the conf files (file:line of the winning assignment);
//   4. a default (bitbake.conf's, or BitBake's own rule such as the CPU count).
// A fresh event log holds exactly what BitBake would print, so when there is one rambake does
// not start BitBake to hear the same answers.

import { existsSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { ConfSyntaxError, UsageError } from '../errors.js';
import { settledLockState } from '../system/bitbake-lock.js';
import { readCpus } from '../system/cpus.js';
import { askBitbake, bitbakeUser } from './ask-bitbake.js';
import type { BitbakeEnv } from './bitbake-env.js';
import type {
  BuildDir,
  BuildPaths,
  BuildVarName,
  Disagreement,
  LoadOptions,
  ResolvedVar,
  UnresolvedPath,
} from './builddir-types.js';
import { BUILD_VARS } from './builddir-types.js';
import type { DataStore } from './conf/datastore.js';
import { nodeConfIO } from './conf/node-io.js';
import { type BuildConfig, ENVIRONMENT_FILE, readBuildConfig } from './conf/reader.js';
import type { ConfIO } from './conf/types.js';
import { findBuildDir } from './discover.js';
import { findNewestAllVariables } from './eventlog.js';
import { pathLengthProblem } from './tmpdir-path.js';

/** The build dir LoadOptions name (`--build-dir`, else BUILDDIR, else upward from cwd), not loaded. */
export function findBuildDirOf(opts: LoadOptions): ReturnType<typeof findBuildDir> {
  return findBuildDir({
    ...(opts.buildDir === undefined ? {} : { buildDir: opts.buildDir }),
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env ?? process.env,
  });
}

export async function loadBuildDir(opts: LoadOptions = {}): Promise<BuildDir> {
  const env = opts.env ?? process.env;
  const found = findBuildDirOf(opts);
  const topdir = found.topdir;
  const config = evaluateConf(topdir, opts.confIO ?? nodeConfIO, env);
  const bbDefaultThreads = (await readCpus()).bbDefault;
  const notes: string[] = [];
  const fromConf = (name: string) => confVar(config.data, name);
  // Held, not merely present: a server that died leaves the file behind, and one that outlives
  // its command lets go within a second or so (system/bitbake-lock.ts).
  const bitbakeLock = await settledLockState(topdir);
  const buildRunning = bitbakeLock.state === 'held';
  if (bitbakeLock.state === 'stale') notes.push(`stale bitbake.lock (${bitbakeLock.detail}): ignored`);

  let eventVars: Record<string, { v: string | undefined }> | undefined;
  let eventLog: string | undefined;
  if (opts.sources?.eventlog !== false) {
    const dir = eventLogDir(fromConf, topdir);
    const found = dir === undefined ? undefined : await findNewestAllVariables(dir);
    if (found !== undefined) {
      const newer = config.files.find((f) => mtime(f) > mtime(found.path));
      if (newer === undefined) {
        eventVars = found.vars;
        eventLog = found.path;
      } else notes.push(`event log ${found.path} is older than ${newer}: not used`);
    }
  }

  let bitbake: BitbakeEnv | undefined;
  if (opts.sources?.getvar !== false && eventVars === undefined) {
    // During a build BitBake would answer only after it: a cached answer for these conf files
    // is still BitBake's, so it is used; nothing else is asked.
    const answer = await askBitbake({
      topdir,
      files: config.files,
      ...bitbakeUser(topdir, env),
      ...(buildRunning ? { startBitbake: false } : {}),
    });
    if (answer.ok) bitbake = answer.env;
    else if (buildRunning)
      notes.push(`a build holds bitbake.lock (${bitbakeLock.detail}): BitBake not asked`);
    else if (answer.reason !== 'bitbake is not on PATH') notes.push(`${answer.reason}: using the conf files`);
  }

  const getVar = (name: string): ResolvedVar => {
    if (bitbake) return { value: bitbake.vars.get(name), source: 'bitbake' };
    const ev = eventVars?.[name];
    if (ev !== undefined) return { value: ev.v, source: 'eventlog' };
    return fromConf(name);
  };

  const vars = {} as Record<BuildVarName, ResolvedVar>;
  for (const name of BUILD_VARS) vars[name] = getVar(name);
  // Reading those values can fail to expand (a cycle, a runaway chain): BitBake would stop there.
  for (const d of config.data.diagnostics) if (!config.diagnostics.includes(d)) config.diagnostics.push(d);
  const disagreements = bitbake || eventVars ? compareWithConf(vars, fromConf) : [];
  vars.TOPDIR = { value: topdir, source: 'default', note: `folder above conf/bblayers.conf (${found.how})` };
  fillDefaults(vars, bbDefaultThreads);

  // A value rambake cannot resolve is marked (needsBitBake, with a note) and listed in
  // unresolvedPaths; paths gets bitbake.conf's default only so that code needing a string keeps
  // going, and doctor skips the file-system checks of that path (it says so).
  const unresolvedPaths: UnresolvedPath[] = [];
  // A path no system call takes (each fails with ENAMETOOLONG) is refused where it was set,
  // before the checks that look at it in parallel (and at paths made from it) race to fail.
  const lookable = (name: BuildVarName, value: string): string => {
    const why = pathLengthProblem(value);
    if (why === undefined) return value;
    const v = vars[name];
    if (v.file !== undefined) throw new ConfSyntaxError(v.file, v.line, `${name} ${why}`);
    const from = {
      bitbake: 'BitBake',
      eventlog: 'the event log',
      conf: 'the conf files',
      default: 'a default',
    };
    throw new UsageError(`${name} ${why} (as ${from[v.source]} gives it)`);
  };
  const path = (key: keyof BuildPaths, name: BuildVarName, fallback: string): string => {
    const v = vars[name];
    if (v.value === undefined) return fallback;
    if (!v.needsBitBake && isAbsolute(v.value)) return lookable(name, v.value);
    const python = v.needsBitBake === true;
    const why = python ? 'needs BitBake' : 'is not an absolute path';
    unresolvedPaths.push({
      key,
      variable: name,
      value: v.value,
      ...(v.file ? { file: v.file } : {}),
      ...(v.line === undefined ? {} : { line: v.line }),
      python,
      assumed: fallback,
    });
    // BitBake's own answer (a relative path it was given) is known, only not a folder to look at.
    const fromBitbake = v.source === 'bitbake' || v.source === 'eventlog';
    vars[name] = {
      ...v,
      ...(fromBitbake ? {} : { needsBitBake: true }),
      note: v.note ?? `${why}: not resolved, so no file-system check looks at it`,
    };
    notes.push(`${name} ${why} (${v.value}): not resolved; its file-system checks are skipped`);
    return fallback;
  };
  const tmpdir = path('tmpdir', 'TMPDIR', join(topdir, 'tmp'));
  /** A path BitBake puts in TMPDIR with no variable of its own: unresolved with TMPDIR. */
  const derived = (key: keyof BuildPaths, fallback: string): string => {
    const t = unresolvedPaths.find((u) => u.key === 'tmpdir');
    if (t) unresolvedPaths.push({ ...t, key, assumed: fallback });
    return fallback;
  };
  const paths = {
    topdir,
    tmpdir,
    baseWorkdir: path('baseWorkdir', 'BASE_WORKDIR', join(tmpdir, 'work')),
    stampsDir: path('stampsDir', 'STAMPS_DIR', join(tmpdir, 'stamps')),
    componentsDir: path('componentsDir', 'COMPONENTS_DIR', join(tmpdir, 'sysroots-components')),
    workShared: derived('workShared', join(tmpdir, 'work-shared')),
    deployDir: path('deployDir', 'DEPLOY_DIR', join(tmpdir, 'deploy')),
    logDir: path('logDir', 'LOG_DIR', join(tmpdir, 'log')),
    buildstatsBase: path('buildstatsBase', 'BUILDSTATS_BASE', join(tmpdir, 'buildstats')),
    sstateManifests: path('sstateManifests', 'SSTATE_MANIFESTS', join(tmpdir, 'sstate-control')),
    persistentDir: path('persistentDir', 'PERSISTENT_DIR', join(topdir, 'cache')),
    dlDir: path('dlDir', 'DL_DIR', join(topdir, 'downloads')),
    sstateDir: path('sstateDir', 'SSTATE_DIR', join(topdir, 'sstate-cache')),
  };

  const words = (v: ResolvedVar) => (v.value ?? '').split(/\s+/).filter(Boolean);
  const confDir = join(topdir, 'conf');
  const optional = (file: string) => (existsSync(join(confDir, file)) ? join(confDir, file) : undefined);
  return {
    topdir,
    layout: found.layout,
    ...(found.setupDir ? { setupDir: found.setupDir } : {}),
    ...(found.sharedSiteConf ? { sharedSiteConf: found.sharedSiteConf } : {}),
    confFiles: {
      bblayers: join(confDir, 'bblayers.conf'),
      ...defined('local', optional('local.conf')),
      ...defined('auto', optional('auto.conf')),
      ...defined('site', optional('site.conf')),
      ...defined('toolcfg', optional('toolcfg.conf')),
    },
    vars,
    paths,
    machine: vars.MACHINE.value,
    distro: vars.DISTRO.value,
    rmWork: words(vars.INHERIT).includes('rm_work'),
    rmWorkExclude: words(vars.RM_WORK_EXCLUDE),
    layers: config.layers,
    statements: config.statements,
    files: config.files,
    diagnostics: config.diagnostics,
    buildRunning,
    bitbakeLock,
    ...(eventLog ? { eventLog } : {}),
    ...defined('consoleLogDir', consoleLogDir(fromConf)),
    disagreements,
    notes,
    unresolvedPaths,
    getVar,
  };
}

/**
 * The conf files evaluated as BitBake reads them, from the given file system and environment
 * (apply evaluates them again with its block in place, through an in-memory overlay).
 */
export function evaluateConf(topdir: string, io: ConfIO, env: NodeJS.ProcessEnv): BuildConfig {
  // The whole environment: the reader keeps what BitBake's pass-through lists let in.
  return readBuildConfig(topdir, io, env);
}

function defined<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/** A bitbake.conf's `?=` is a default, not the user's setting. */
const isDefaultsFile = (file: string) => basename(file) === 'bitbake.conf' || file.startsWith('<built-in');

function confVar(data: DataStore, name: string): ResolvedVar {
  const v = data.getVar(name);
  if (v === undefined) return { value: undefined, source: 'default' };
  const resolved: ResolvedVar = {
    value: v.value,
    source: v.loc && !isDefaultsFile(v.loc.file) ? 'conf' : 'default',
  };
  if (v.loc?.file === ENVIRONMENT_FILE) resolved.note = 'from the environment (BitBake passes it through)';
  else if (v.loc) {
    resolved.file = v.loc.file;
    resolved.line = v.loc.line;
  }
  if (v.needsBitBake) resolved.needsBitBake = true;
  if (v.pythonSetAt)
    resolved.note = `changed by anonymous Python at ${v.pythonSetAt.file}:${v.pythonSetAt.line}`;
  else if (v.overridesPythonAt)
    resolved.note = `the override it takes depends on OVERRIDES, which holds Python (\${@…}) from ${v.overridesPythonAt.file}:${v.overridesPythonAt.line}`;
  return resolved;
}

/** BitBake's values against rambake's reading of the conf files, with the likely reason. */
function compareWithConf(
  vars: Record<BuildVarName, ResolvedVar>,
  fromConf: (name: string) => ResolvedVar,
): Disagreement[] {
  const out: Disagreement[] = [];
  for (const name of BUILD_VARS) {
    if (name === 'TOPDIR') continue;
    const conf = fromConf(name);
    const bitbake = vars[name].value;
    if (conf.value === bitbake) continue;
    out.push({ name, rambake: conf, bitbake, why: whyDiffers(name, conf) });
  }
  return out;
}

function whyDiffers(name: string, conf: ResolvedVar): string {
  if (conf.needsBitBake) return 'the conf value holds Python (${@…}) that only BitBake evaluates';
  if (name === 'BB_HASHSERVE' && conf.value?.trim() === 'auto')
    return 'BitBake starts its own hash equivalence server and replaces "auto" with its socket';
  if (conf.value === undefined)
    return 'set where rambake does not read: a class, anonymous Python or the environment';
  return 'changed after the conf files, by a class or anonymous Python (rambake reads conf files only)';
}

/** BitBake's own rules for what the conf leaves to Python (`${@oe.utils.cpu_count()}`) or unset. */
function fillDefaults(vars: Record<BuildVarName, ResolvedVar>, cpus: number): void {
  // Only bitbake.conf's own `${@oe.utils.cpu_count()}` is replaced by what it computes; Python
  // the user wrote stays as written, marked needsBitBake, with its file:line.
  const threads = vars.BB_NUMBER_THREADS;
  if (threads.value === undefined || (threads.needsBitBake && threads.source === 'default')) {
    vars.BB_NUMBER_THREADS = {
      value: String(cpus),
      source: 'default',
      note: 'CPUs available to the process (affinity), capped at 64',
    };
  }
  const make = vars.PARALLEL_MAKE;
  if (make.value === undefined || (make.needsBitBake && make.source === 'default')) {
    vars.PARALLEL_MAKE = {
      value: `-j ${cpus}`,
      source: 'default',
      note: '-j <CPUs available>, capped at 64',
    };
  }
  if (vars.BB_SCHEDULER.value === undefined) {
    const rmWork = (vars.INHERIT.value ?? '').split(/\s+/).includes('rm_work');
    vars.BB_SCHEDULER = rmWork
      ? { value: 'completion', source: 'default', note: 'BB_SCHEDULER ?= "completion" in rm_work.bbclass' }
      : { value: 'speed', source: 'default', note: "BitBake's default scheduler" };
  }
  // cooker.py: exactly "auto" starts BitBake's own hash equivalence server on a socket in
  // TOPDIR, and that address is what its tasks see as BB_HASHSERVE.
  const hashserve = vars.BB_HASHSERVE;
  if (hashserve.value === 'auto' && vars.TOPDIR.value !== undefined)
    hashserve.note = `BitBake runs its own server at unix://${vars.TOPDIR.value}/hashserve.sock`;
}

/**
 * The folder BB_CONSOLELOG names (`…/cooker/${MACHINE}/${DATETIME}.log`): its file name holds
 * DATETIME, which only BitBake knows, but its folder is a plain path once MACHINE is expanded.
 */
function consoleLogDir(fromConf: (n: string) => ResolvedVar): string | undefined {
  const value = fromConf('BB_CONSOLELOG').value;
  if (value === undefined) return undefined;
  const dir = dirname(value);
  return isAbsolute(dir) && !dir.includes('${') ? dir : undefined;
}

/** Where BB_DEFAULT_EVENTLOG puts event logs (`${LOG_DIR}/eventlog/${DATETIME}.json` by default). */
function eventLogDir(fromConf: (n: string) => ResolvedVar, topdir: string): string | undefined {
  const configured = fromConf('BB_DEFAULT_EVENTLOG');
  if (configured.value && !configured.needsBitBake && isAbsolute(configured.value))
    return dirname(configured.value);
  const logDir = fromConf('LOG_DIR').value;
  if (logDir && isAbsolute(logDir)) return join(logDir, 'eventlog');
  return join(topdir, 'tmp', 'log', 'eventlog');
}

function mtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * BitBake stops at the first error in a conf file; so does rambake, with that file and line,
 * except for the errors a command reports itself (doctor turns `old-override-syntax` into a finding).
 */
export function assertReadable(bd: BuildDir, reportedByCaller: ReadonlySet<string> = new Set()): void {
  const first = bd.diagnostics.find((d) => d.severity === 'error' && !reportedByCaller.has(d.code));
  if (first) throw new ConfSyntaxError(first.file, first.line, first.message, first.expected);
}
