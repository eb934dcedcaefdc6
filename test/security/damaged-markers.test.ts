// A managed block with a missing or doubled marker is detected and refused without --force:
// deleting the begin or end marker by hand must not make revert say "no managed block" and
// leave the block's TMPDIR line behind; a copied block must not be half removed.

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BLOCK_BEGIN, insertBlock, markerProblem, removeBlock } from '../../src/plan/managed-block.js';
import { copyExample, runRambake } from '../helpers/exec.js';

const LINES = ['TMPDIR = "/mnt/ram/tmp"', 'INHERIT += "rm_work"'];
const applied = insertBlock('A = "1"\n', LINES).text;
const endLine = applied.split('\n').find((l) => l.startsWith('# <<< '))!;

describe('markerProblem', () => {
  it('a copied block is refused, with or without state; --force goes on', () => {
    const doubled = applied + applied.slice('A = "1"\n'.length);
    expect(markerProblem(doubled)).toBe('2 complete blocks (one copied by hand)');
    expect(() => removeBlock(doubled)).toThrow(/2 complete blocks/);
    expect(() => insertBlock(doubled, LINES)).toThrow(/2 complete blocks/);
    expect(removeBlock(doubled, { force: true }).changed).toBe(true);
  });

  it('a lone marker is damage when rambake wrote a block there, text a user pasted otherwise', () => {
    const noBegin = applied.replace(`${BLOCK_BEGIN}\n`, '');
    const noEnd = applied.replace(`${endLine}\n`, '');
    expect(markerProblem(noBegin)).toBeUndefined();
    expect(markerProblem(noBegin, { expectBlock: true })).toBe('an end marker without its begin marker');
    expect(markerProblem(noEnd, { expectBlock: true })).toBe('a begin marker without its end marker');
    expect(() => removeBlock(noEnd, { expectBlock: true })).toThrow(/markers were edited by hand/);
    expect(markerProblem(applied, { expectBlock: true })).toBeUndefined();
  });
});

describe('revert and apply after a marker was edited by hand (CLI)', () => {
  let ex: ReturnType<typeof copyExample>;
  beforeEach(() => {
    ex = copyExample();
  });
  afterEach(() => {
    // As root apply mounts the tmpfs: take it away before the copy goes.
    const ram = join(ex.topdir, 'tmp-ram');
    if (readFileSync('/proc/self/mountinfo', 'utf8').includes(` ${ram} `))
      execFileSync('umount', ['-l', ram]);
    ex.cleanup();
  });

  const edits: [string, (text: string) => string, RegExp][] = [
    [
      'begin-marker-deleted',
      (t) => t.replace(`${BLOCK_BEGIN}\n`, ''),
      /an end marker without its begin marker/,
    ],
    [
      'end-marker-deleted',
      (t) => t.replace(/^# <<< rambake managed block .*\n/m, ''),
      /a begin marker without its end marker/,
    ],
    ['block-copied', (t) => t + t.slice(t.indexOf(BLOCK_BEGIN)), /2 complete blocks \(one copied by hand\)/],
  ];
  for (const [name, edit, message] of edits) {
    it(`${name}: refused without --force, nothing changed`, async () => {
      const apply = await runRambake(['apply', '-B', ex.topdir, '--no-bitbake', '--size', '64M', '--force']);
      expect(apply.exitCode, apply.stderr).toBe(0);
      const auto = join(ex.topdir, 'conf', 'auto.conf');
      const damaged = edit(readFileSync(auto, 'utf8'));
      writeFileSync(auto, damaged);
      const state = readFileSync(join(ex.topdir, 'rambake', 'state.json'), 'utf8');
      const r = await runRambake(['revert', '-B', ex.topdir, '--no-bitbake']);
      expect(r.stderr.split('\n')[0]).toMatch(message);
      expect(r.exitCode).toBe(1);
      expect(readFileSync(auto, 'utf8')).toBe(damaged);
      expect(readFileSync(join(ex.topdir, 'rambake', 'state.json'), 'utf8')).toBe(state);
    });
  }

  // Without the check the second apply appended a new block after the damaged one: revert then
  // cut the new one and left the old TMPDIR line.
  it('end marker deleted: the second apply refuses and changes nothing', async () => {
    const args = ['apply', '-B', ex.topdir, '--no-bitbake', '--size', '64M', '--force'];
    expect((await runRambake(args)).exitCode).toBe(0);
    const auto = join(ex.topdir, 'conf', 'auto.conf');
    const damaged = readFileSync(auto, 'utf8').replace(/^# <<< rambake managed block .*\n/m, '');
    writeFileSync(auto, damaged);
    const again = await runRambake(['apply', '-B', ex.topdir, '--no-bitbake', '--size', '64M']);
    expect(again.stderr.split('\n')[0]).toMatch(/a begin marker without its end marker/);
    expect(again.exitCode).toBe(1);
    expect(readFileSync(auto, 'utf8')).toBe(damaged);
  });
});
