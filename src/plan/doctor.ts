// `rambake doctor`: every hazard check over the build and the host.

import { assertReadable, loadBuildDir } from '../bitbake/builddir.js';
import type { LoadOptions } from '../bitbake/builddir-types.js';
import { readBuildFacts } from './facts.js';
import { type Finding, sortFindings } from './findings.js';
import { checkHazards } from './hazards.js';

export const DOCTOR_SCHEMA_VERSION = 1;

/** Conf errors doctor reports as findings; any other conf error stops it as it stops BitBake. */
const REPORTED = new Set([
  'old-override-syntax',
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
  const facts = await readBuildFacts(bd);
  return {
    schemaVersion: DOCTOR_SCHEMA_VERSION,
    topdir: bd.topdir,
    findings: sortFindings(checkHazards(bd, facts)),
  };
}
