// Shared by the report tests: a temp copy of the sample build with a fixture's TMPDIR and
// recorded runs laid in, and the CLI entry.

import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadOptions } from '../../src/bitbake/builddir-types.js';
import { CLI, copyExample, ROOT } from '../helpers/exec.js';

export const FIXTURES = join(ROOT, 'test', 'fixtures', 'report');

export function buildWithRun(name: string): { root: string; topdir: string; cleanup: () => void } {
  const ex = copyExample();
  const from = join(FIXTURES, name);
  for (const dir of ['tmp', 'rambake'])
    if (existsSync(join(from, dir))) cpSync(join(from, dir), join(ex.topdir, dir), { recursive: true });
  return ex;
}

/** The conf files only: no bitbake-getvar from PATH, no event log. */
export const confOnly = (topdir: string): LoadOptions => ({
  buildDir: topdir,
  sources: { getvar: false, eventlog: false },
});

/** The built CLI (`npm test` builds it first). */
export const ENTRY = CLI;
