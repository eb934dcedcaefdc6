// Inputs for the pure sizing model: a BuildDir, host facts and history, built in code so each
// test states the machine it plans for (16 GB no swap, 32 GB with swap, 64 GB …).

import type { BuildDir, BuildVarName, ResolvedVar } from '../../src/bitbake/builddir-types.js';
import { BUILD_VARS } from '../../src/bitbake/builddir-types.js';
import type { BuildFacts, PathFacts, PathKey } from '../../src/plan/facts-types.js';
import { emptyTimes } from '../../src/plan/history.js';
import type { History } from '../../src/plan/sizing-types.js';
import type { RecordedRun } from '../../src/timeline/timeline-runs.js';

export const GiB = 2 ** 30;
export const MiB = 2 ** 20;
export const TOPDIR = '/home/dev/poky/build';

export function makeBuildDir(
  over: {
    vars?: Partial<Record<BuildVarName, ResolvedVar>>;
    rmWork?: boolean;
    rmWorkExclude?: string[];
  } = {},
): BuildDir {
  const vars = {} as Record<BuildVarName, ResolvedVar>;
  for (const name of BUILD_VARS) vars[name] = { value: undefined, source: 'default' };
  vars.TOPDIR = { value: TOPDIR, source: 'default' };
  vars.BB_NUMBER_THREADS = { value: '8', source: 'default' };
  vars.PARALLEL_MAKE = { value: '-j 8', source: 'default' };
  vars.BB_SCHEDULER = { value: 'speed', source: 'default' };
  Object.assign(vars, over.vars);
  const tmpdir = `${TOPDIR}/tmp`;
  return {
    topdir: TOPDIR,
    layout: 'classic',
    confFiles: { bblayers: `${TOPDIR}/conf/bblayers.conf`, local: `${TOPDIR}/conf/local.conf` },
    vars,
    paths: {
      topdir: TOPDIR,
      tmpdir,
      baseWorkdir: `${tmpdir}/work`,
      stampsDir: `${tmpdir}/stamps`,
      componentsDir: `${tmpdir}/sysroots-components`,
      workShared: `${tmpdir}/work-shared`,
      deployDir: `${tmpdir}/deploy`,
      logDir: `${tmpdir}/log`,
      buildstatsBase: `${tmpdir}/buildstats`,
      sstateManifests: `${tmpdir}/sstate-control`,
      persistentDir: `${TOPDIR}/cache`,
      dlDir: `${TOPDIR}/downloads`,
      sstateDir: `${TOPDIR}/sstate-cache`,
    },
    machine: 'qemux86-64',
    distro: 'poky',
    rmWork: over.rmWork ?? false,
    rmWorkExclude: over.rmWorkExclude ?? [],
    layers: [],
    statements: [],
    files: [],
    diagnostics: [],
    buildRunning: false,
    disagreements: [],
    notes: [],
    getVar: (name) => vars[name as BuildVarName] ?? { value: undefined, source: 'default' },
  };
}

/** A host: RAM, swap, CPUs; `inUse` is what other programs hold now (MemTotal − MemAvailable). */
export function makeFacts(host: { ram: number; swap?: number; cpus: number; inUse?: number }): BuildFacts {
  const path: PathFacts = { path: TOPDIR, exists: true };
  const paths = {} as Record<PathKey, PathFacts>;
  for (const key of Object.keys(makeBuildDir().paths) as PathKey[]) paths[key] = path;
  return {
    host: {
      memTotal: host.ram,
      memAvailable: host.ram - (host.inUse ?? GiB),
      swapTotal: host.swap ?? 0,
      swapFree: host.swap ?? 0,
      cpusUsable: host.cpus,
      cpusOnline: host.cpus,
      isRoot: false,
    },
    paths,
  };
}

export function makeRun(over: Partial<RecordedRun> & { peakBytes: number }): RecordedRun {
  return {
    file: '/home/dev/poky/build/rambake/runs/20251130T142627.jsonl',
    targets: ['core-image-sato'],
    startedAt: Date.UTC(2025, 10, 30, 14, 26, 27),
    endedAt: Date.UTC(2025, 10, 30, 18, 0, 0),
    spans: [],
    summarised: true,
    peakInodes: 300_000,
    peakWorkBytes: over.peakBytes / 2,
    onTmpfs: true,
    baselineBytes: 0,
    workdirPeaks: {},
    samples: Array.from({ length: 100 }, (_, i) => ({ t: i, used: over.peakBytes })),
    enospc: false,
    skippedLines: 0,
    ...over,
  };
}

export function makeHistory(runs: RecordedRun[] = [], perJob?: number): History {
  const workdirPeaks: Record<string, number> = {};
  for (const r of runs)
    for (const [k, v] of Object.entries(r.workdirPeaks)) workdirPeaks[k] = Math.max(workdirPeaks[k] ?? 0, v);
  return {
    runs,
    ...(runs.length > 0 ? { run: runs[runs.length - 1] } : {}),
    workdirPeaks,
    times: emptyTimes(),
    notes: [],
    ...(perJob === undefined
      ? {}
      : {
          compile: {
            builds: ['20251130142627'],
            tasks: 40,
            p90Bytes: perJob,
            maxBytes: perJob * 2,
            heaviest: [{ pf: 'gcc-14.2.0-r0', bytes: perJob * 2 }],
          },
        }),
  };
}
