import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nearestExisting } from '../../src/system/host-facts.js';
import { tempDir } from '../helpers/exec.js';

const dirs: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

describe('nearestExisting', () => {
  it('gives what the walk up gives, whatever it was told last, as folders come and go', () => {
    const dir = tempDir('rambake-nearest-');
    dirs.push(dir);
    const build = join(dir.path, 'build');
    mkdirSync(build);
    const path = join(build, 'tmp', 'log', 'cooker', 'qemux86-64');
    // The chain as a build makes it, then as TMPDIR is wiped and made again.
    const steps: [string, 'mkdir' | 'rm'][] = [
      ['tmp', 'mkdir'],
      ['tmp/log', 'mkdir'],
      ['tmp/log/cooker/qemux86-64', 'mkdir'],
      ['tmp', 'rm'],
      ['tmp/log/cooker', 'mkdir'],
      ['', 'rm'],
    ];
    const expected = [
      build,
      join(build, 'tmp'),
      join(build, 'tmp', 'log'),
      path,
      build,
      join(build, 'tmp', 'log', 'cooker'),
      dir.path,
    ];
    let last: string | undefined;
    const seen: string[] = [];
    const answer = () => {
      const told = nearestExisting(path, last);
      // Every earlier answer as the hint gives the same as no hint.
      for (const hint of [undefined, ...seen, '/', path, join(dir.path, 'elsewhere')])
        expect(nearestExisting(path, hint)).toBe(told);
      seen.push(told);
      last = told;
      return told;
    };
    const answers = [answer()];
    for (const [rel, op] of steps) {
      const target = join(build, rel);
      if (op === 'mkdir') mkdirSync(target, { recursive: true });
      else rmSync(target, { recursive: true, force: true });
      answers.push(answer());
    }
    expect(answers).toEqual(expected);
  });

  it('passes over a file where a folder of the path should be', () => {
    const dir = tempDir('rambake-nearest-');
    dirs.push(dir);
    writeFileSync(join(dir.path, 'tmp'), '');
    const path = join(dir.path, 'tmp', 'log');
    expect(nearestExisting(path)).toBe(join(dir.path, 'tmp'));
    expect(nearestExisting(path, dir.path)).toBe(join(dir.path, 'tmp'));
  });
});
