// Every defect the fuzzer found, kept as a named fixture: test/fixtures/fuzz-<name>/fixture.json
// says what was wrong (`defect`), which files to lay over the fuzz base tree (`files/`), text to
// add at the end of a base file (`append`), or files to replace by something that is not a
// regular file (`special`: fifo, dir, remove, link:<target>, link:.self for a loop), what to run
// and the exit code (or codes) and stderr expected now; an exit 2 is one message line (and its
// hint). Each runs the built CLI as the fuzzer does (time limit, memory cap). Needs `npm run
// build` (dist/).

import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/exec.js';
import { type Case, makeBase, place } from './cases.js';
import { ADDRESS_SPACE_MB, assertPrlimit, runCase, saveScan } from './fuzzer.js';
import type { Replacement } from './mutate-bytes.js';

const FIXTURES = join(ROOT, 'test', 'fixtures');
const LIMITS = { timeoutMs: 20_000, memoryMb: 256, addressSpaceMb: ADDRESS_SPACE_MB };

interface Fixture {
  defect: string;
  append?: Record<string, string>;
  special?: Record<string, string>;
  args: string[];
  json?: boolean;
  /** The exit code, or the codes allowed (plan's 0 or 1 depends on this host's RAM). */
  exit: number | number[];
  stderr?: string;
}

const special = (what: string): Replacement =>
  what.startsWith('link:')
    ? { kind: 'link', to: what.slice(5) }
    : { kind: what as 'fifo' | 'dir' | 'remove' };

const names = readdirSync(FIXTURES)
  .filter((n) => n.startsWith('fuzz-'))
  .sort();

describe('fuzz regressions (test/fixtures/fuzz-*)', () => {
  let work = '';
  let base = '';
  beforeAll(async () => {
    assertPrlimit();
    work = mkdtempSync(join(tmpdir(), 'rambake-fuzz-regressions-'));
    base = join(work, 'base');
    makeBase(base);
    await saveScan(base, LIMITS);
  }, 60_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('has fixtures', () => expect(names.length).toBeGreaterThan(0));

  for (const name of names) {
    const fixture = JSON.parse(readFileSync(join(FIXTURES, name, 'fixture.json'), 'utf8')) as Fixture;
    it(`${name}: ${fixture.defect}`, async () => {
      const root = join(work, name);
      cpSync(base, root, { recursive: true, verbatimSymlinks: true });
      const files = join(FIXTURES, name, 'files');
      if (existsSync(files)) cpSync(files, root, { recursive: true, verbatimSymlinks: true });
      for (const [rel, text] of Object.entries(fixture.append ?? {})) appendFileSync(join(root, rel), text);
      for (const [rel, what] of Object.entries(fixture.special ?? {})) place(join(root, rel), special(what));
      const c: Case = {
        index: -1,
        seed: 0,
        group: 'records',
        mutations: [],
        args: fixture.args,
        json: fixture.json === true,
      };
      const o = await runCase(c, root, LIMITS);
      expect(o.verdict, `${o.why ?? ''}\n${o.stderr}`).toBe('ok');
      expect([fixture.exit].flat(), o.stderr).toContain(o.exitCode);
      if (fixture.stderr) expect(o.stderr.trimEnd()).toMatch(new RegExp(fixture.stderr));
      if (fixture.exit === 2) {
        const [first, ...rest] = o.stderr.trimEnd().split('\n');
        expect(first).toMatch(/^rambake: /);
        expect(
          rest.filter((l) => !l.startsWith('  hint: ')),
          o.stderr,
        ).toEqual([]);
      }
    }, 60_000);
  }
});
