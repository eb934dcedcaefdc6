import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ciRamdiskOptions } from '../../src/cli/ci-ramdisk.js';
import { UsageError } from '../../src/errors.js';
import { quoteShellWord } from '../../src/text/shell.js';
import { ciJobs, makeCiRamdisk } from '../../src/usecases/ci-ramdisk.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { tempDir } from '../helpers/exec.js';
import { GiB } from './fixture.js';

const cleanups = cleanupsAfterEach();

const NASTY = [
  'plain',
  'with space',
  "it's",
  'double "quotes"',
  '$(touch pwned)',
  '`touch pwned`',
  '$HOME ${PATH} \\n \\',
  "'; touch pwned; echo '",
  'tab\there * ? [a] ~ # ! & | ; < >',
];

describe('quoteShellWord', () => {
  it('round-trips every value through sh unchanged and runs nothing', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    for (const value of NASTY) {
      const r = await execa('sh', ['-c', `printf '%s' ${quoteShellWord(value)}`], { cwd: dir.path });
      expect(r.stdout).toBe(value);
    }
    expect(existsSync(join(dir.path, 'pwned'))).toBe(false);
  });
});

/** Stubs for mount/mdconfig/newfs that log their argv, one argument a line. */
function stubBin(root: string): { bin: string; log: string } {
  const bin = join(root, 'bin');
  const log = join(root, 'calls.log');
  mkdirSync(bin);
  for (const name of ['mount', 'newfs']) {
    writeFileSync(
      join(bin, name),
      `#!/bin/sh\necho "${name}" >> '${log}'\nprintf '%s\\n' "$@" >> '${log}'\n`,
    );
    chmodSync(join(bin, name), 0o755);
  }
  writeFileSync(join(bin, 'mdconfig'), `#!/bin/sh\nprintf '%s\\n' mdconfig "$@" >> '${log}'\necho md7\n`);
  chmodSync(join(bin, 'mdconfig'), 0o755);
  return { bin, log };
}

describe('ci-ramdisk scripts', () => {
  for (const os of ['linux', 'freebsd'] as const) {
    it(`${os}: passes sh -n`, async () => {
      const r = await makeCiRamdisk({
        os,
        size: 20 * GiB,
        path: '/mnt/ram',
        copyFrom: '/work/tree',
        cpus: 4,
      });
      const check = await execa('sh', ['-n'], { input: r.script, reject: false });
      expect(check.exitCode).toBe(0);
      const mounts = r.script.split('\n').filter((l) => /^\s*mount /.test(l));
      expect(mounts).toHaveLength(1);
      expect(mounts[0]).toMatch(/noatime/);
      expect(mounts[0]).not.toMatch(/noexec/);
      expect(r.script).not.toMatch(/@[A-Z_]+@/);
      expect(r.jobs).toEqual({ build: 4, test: 8 });
    });

    it(`${os}: hostile paths reach the commands as single arguments`, async () => {
      const dir = tempDir();
      cleanups.push(dir.cleanup);
      const stub = stubBin(dir.path);
      const path = join(dir.path, "ram disk $(touch pwned) `touch pwned` it's");
      const from = join(dir.path, 'tree "x"');
      mkdirSync(from);
      writeFileSync(join(from, 'README'), 'hello');
      const r = await makeCiRamdisk({ os, size: 8 * GiB, path, copyFrom: from, cpus: 2 });
      const run = await execa('sh', ['-c', r.script], {
        cwd: dir.path,
        env: { PATH: `${stub.bin}:${process.env.PATH}` },
        reject: false,
      });
      expect(run.stderr).toBe('');
      expect(run.exitCode).toBe(0);
      expect(existsSync(join(dir.path, 'pwned'))).toBe(false);
      expect(readFileSync(join(path, 'README'), 'utf8')).toBe('hello');
      const calls = readFileSync(stub.log, 'utf8').split('\n');
      expect(calls).toContain(path);
      if (os === 'linux') {
        expect(calls.slice(0, 6)).toEqual([
          'mount',
          '-t',
          'tmpfs',
          '-o',
          'size=8g,nr_inodes=524288,mode=0755,noatime',
          'rambake-ci',
        ]);
      } else {
        expect(calls.slice(0, 7)).toEqual(['mdconfig', '-a', '-t', 'swap', '-s', '8g', 'newfs']);
        expect(calls).toContain('/dev/md7');
        expect(run.stdout).toMatch(/^MD_UNIT=md7$/m);
      }
      expect(run.stdout).toMatch(/^BUILD_JOBS=2\nTEST_JOBS=4$/m);
    });
  }

  it('moves a working tree in place when --copy-from is --path', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const stub = stubBin(dir.path);
    const tree = join(dir.path, 'work tree');
    mkdirSync(tree);
    writeFileSync(join(tree, 'src.c'), 'int x;');
    const r = await makeCiRamdisk({ os: 'linux', size: GiB, path: tree, copyFrom: tree, cpus: 1 });
    const run = await execa('sh', ['-c', r.script], { env: { PATH: `${stub.bin}:${process.env.PATH}` } });
    expect(run.exitCode).toBe(0);
    expect(readFileSync(join(`${tree}.orig`, 'src.c'), 'utf8')).toBe('int x;');
    expect(readFileSync(join(tree, 'src.c'), 'utf8')).toBe('int x;');
  });

  it('gives JSON fields and refuses relative paths', async () => {
    const r = await makeCiRamdisk({ os: 'freebsd', size: 20 * GiB, path: '/mnt/ram', cpus: 3 });
    expect(Object.keys(r).sort()).toEqual(['jobs', 'os', 'schemaVersion', 'script']);
    expect(r.script).toMatch(/^RAMDISK_SIZE=20g$/m);
    expect(r.script).toMatch(/newfs -U -b 8192/);
    await expect(makeCiRamdisk({ os: 'linux', size: GiB, path: 'rel', cpus: 1 })).rejects.toThrow(UsageError);
  });

  it('reads flags into options with usage errors (--os and --cpus: test/cli/option-values.test.ts)', () => {
    expect(ciRamdiskOptions({ size: 20 * GiB, path: '/m' }, 6)).toEqual({
      os: 'linux',
      size: 20 * GiB,
      path: '/m',
      cpus: 6,
    });
    expect(() => ciRamdiskOptions({ path: '/m' })).toThrow(/--size is required/);
    expect(ciJobs(8)).toEqual({ build: 8, test: 16 });
  });
});
