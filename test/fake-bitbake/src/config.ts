// The fake's configuration from its own reading of the build's conf files (conf/read.ts):
// the paths and settings the engine uses, expanded. Never asks rambake or bitbake-getvar.

import path from 'node:path';
import { holdsPython } from './conf/emit.js';
import { type BuildConf, readBuildConf } from './conf/read.js';
import { cpuCount, type Store } from './conf/store.js';
import type { FakeConfig } from './types.js';

export function loadConfForFake(cwd: string, env: NodeJS.ProcessEnv): BuildConf {
  return readBuildConf(cwd, env);
}

/** A value the fake can use: set, and free of Python it could not evaluate. */
function usable(store: Store, name: string): string | undefined {
  const v = store.get(name);
  return v === undefined || holdsPython(v) ? undefined : v;
}

/** `/x/tmp/buildstats/` → `/x/tmp/buildstats` (buildstats.bbclass's value ends in a slash). */
const trimSlash = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);

export function configFromConf(conf: BuildConf): FakeConfig {
  const { store, topdir } = conf;
  const value = (n: string) => usable(store, n);
  const dir = (n: string, fallback: string) => trimSlash(value(n) ?? fallback);
  const tmpdir = dir('TMPDIR', path.join(topdir, 'tmp'));
  const baseWorkdir = dir('BASE_WORKDIR', path.join(tmpdir, 'work'));
  const threads = Number.parseInt(value('BB_NUMBER_THREADS') ?? '', 10);
  const words = (n: string) => (value(n) ?? '').split(/\s+/).filter((w) => w !== '');
  const rmWork = words('INHERIT').includes('rm_work');
  const vars: Record<string, string> = {};
  const varOrigins: FakeConfig['varOrigins'] = {};
  for (const name of store.names()) {
    const v = value(name);
    if (v === undefined) continue;
    vars[name] = v;
    const last = store.history(name).at(-1);
    varOrigins[name] = last && last.line > 0 ? { file: last.file, line: last.line } : {};
  }
  const logDir = dir('LOG_DIR', path.join(tmpdir, 'log'));
  const machine = value('MACHINE') ?? 'qemux86-64';
  // As knotty: the console log and the event log go where these name, LOG_DIR only by default.
  const folderOf = (n: string) => {
    const v = value(n);
    return v && path.isAbsolute(v) ? path.dirname(v) : undefined;
  };
  const diskmonDirs = value('BB_DISKMON_DIRS');
  const warnInterval = value('BB_DISKMON_WARNINTERVAL');
  return {
    topdir,
    tmpdir,
    baseWorkdir,
    stampsDir: dir('STAMPS_DIR', path.join(tmpdir, 'stamps')),
    componentsDir: dir('COMPONENTS_DIR', path.join(tmpdir, 'sysroots-components')),
    workShared: path.join(tmpdir, 'work-shared'),
    deployDir: dir('DEPLOY_DIR', path.join(tmpdir, 'deploy')),
    logDir,
    consoleLogDir: folderOf('BB_CONSOLELOG') ?? path.join(logDir, 'cooker', machine),
    eventLogDir: folderOf('BB_DEFAULT_EVENTLOG') ?? path.join(logDir, 'eventlog'),
    buildstatsBase: dir('BUILDSTATS_BASE', path.join(tmpdir, 'buildstats')),
    sstateManifests: dir('SSTATE_MANIFESTS', path.join(tmpdir, 'sstate-control')),
    dlDir: dir('DL_DIR', path.join(topdir, 'downloads')),
    sstateDir: dir('SSTATE_DIR', path.join(topdir, 'sstate-cache')),
    workdirOf: recipeWorkdirs(store, baseWorkdir),
    ...(diskmonDirs?.trim()
      ? { diskmon: { dirs: diskmonDirs, ...(warnInterval ? { warnInterval } : {}) } }
      : {}),
    threads: Number.isFinite(threads) && threads > 0 ? threads : cpuCount(),
    // rm_work.bbclass has set BB_SCHEDULER ?= "completion" by now; BitBake's own default is speed.
    scheduler: value('BB_SCHEDULER') === 'completion' ? 'completion' : 'speed',
    rmWork,
    rmWorkExclude: words('RM_WORK_EXCLUDE'),
    machine,
    distro: value('DISTRO') ?? 'nodistro',
    vars,
    varOrigins,
    // Build Configuration names layers by folder name.
    layers: conf.layers.map((l) => ({ name: path.basename(l), path: l })),
  };
}

/**
 * WORKDIR as a recipe sees it: PN, PV and MULTIMACH_TARGET_SYS set, so `pn-<pn>` is in
 * OVERRIDES and `WORKDIR:pn-<pn>` applies. Falls back to the default layout when the value
 * cannot be fully expanded.
 */
function recipeWorkdirs(store: Store, baseWorkdir: string): FakeConfig['workdirOf'] {
  const cache = new Map<string, string>();
  const origin = { op: 'set', file: '<recipe>', line: 0 };
  return (r) => {
    const key = `${r.arch}/${r.pn}/${r.pv}`;
    let w = cache.get(key);
    if (w === undefined) {
      const view = store.clone();
      view.set('PN', r.pn, origin);
      view.set('PV', r.pv, origin);
      view.set('MULTIMACH_TARGET_SYS', r.arch, origin);
      const v = view.get('WORKDIR');
      w = v && !v.includes('${') ? trimSlash(v) : path.join(baseWorkdir, key);
      cache.set(key, w);
    }
    return w;
  };
}
