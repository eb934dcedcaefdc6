// The mount path in the block: a path that cannot sit between the quotes of `TMPDIR = "…"`
// (`"`, `$`, `\`, a line break) or that BitBake's sanity check refuses as TMPDIR is refused with
// one line and exit 2, before anything is written or mounted. One rule, shared with doctor.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  blockValueProblems,
  MAX_TMPDIR_LENGTH,
  pathLengthProblem,
  sanityProblems,
} from '../../src/bitbake/tmpdir-path.js';
import { copyExample, runRambake } from '../helpers/exec.js';

describe('the TMPDIR path rules', () => {
  it('sanity: BitBake finds ".." anywhere, +, @, %, a space, a leading ~, over 400 characters', () => {
    expect(sanityProblems('/b/tmp')).toEqual([]);
    expect(sanityProblems('/b/a..b/tmp')).toEqual(['".."']);
    expect(sanityProblems('/b/../tmp')).toEqual(['".."']);
    expect(sanityProblems('/b/t+m@p%')).toEqual(['"+"', '"@"', '"%"']);
    expect(sanityProblems('/b/my tmp')).toEqual(['a space']);
    expect(sanityProblems('~/tmp')).toEqual(['a leading "~" (BitBake does not expand it)']);
    expect(sanityProblems('/b/a~b')).toEqual([]);
    expect(sanityProblems('/')).toEqual(['the root folder']);
    expect(sanityProblems(`/${'x'.repeat(MAX_TMPDIR_LENGTH - 1)}`)).toEqual([]);
    expect(sanityProblems(`/${'x'.repeat(MAX_TMPDIR_LENGTH)}`)).toEqual([
      '401 characters (BitBake allows 400)',
    ]);
  });

  it('block values: a double quote, $, a backslash, a line break', () => {
    expect(blockValueProblems('/b/tmp-ram')).toEqual([]);
    expect(blockValueProblems('/b/x"y')).toEqual(['a double quote']);
    expect(blockValueProblems('/b/${MACHINE}')).toEqual(['"$"']);
    expect(blockValueProblems('/b/a\\b')).toEqual(['a backslash']);
    expect(blockValueProblems('/b/a\nb\r')).toEqual(['a line break']);
  });

  it('lengths the kernel refuses: over 4095 bytes in all, over 255 in one name (bytes, not characters)', () => {
    const deep = `/${'x'.repeat(254)}`.repeat(16); // 4080 bytes, no name over 255
    expect(pathLengthProblem(`${deep}/${'x'.repeat(14)}`)).toBeUndefined();
    expect(pathLengthProblem(`${deep}/${'x'.repeat(15)}`)).toBe(
      'is 4096 bytes long: Linux takes no path over 4095 bytes (PATH_MAX)',
    );
    expect(pathLengthProblem(`/b/${'x'.repeat(255)}/tmp`)).toBeUndefined();
    expect(pathLengthProblem(`/b/${'é'.repeat(128)}/tmp`)).toBe(
      'has a 256-byte folder name: Linux takes none over 255 bytes (NAME_MAX)',
    );
  });
});

describe('apply --path refuses before anything is written or mounted', () => {
  let ex: ReturnType<typeof copyExample>;
  beforeEach(() => {
    ex = copyExample();
  });
  afterEach(() => ex.cleanup());

  const cases: [string, (root: string) => string, RegExp][] = [
    [
      'a double quote',
      (r) => join(r, 'x"y'),
      /--path ".*x\\"y" has a double quote: it cannot be written as a value in the conf block$/,
    ],
    ['${MACHINE}', (r) => join(r, '${MACHINE}', 'tmp'), /has "\$": it cannot be written/],
    ['a backslash', (r) => join(r, 'a\\b'), /has a backslash/],
    ['a line break', (r) => join(r, 'a\nb'), /has a line break/],
    [
      '"+" (sanity)',
      (r) => join(r, 'a+b'),
      /cannot be TMPDIR: it has "\+", which BitBake's sanity check refuses$/,
    ],
    [
      'a 5,000-character path',
      (r) => join(r, 'x'.repeat(5000)),
      /cannot be TMPDIR: it has \d+ characters \(BitBake allows 400\)/,
    ],
  ];
  for (const [what, make, message] of cases) {
    it(what, async () => {
      const confBefore = readdirSync(join(ex.topdir, 'conf')).sort();
      const local = readFileSync(join(ex.topdir, 'conf', 'local.conf'));
      const path = make(ex.root);
      const r = await runRambake(['apply', '-B', ex.topdir, '--no-bitbake', '--path', path]);
      expect(r.stderr.split('\n')[0]).toMatch(message);
      expect(r.stderr).not.toMatch(/unexpected error/);
      expect(r.exitCode).toBe(2);
      expect(readdirSync(join(ex.topdir, 'conf')).sort()).toEqual(confBefore);
      expect(readFileSync(join(ex.topdir, 'conf', 'local.conf'))).toEqual(local);
      expect(existsSync(join(ex.topdir, 'rambake'))).toBe(false);
      expect(existsSync(path)).toBe(false);
    });
  }
});
