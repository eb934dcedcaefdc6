// The folder map in src/README.md is the import rule: a folder imports only from itself and the
// folders listed above it (errors.ts is below everything; cli.ts and index.ts are entry points).

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/exec.js';

const SRC = join(ROOT, 'src');

function folderOrder(): string[] {
  const map = readFileSync(join(SRC, 'README.md'), 'utf8');
  return [...map.matchAll(/^\| `([a-z]+)\/` \|/gm)].map((m) => m[1]!);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `src/plan/sizing.ts` → 'plan'; files directly in src/ → undefined. */
function folderOf(file: string): string | undefined {
  const rel = relative(SRC, file).split('/');
  return rel.length > 1 ? rel[0] : undefined;
}

describe('src/ layering', () => {
  const order = folderOrder();

  it('src/README.md lists every folder of src/', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect([...order].sort()).toEqual(folders);
  });

  it('imports only go to the same folder or one listed above it', () => {
    const bad: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = folderOf(file);
      if (from === undefined) continue;
      const text = readFileSync(file, 'utf8');
      // Static imports and the import() calls that load a command's work when it runs.
      for (const m of text.matchAll(/(?:from |import\()'(\.{1,2}\/[^']+)\.js'/g)) {
        const target = resolve(dirname(file), `${m[1]}.ts`);
        const to = folderOf(target);
        if (to === undefined || to === from) continue;
        if (order.indexOf(to) > order.indexOf(from))
          bad.push(
            `${relative(ROOT, file)} imports ${relative(ROOT, target)} (${to}/ is listed below ${from}/)`,
          );
      }
    }
    expect(bad).toEqual([]);
  });
});
