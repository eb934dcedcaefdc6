// Only the command being run is loaded: the command word is found past the global options.
// Help loads every command's definition, not its work.

import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram, commandWord } from '../../src/cli/program.js';
import { ROOT } from '../helpers/exec.js';

const argv = (...words: string[]) => ['node', 'rambake', ...words];

describe('the command word', () => {
  it('skips global flags and the value of -B / --build-dir', () => {
    expect(commandWord(argv('status'))).toBe('status');
    expect(commandWord(argv('-B', 'status', 'doctor'))).toBe('doctor');
    expect(commandWord(argv('--build-dir', '/b', '--json', 'plan', '--target', 'x'))).toBe('plan');
    expect(commandWord(argv('--build-dir=/b', 'apply'))).toBe('apply');
    expect(commandWord(argv('--json'))).toBeUndefined();
    expect(commandWord(argv('--', 'status'))).toBeUndefined();
  });

  it('registers one command when one is named, every command for help or an unknown word', async () => {
    expect((await buildProgram(argv('-B', '/b', 'churn'))).commands.map((c) => c.name())).toEqual(['churn']);
    expect((await buildProgram(argv('--version'))).commands).toHaveLength(0);
    expect((await buildProgram(argv('--help'))).commands.length).toBeGreaterThan(10);
    expect((await buildProgram(argv('statuss'))).commands.length).toBeGreaterThan(10);
  });
});

// `rambake --help` registers every command. A command module holds its definition and imports
// its work in its action, so what help loads is the static imports of program.ts and the
// command modules: the flag table, the output, the live view's renderer and small parsers.
// A static import of a use-case, a reader or a package here would put it on every help.
const HELP_LOADS = [
  /^src\/cli\//,
  /^src\/text\//,
  /^src\/errors\.ts$/,
  /^src\/report\/watch\.ts$/, // watch and run's live display
  /^src\/analyze\/churn\.ts$/, // --builds' default
  /^src\/bitbake\/pf\.ts$/, // (imported by churn.ts)
  /^src\/system\/tmpfs-size\.ts$/, // size flags' parser
];

function staticImports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/^import (?!type )[^;]*? from '(\.{1,2}\/[^']+)\.js'/gms)].map((m) =>
    relative(ROOT, resolve(ROOT, dirname(file), `${m[1]}.ts`)),
  );
}

describe('what --help loads', () => {
  it("is every command's definition and none of their work", () => {
    const program = 'src/cli/program.ts';
    const commands = [
      ...readFileSync(join(ROOT, program), 'utf8').matchAll(/import\('\.\/([a-z-]+)\.js'\)/g),
    ];
    expect(commands.length).toBeGreaterThan(10);
    const seen = new Set<string>();
    const todo = [program, ...commands.map((m) => `src/cli/${m[1]}.ts`)];
    for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      todo.push(...staticImports(file));
    }
    expect([...seen].filter((f) => !HELP_LOADS.some((re) => re.test(f))).sort()).toEqual([]);
  });
});
