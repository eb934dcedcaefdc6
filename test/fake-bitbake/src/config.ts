// The one place the fake depends on rambake: its BuildDir model turns conf/ into FakeConfig.
// Imported at run time from the compiled dist/ (npm run build builds it first); the shape is
// declared here so the fake compiles on its own.

import path from 'node:path';
import type { FakeConfig } from './types.js';

interface ResolvedVarLike {
  value: string | undefined;
  file?: string;
  line?: number;
}
export interface BuildDirLike {
  topdir: string;
  paths: {
    topdir: string;
    tmpdir: string;
    baseWorkdir: string;
    stampsDir: string;
    componentsDir: string;
    workShared: string;
    deployDir: string;
    logDir: string;
    buildstatsBase: string;
    sstateManifests: string;
    dlDir: string;
    sstateDir: string;
  };
  vars: Record<string, ResolvedVarLike>;
  machine: string | undefined;
  distro: string | undefined;
  rmWork: boolean;
  rmWorkExclude: string[];
  layers: { path: string }[];
  getVar(name: string): ResolvedVarLike;
}

const DIST_INDEX = '../../../dist/index.js';

export async function loadBuildDirForFake(cwd: string, env: NodeJS.ProcessEnv): Promise<BuildDirLike> {
  const mod = (await import(DIST_INDEX)) as {
    loadBuildDir(o: { cwd?: string; env?: NodeJS.ProcessEnv; sources?: object }): Promise<BuildDirLike>;
  };
  // Never ask bitbake-getvar: on this PATH it may be the fake itself.
  return mod.loadBuildDir({ cwd, env, sources: { getvar: false, eventlog: false } });
}

export function configFromBuildDir(bd: BuildDirLike): FakeConfig {
  const p = bd.paths;
  const value = (n: string) => bd.vars[n]?.value ?? bd.getVar(n).value;
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
