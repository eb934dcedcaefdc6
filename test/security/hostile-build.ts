// Hostile build directories for the security and fuzz tests: a temp copy of a named fixture
// under test/fixtures/hostile, with files written or replaced by the test.

import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, tempDir } from '../helpers/exec.js';

export const HOSTILE = join(ROOT, 'test', 'fixtures', 'hostile');

export interface HostileBuild {
  root: string;
  topdir: string;
  cleanup: () => void;
}

/** A temp copy of `test/fixtures/hostile/<name>`; its TOPDIR is `<copy>/build`. */
export function copyHostile(name: string, files: Record<string, string> = {}): HostileBuild {
  const dir = tempDir(`rambake-${name}-`);
  cpSync(join(HOSTILE, name), dir.path, { recursive: true, verbatimSymlinks: true });
  for (const [rel, text] of Object.entries(files)) {
    const file = join(dir.path, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return { root: dir.path, topdir: join(dir.path, 'build'), cleanup: dir.cleanup };
}
