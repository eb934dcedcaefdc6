// ci-ramdisk's paths in one spelling: `--path DIR --copy-from DIR/` (or `//`, `/./`) is the same
// folder, so the script moves the working tree in; it once mounted over it instead. The scripts
// run for real (root: a real tmpfs, unmounted after).

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { quoteShellWord } from '../../src/text/shell.js';
import { makeCiRamdisk } from '../../src/usecases/ci-ramdisk.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { tempDir } from '../helpers/exec.js';
import { GiB } from './fixture.js';

const cleanups = cleanupsAfterEach();
const isRoot = process.getuid?.() === 0;

describe('ci-ramdisk paths in one spelling', () => {
  for (const [path, copyFrom] of [
    ['', '/'],
    ['/', ''],
    ['//', '/./'],
  ] as const) {
    it.skipIf(!isRoot)(
      `--path tree${path} --copy-from tree${copyFrom}: the tree is moved in, not mounted over`,
      async () => {
        const dir = tempDir();
        cleanups.push(dir.cleanup);
        const tree = join(dir.path, 'work');
        mkdirSync(tree);
        writeFileSync(join(tree, 'src.c'), 'int x;');
        const r = await makeCiRamdisk({
          os: 'linux',
          size: 64 * 2 ** 20,
          path: tree + path,
          copyFrom: tree + copyFrom,
          cpus: 1,
        });
        expect(r.script).toContain(`RAMDISK_DIR=${quoteShellWord(tree)}\n`);
        expect(r.script).toContain(`COPY_FROM=${quoteShellWord(tree)}\n`);
        const run = await execa('sh', ['-c', r.script], { reject: false });
        cleanups.push(() => {
          execFileSync('umount', [tree]);
        });
        expect(run.exitCode, run.stderr).toBe(0);
        expect(readFileSync('/proc/self/mountinfo', 'utf8')).toContain(` ${tree} `);
        expect(readFileSync(join(`${tree}.orig`, 'src.c'), 'utf8')).toBe('int x;');
        expect(readFileSync(join(tree, 'src.c'), 'utf8')).toBe('int x;');
      },
    );
  }

  it('/x/../y is /y; refuses /, a path inside the copied tree and a tree inside the path', async () => {
    const r = await makeCiRamdisk({ os: 'linux', size: GiB, path: '/ci/x/../ram/', cpus: 1 });
    expect(r.script).toMatch(/^RAMDISK_DIR=\/ci\/ram$/m);
    const refuse = (path: string, copyFrom?: string) =>
      makeCiRamdisk({ os: 'linux', size: GiB, path, ...(copyFrom ? { copyFrom } : {}), cpus: 1 });
    await expect(refuse('/')).rejects.toThrow(/--path \/: a RAM disk over the root/);
    await expect(refuse('/ci/work/ram', '/ci/work/')).rejects.toThrow(
      '--path /ci/work/ram is inside --copy-from /ci/work: the copy would go into itself',
    );
    await expect(refuse('/ci/', '/ci/work')).rejects.toThrow(
      '--copy-from /ci/work is inside --path /ci: the RAM disk would hide it before the copy',
    );
    await expect(refuse('/ci/work', '/ci/workspace')).resolves.toBeDefined();
  });
});
