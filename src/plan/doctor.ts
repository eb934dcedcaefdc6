// `rambake doctor`: every hazard check over the build and the host.

import { assertReadable, loadBuildDir } from '../bitbake/builddir.js';
import type { BuildDir, LoadOptions } from '../bitbake/builddir-types.js';
import { readBuildFacts } from './facts.js';
import { type Finding, sortFindings } from './findings.js';
import { checkHazards } from './hazards.js';

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
 * a noexec TMPDIR, a moved TMPDIR), so `rambake run` names them before the build starts.
 */
export async function buildStoppers(bd: BuildDir): Promise<Finding[]> {
  return (await findingsFor(bd)).filter((f) => f.severity === 'error');
}
