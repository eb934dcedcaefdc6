// `rambake status`: the build dir, its layers, the key variables with provenance, where each
// path lives, and the host. One typed report; the renderers live in report/status.ts.

import { assertReadable, loadBuildDir } from '../bitbake/builddir.js';
import type { BuildDir, LoadOptions, ResolvedVar } from '../bitbake/builddir-types.js';
import type { ConfDiagnostic } from '../bitbake/conf/types.js';
import type { Layer } from '../bitbake/layers.js';
import { readBuildFacts } from '../plan/facts.js';
import type { HostFacts, PathFacts, PathKey } from '../plan/facts-types.js';

export const STATUS_SCHEMA_VERSION = 1;

/** Which variable names each BuildDir path. */
export const PATH_VARIABLES: Record<PathKey, string> = {
  topdir: 'TOPDIR',
  tmpdir: 'TMPDIR',
  baseWorkdir: 'BASE_WORKDIR',
  stampsDir: 'STAMPS_DIR',
  componentsDir: 'COMPONENTS_DIR',
  workShared: 'work-shared',
  deployDir: 'DEPLOY_DIR',
  logDir: 'LOG_DIR',
  buildstatsBase: 'BUILDSTATS_BASE',
  sstateManifests: 'SSTATE_MANIFESTS',
  persistentDir: 'PERSISTENT_DIR',
  dlDir: 'DL_DIR',
  sstateDir: 'SSTATE_DIR',
};

export interface StatusReport {
  schemaVersion: number;
  buildDir: {
    topdir: string;
    layout: BuildDir['layout'];
    setupDir?: string;
    sharedSiteConf?: string;
    confFiles: BuildDir['confFiles'];
    buildRunning: boolean;
    eventLog?: string;
  };
  layers: Layer[];
  vars: Record<string, ResolvedVar>;
  /** Where BitBake's values differ from rambake's reading of the conf files, and why. */
  disagreements: BuildDir['disagreements'];
  rmWork: boolean;
  /**
   * Where each path lives. An unresolved one (Python, not absolute) holds the value as read, with
   * `unresolved: true` and no mount or file system: bitbake.conf's default is not its folder.
   */
  paths: Record<PathKey, PathFacts & { variable: string; unresolved?: true }>;
  host: HostFacts;
  notes: string[];
  warnings: ConfDiagnostic[];
}

export async function collectStatus(options: LoadOptions): Promise<StatusReport> {
  const bd = await loadBuildDir(options);
  assertReadable(bd);
  const facts = await readBuildFacts(bd);
  const paths = {} as StatusReport['paths'];
  for (const key of Object.keys(facts.paths) as PathKey[]) {
    const unresolved = bd.unresolvedPaths?.find((u) => u.key === key);
    paths[key] = unresolved
      ? { variable: PATH_VARIABLES[key], path: unresolved.value, exists: false, unresolved: true }
      : { variable: PATH_VARIABLES[key], ...facts.paths[key] };
  }
  return {
    schemaVersion: STATUS_SCHEMA_VERSION,
    buildDir: {
      topdir: bd.topdir,
      layout: bd.layout,
      ...(bd.setupDir ? { setupDir: bd.setupDir } : {}),
      ...(bd.sharedSiteConf ? { sharedSiteConf: bd.sharedSiteConf } : {}),
      confFiles: bd.confFiles,
      buildRunning: bd.buildRunning,
      ...(bd.eventLog ? { eventLog: bd.eventLog } : {}),
    },
    layers: bd.layers,
    vars: bd.vars,
    disagreements: bd.disagreements,
    rmWork: bd.rmWork,
    paths,
    host: facts.host,
    notes: bd.notes,
    warnings: bd.diagnostics.filter((d) => d.severity !== 'error'),
  };
}
