// The one place the fake depends on rambake: its BuildDir model turns conf/ into FakeConfig.
// Imported from the compiled dist/ (npm run build builds rambake before the fake).

import path from 'node:path';
import { type BuildDir, loadBuildDir } from '../../../dist/index.js';
import type { FakeConfig } from './types.js';

export async function loadBuildDirForFake(cwd: string, env: NodeJS.ProcessEnv): Promise<BuildDir> {
  // Never ask bitbake-getvar: on this PATH it may be the fake itself.
  return loadBuildDir({ cwd, env, sources: { getvar: false, eventlog: false } });
}

export function configFromBuildDir(bd: BuildDir): FakeConfig {
  const p = bd.paths;
  const value = (n: string) => bd.getVar(n).value;
  const threads = Number.parseInt(value('BB_NUMBER_THREADS') ?? '', 10);
  const vars: Record<string, string> = {};
  const varOrigins: FakeConfig['varOrigins'] = {};
  for (const [name, v] of Object.entries(bd.vars)) {
    if (v.value === undefined) continue;
    vars[name] = v.value;
    varOrigins[name] = { ...(v.file ? { file: v.file } : {}), ...(v.line ? { line: v.line } : {}) };
  }
  return {
    topdir: bd.topdir,
    tmpdir: p.tmpdir,
    baseWorkdir: p.baseWorkdir,
    stampsDir: p.stampsDir,
    componentsDir: p.componentsDir,
    workShared: p.workShared,
    deployDir: p.deployDir,
    logDir: p.logDir,
    buildstatsBase: p.buildstatsBase,
    sstateManifests: p.sstateManifests,
    dlDir: p.dlDir,
    sstateDir: p.sstateDir,
    threads: Number.isFinite(threads) && threads > 0 ? threads : 4,
    // rm_work.bbclass sets BB_SCHEDULER ?= "completion"; BitBake's own default is speed.
    scheduler:
      (value('BB_SCHEDULER') ?? (bd.rmWork ? 'completion' : 'speed')) === 'completion'
        ? 'completion'
        : 'speed',
    rmWork: bd.rmWork,
    rmWorkExclude: bd.rmWorkExclude,
    machine: bd.machine ?? 'qemux86-64',
    distro: bd.distro ?? 'poky',
    vars,
    varOrigins,
    // Build Configuration names layers by folder name.
    layers: bd.layers.map((l) => ({ name: path.basename(l.path), path: l.path })),
  };
}
