// apply on awkward build directories: one clear line, the documented exit code, nothing
// half-written and nothing mounted.

import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, runRambake } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();
const isRoot = process.getuid?.() === 0;

describe('apply on awkward build directories', () => {
  it.skipIf(!isRoot)('a read-only conf folder: exit 1, one line naming it, nothing mounted', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const conf = join(ex.topdir, 'conf');
    const files = readdirSync(conf).map((f) => [f, readFileSync(join(conf, f))] as const);
    // A read-only file system even root cannot write to: a tmpfs remounted ro over conf/.
    await execa('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'rambake-test-ro', conf]);
    cleanups.push(async () => {
      await execa('umount', [conf], { reject: false });
    });
    for (const [f, data] of files) writeFileSync(join(conf, f), data);
    await execa('mount', ['-o', 'remount,ro', conf]);
    const ram = join(ex.root, 'ram');
    const r = await runRambake(['-B', ex.topdir, '--no-bitbake', 'apply', '--path', ram, '--size', '1g']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^rambake: ${conf}/.*read-only file system$`, 'm'));
    expect(existsSync(ram)).toBe(false);
    expect(existsSync(join(ex.topdir, 'rambake'))).toBe(false);
  });

  it('a symlinked local.conf is edited through its link and given back byte for byte', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const link = join(ex.topdir, 'conf', 'local.conf');
    const target = join(ex.root, 'shared-local.conf');
    renameSync(link, target);
    symlinkSync(target, link);
    const before = readFileSync(target);
    const ram = join(ex.root, 'ram');
    cleanups.push(async () => {
      await runRambake(['-B', ex.topdir, '--no-bitbake', 'revert']);
    });
    const applied = await runRambake([
      '-B',
      ex.topdir,
      '--no-bitbake',
      'apply',
      '--conf',
      'local',
      '--path',
      ram,
      '--size',
      '1g',
    ]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toContain('rambake managed block');
    const reverted = await runRambake(['-B', ex.topdir, '--no-bitbake', 'revert']);
    expect(reverted.exitCode, reverted.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target).equals(before)).toBe(true);
  });

  it('a plan that does not fit: apply refuses as plan does (exit 1), writes and mounts nothing', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const ram = join(ex.root, 'ram');
    const plan = await runRambake(['-B', ex.topdir, '--no-bitbake', 'plan', '--target', 'core-image-sato']);
    expect(plan.exitCode).toBe(1);
    const r = await runRambake([
      '-B',
      ex.topdir,
      '--no-bitbake',
      'apply',
      '--target',
      'core-image-sato',
      '--path',
      ram,
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^rambake: the plan does not fit: .*steps/m);
    expect(existsSync(join(ex.topdir, 'conf', 'auto.conf'))).toBe(false);
    expect(existsSync(ram)).toBe(false);
  });

  it('a tmpfs bigger than RAM + swap is refused even with --force', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const ram = join(ex.root, 'ram');
    const r = await runRambake([
      '-B',
      ex.topdir,
      '--no-bitbake',
      'apply',
      '--force',
      '--size',
      '4096g',
      '--path',
      ram,
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^rambake: a 4\.00 TiB tmpfs is more than this machine can hold: RAM /m);
    expect(r.stderr).toContain('--allow-oversized-tmpfs');
    expect(existsSync(join(ex.topdir, 'conf', 'auto.conf'))).toBe(false);
    expect(existsSync(ram)).toBe(false);
  });
});
