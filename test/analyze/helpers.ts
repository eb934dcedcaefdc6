// Shared by the analyze tests: a temp copy of the sample build with a fixture's TMPDIR (and
// SSTATE_DIR, which the sample build puts beside TOPDIR) laid in.

import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadOptions } from '../../src/bitbake/builddir-types.js';
import { copyExample, ROOT } from '../helpers/exec.js';

export const FIXTURES = join(ROOT, 'test', 'fixtures', 'analyze');

export function buildWithFixture(name: string): { root: string; topdir: string; cleanup: () => void } {
  const ex = copyExample();
  const from = join(FIXTURES, name);
  cpSync(join(from, 'tmp'), join(ex.topdir, 'tmp'), { recursive: true });
  if (existsSync(join(from, 'sstate-cache')))
    cpSync(join(from, 'sstate-cache'), join(ex.root, 'sstate-cache'), { recursive: true });
  return ex;
}

/** The conf files only: no bitbake-getvar from PATH, no event log. */
export const confOnly = (topdir: string): LoadOptions => ({
  buildDir: topdir,
  sources: { getvar: false, eventlog: false },
});

/** Replaces a temp folder with a stable name in rendered output. */
export function sanitize(text: string, root: string): string {
  return text.replaceAll(root, '<tmp>');
}
