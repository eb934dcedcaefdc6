// Temp build dirs and a FakeConfig laid out as bitbake.conf's defaults lay them out.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type RunOptions, runBuild } from '../src/engine.js';
import { readScenario } from '../src/scenario.js';
import type { BuildResult, FakeConfig } from '../src/types.js';

export function makeTopdir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'fake-bitbake-'));
}

export function makeConfig(topdir: string, over: Partial<FakeConfig> = {}): FakeConfig {
  const tmp = path.join(topdir, 'tmp');
  return {
    topdir,
    tmpdir: tmp,
    baseWorkdir: path.join(tmp, 'work'),
    stampsDir: path.join(tmp, 'stamps'),
    componentsDir: path.join(tmp, 'sysroots-components'),
    workShared: path.join(tmp, 'work-shared'),
    deployDir: path.join(tmp, 'deploy'),
    logDir: path.join(tmp, 'log'),
    consoleLogDir: path.join(tmp, 'log', 'cooker', 'qemux86-64'),
    eventLogDir: path.join(tmp, 'log', 'eventlog'),
    buildstatsBase: path.join(tmp, 'buildstats'),
    sstateManifests: path.join(tmp, 'sstate-control'),
    dlDir: path.join(topdir, 'downloads'),
    sstateDir: path.join(topdir, 'sstate-cache'),
    threads: 4,
    scheduler: 'completion',
    rmWork: true,
    rmWorkExclude: [],
    machine: 'qemux86-64',
    distro: 'poky',
    vars: { TMPDIR: tmp, MACHINE: 'qemux86-64' },
    varOrigins: { TMPDIR: { file: path.join(topdir, 'conf/local.conf'), line: 3 } },
    layers: [{ name: 'meta', path: '/srv/layers/openembedded-core/meta' }],
    ...over,
  };
}

export async function build(
  cfg: FakeConfig,
  scenario: string,
  over: Partial<RunOptions> = {},
): Promise<BuildResult & { lines: string[] }> {
  const lines: string[] = [];
  const s = readScenario(scenario);
  const result = await runBuild(cfg, s, {
    targets: [s.target],
    continueOnFail: false,
    force: false,
    buildNumber: 1,
    seed: 1,
    timeScale: 0,
    sizeScale: s.sizeScale,
    out: (l) => lines.push(l),
    ...over,
  });
  return { ...result, lines };
}
