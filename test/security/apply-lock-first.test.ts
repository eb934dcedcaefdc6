// apply takes conf/.rambake.lock before it reads anything: what another holder of the lock
// changed is what apply plans from. The probe: local.conf is broken while the lock is held; an
// apply that had read the conf before waiting would go on with its old reading and succeed.

import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { acquireLock } from '../../src/apply/conf-write.js';
import { copyExample, runRambake } from '../helpers/exec.js';

let ex: ReturnType<typeof copyExample>;
beforeEach(() => {
  ex = copyExample();
});
afterEach(() => ex.cleanup());

it('an apply started while the lock is held reads the conf files only once it has the lock', async () => {
  const lock = await acquireLock(join(ex.topdir, 'conf'));
  const apply = runRambake(['apply', '-B', ex.topdir, '--no-bitbake', '--size', '64M', '--force']);
  // Long enough for apply to load and plan the sample build if it did that before the lock.
  await new Promise((r) => setTimeout(r, 2500));
  const local = join(ex.topdir, 'conf', 'local.conf');
  appendFileSync(local, 'THIS IS NOT BITBAKE\n');
  const lines = readFileSync(local, 'utf8').split('\n').length - 1;
  await lock.release();
  const r = await apply;
  expect(r.stderr.split('\n')[0]).toContain(`${local}:${lines}`);
  expect(r.exitCode).toBe(2);
  expect(existsSync(join(ex.topdir, 'rambake', 'state.json'))).toBe(false);
  expect(existsSync(join(ex.topdir, 'conf', '.rambake.lock'))).toBe(false);
});

it('holding the lock from the start, apply still removes the temp files of a killed apply', async () => {
  // A pid that has exited: its writer is dead.
  const dead = spawnSync('true').pid!;
  const stateDir = join(ex.topdir, 'rambake');
  mkdirSync(stateDir);
  const temp = join(stateDir, `.state.json.rambake-tmp-${dead}-deadbeef`);
  writeFileSync(temp, '{"half":');
  const r = await runRambake([
    'apply',
    '-B',
    ex.topdir,
    '--no-bitbake',
    '--size',
    '64M',
    '--force',
    '--json',
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(existsSync(temp)).toBe(false);
  // As root apply mounted the tmpfs: revert takes it away before the copy goes.
  expect((await runRambake(['revert', '-B', ex.topdir, '--no-bitbake'])).exitCode).toBe(0);
});
