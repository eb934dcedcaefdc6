// `rambake doctor`: every hazard check over the build and the host.

import { moveAside } from '../apply/deploy-aside.js';
import { assertReadable, loadBuildDir } from '../bitbake/builddir.js';
import type { BuildDir, LoadOptions } from '../bitbake/builddir-types.js';
import { readBuildFacts } from '../plan/facts.js';
import { type Finding, sortFindings } from './findings.js';
import { checkHazards, DEPLOY_OUTLIVES } from './hazards.js';

export const DOCTOR_SCHEMA_VERSION = 1;

/** Conf errors doctor reports as findings; any other conf error stops it as it stops BitBake. */
const REPORTED = new Set([
  'old-override-syntax',
  'renamed-variable',
  'layer-incompatible',
  'layer-depends-missing',
  'duplicate-collection',
]);

export interface DoctorReport {
  schemaVersion: number;
  topdir: string;
  findings: Finding[];
}

export async function runDoctor(options: LoadOptions): Promise<DoctorReport> {
  const bd = await loadBuildDir(options);
  assertReadable(bd, REPORTED);
  return { schemaVersion: DOCTOR_SCHEMA_VERSION, topdir: bd.topdir, findings: await findingsFor(bd) };
}

async function findingsFor(bd: BuildDir): Promise<Finding[]> {
  return sortFindings(checkHazards(bd, await readBuildFacts(bd)));
}

/**
 * The findings doctor calls errors: each stops BitBake too (a DEPLOY_DIR left by a lost tmpfs,
 * a noexec TMPDIR, a moved TMPDIR) or runs the machine out of memory (an oversized tmpfs), so
 * `rambake run` does not start the build while one is there.
 */
export async function buildStoppers(bd: BuildDir): Promise<Finding[]> {
  return (await findingsFor(bd)).filter((f) => f.severity === 'error');
}

export interface BeforeBuild {
  /** The errors left: `rambake run` starts nothing while there is one (unless told to). */
  stoppers: Finding[];
  /** The old DEPLOY_DIR moved aside (`--move-old-deploy`), when it was in the way. */
  moved?: { from: string; to: string };
}

/**
 * What `rambake run` checks before it starts BitBake. With `moveOldDeploy`, a DEPLOY_DIR that
 * outlived its TMPDIR is renamed aside (kept whole) and the checks run again, so the answer
 * says whether the move really cleared the way rather than assuming it did.
 */
export async function checkBeforeBuild(
  bd: BuildDir,
  options: { moveOldDeploy: boolean; now?: Date },
): Promise<BeforeBuild> {
  const stoppers = await buildStoppers(bd);
  if (!options.moveOldDeploy || !stoppers.some((f) => f.id === DEPLOY_OUTLIVES)) return { stoppers };
  const from = bd.paths.deployDir;
  const to = await moveAside(from, options.now ?? new Date());
  return { stoppers: await buildStoppers(bd), moved: { from, to } };
}
