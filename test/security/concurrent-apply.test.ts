// `apply --conf auto` and `apply --conf local` started together: the lock is taken before the
// state and the conf are read, so exactly one succeeds and the other is refused in one line
// (exit 2, "the block is already in …"); one block in all, and revert leaves no block and no
// mount. Before, both succeeded in 7 of 25 pairs (two blocks; revert removed one). Root only:
// apply mounts a real tmpfs.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOCK_BEGIN } from '../../src/plan/managed-block.js';
import { copyExample, runRambake } from '../helpers/exec.js';

const isRoot = process.getuid?.() === 0;
const PAIRS = 10;

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

/** Mount points under `root`, as the kernel lists them. */
const mountsUnder = (root: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .filter((p) => p.startsWith(`${root}/`));

const blocks = (file: string) => {
  try {
    return readFileSync(file, 'utf8').split(BLOCK_BEGIN).length - 1;
  } catch {
    return 0;
  }
};

describe.skipIf(!isRoot)('concurrent apply --conf auto and --conf local', () => {
  it(`${PAIRS} pairs: exactly one succeeds each time, one block, revert undoes it`, {
    timeout: 300_000,
  }, async () => {
    const ex = copyExample();
    cleanup = () => {
      for (const m of mountsUnder(ex.root).reverse()) execFileSync('umount', ['-l', m]);
      ex.cleanup();
    };
    const conf = join(ex.topdir, 'conf');
    const localBefore = readFileSync(join(conf, 'local.conf'));
    const apply = (which: string) =>
      runRambake(
        [
          '-B',
          ex.topdir,
          '--no-bitbake',
          'apply',
          '--conf',
          which,
          '--size',
          '64m',
          '--path',
          join(ex.root, 'ram'),
        ],
        { timeout: 60_000 },
      );
    const winners: string[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const [auto, local] = await Promise.all([apply('auto'), apply('local')]);
      const results = [auto, local];
      const ok = results.filter((r) => r.exitCode === 0);
      expect(ok, `pair ${pair}: ${results.map((r) => `${r.exitCode} ${r.stderr}`).join(' | ')}`).toHaveLength(
        1,
      );
      const loser = results.find((r) => r.exitCode !== 0)!;
      expect(loser.exitCode).toBe(2);
      const [first, ...rest] = loser.stderr.trimEnd().split('\n');
      expect(first).toMatch(/^rambake: rambake's block is already in .*\/conf\/(auto|local)\.conf$/);
      expect(rest.every((l) => l.startsWith('  hint: '))).toBe(true);
      winners.push(auto.exitCode === 0 ? 'auto' : 'local');
      expect(blocks(join(conf, 'auto.conf')) + blocks(join(conf, 'local.conf'))).toBe(1);
      expect(mountsUnder(ex.root)).toEqual([join(ex.root, 'ram')]);

      const reverted = await runRambake(['-B', ex.topdir, '--no-bitbake', 'revert'], { timeout: 120_000 });
      expect(reverted.exitCode, reverted.stderr).toBe(0);
      expect(blocks(join(conf, 'auto.conf')) + blocks(join(conf, 'local.conf'))).toBe(0);
      expect(readFileSync(join(conf, 'local.conf')).equals(localBefore)).toBe(true);
      expect(mountsUnder(ex.root)).toEqual([]);
    }
    console.log(`concurrent apply: ${PAIRS} pairs, winners ${winners.join(' ')}`);
  });
});
