// `rambake space` on generated TMPDIRs with hard links: totals equal GNU du, unique + shared
// add up per work dir, subfolders land in their kind, stale work dirs are found.

import { linkSync, lstatSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { folderKind } from '../../src/analyze/space.js';
import { scanSpace } from '../../src/analyze/space-read.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { tempDir } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();

async function duBytes(path: string): Promise<number> {
  const { stdout } = await execa('du', ['-sB1', path]);
  return Number(stdout.split('\t')[0]);
}

function file(path: string, bytes: number): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, Buffer.alloc(bytes, 7));
  return path;
}

function link(from: string, to: string): void {
  mkdirSync(join(to, '..'), { recursive: true });
  linkSync(from, to);
}

/** A TMPDIR in miniature: one target recipe at two PVs, a native recipe whose stamps are gone. */
function makeTmpdir(): { tmp: string; zlib: string } {
  const dir = tempDir('rambake-space-');
  cleanups.push(dir.cleanup);
  const tmp = join(dir.path, 'tmp');
  const zlib = join(tmp, 'work', 'core2-64-poky-linux', 'zlib', '1.3.1');
  file(join(zlib, 'zlib-1.3.1', 'zlib.c'), 300_000);
  file(join(zlib, 'build', 'libz.so.1.3.1'), 120_000);
  file(join(zlib, 'image', 'usr', 'lib', 'libz.so.1.3.1'), 120_000);
  const pkg = file(join(zlib, 'package', 'usr', 'lib', 'libz.so.1.3.1'), 120_000);
  // packages-split is hard-linked from package/: shared inside the work dir, unique to it.
  link(pkg, join(zlib, 'packages-split', 'zlib', 'usr', 'lib', 'libz.so.1.3.1'));
  file(join(zlib, 'pkgdata', 'runtime', 'zlib'), 5_000);
  file(join(zlib, 'pkgdata-sysroot', 'runtime', 'zlib'), 5_000);
  // The recipe sysroot and deploy-ipks are hard-linked with folders outside the work dir.
  const glibc = file(
    join(tmp, 'sysroots-components', 'core2-64', 'glibc', 'usr', 'lib', 'libc.so.6'),
    200_000,
  );
  link(glibc, join(zlib, 'recipe-sysroot', 'usr', 'lib', 'libc.so.6'));
  const ipk = file(join(zlib, 'deploy-ipks', 'core2-64', 'zlib_1.3.1-r0_core2-64.ipk'), 60_000);
  link(ipk, join(tmp, 'deploy', 'ipk', 'core2-64', 'zlib_1.3.1-r0_core2-64.ipk'));
  file(join(zlib, 'sysroot-destdir', 'usr', 'lib', 'libz.so'), 40_000);
  file(join(zlib, 'sstate-install-package', 'x'), 10_000);
  file(join(zlib, 'temp', 'log.do_compile.123'), 9_000);
  file(join(zlib, 'pseudo', 'files.db'), 50_000);
  file(join(zlib, 'zlib-cross-compile.patch'), 3_000);
  file(join(zlib, 'weird-folder', 'x'), 7_000);
  const old = join(tmp, 'work', 'core2-64-poky-linux', 'zlib', '1.2.13');
  file(join(old, 'zlib-1.2.13', 'zlib.c'), 280_000);
  utimesSync(old, new Date('2025-01-01'), new Date('2025-01-01'));
  file(join(tmp, 'work', 'x86_64-linux', 'quilt-native', '0.68', 'git', 'quilt'), 20_000);
  file(join(tmp, 'stamps', 'core2-64-poky-linux', 'zlib', '1.3.1.do_compile.5f0e'), 0);
  file(join(tmp, 'stamps', 'core2-64-poky-linux', 'zlib', '1.2.13.do_compile.77aa'), 0);
  file(join(tmp, 'stamps', 'x86_64-linux', 'quilt-native', '0.67.do_compile.99'), 0);
  file(join(tmp, 'buildstats', '20251130100000', 'build_stats'), 100);
  file(join(tmp, 'saved_tmpdir'), 40);
  return { tmp, zlib };
}

describe('scanSpace', () => {
  it('TMPDIR and every work dir match du -sB1; unique + shared add up', async () => {
    const { tmp, zlib } = makeTmpdir();
    const r = await scanSpace(tmp, join(tmp, 'work'), join(tmp, 'stamps'), { workers: 0 });
    expect(r.tmpdir.bytes).toBe(await duBytes(tmp));
    expect(r.recipes).toHaveLength(3);
    for (const x of r.recipes) {
      expect(x.bytes).toBe(await duBytes(x.workdir));
      expect(x.uniqueBytes + x.sharedBytes).toBe(x.bytes);
    }
    for (const t of r.top) expect(t.bytes).toBe(await duBytes(join(tmp, t.name)));
    const z = r.recipes.find((x) => x.workdir === zlib)!;
    const blocks = (p: string) => lstatSync(join(zlib, p)).blocks * 512;
    // Shared: exactly the recipe-sysroot and deploy-ipks inodes linked from outside.
    expect(z.sharedBytes).toBe(
      blocks('recipe-sysroot/usr/lib/libc.so.6') + blocks('deploy-ipks/core2-64/zlib_1.3.1-r0_core2-64.ipk'),
    );
    expect(z.folders['recipe-sysroot']).toMatchObject({
      uniqueBytes: await dirsOnly(zlib, 'recipe-sysroot'),
    });
  });

  it('puts each subfolder in its kind', async () => {
    const { tmp, zlib } = makeTmpdir();
    const r = await scanSpace(tmp, join(tmp, 'work'), join(tmp, 'stamps'), { workers: 0 });
    const z = r.recipes.find((x) => x.workdir === zlib)!;
    expect(Object.keys(z.folders).sort()).toEqual(
      [
        'build',
        'deploy-*',
        'image',
        'other',
        'package',
        'packages-split',
        'pkgdata',
        'pseudo',
        'recipe-sysroot',
        'sources',
        'sstate-install-*',
        'sysroot-destdir',
        'temp',
      ].sort(),
    );
    expect(z.folders.sources!.bytes).toBe(await duBytes(join(zlib, 'zlib-1.3.1')));
    expect(z.folders.pkgdata!.bytes).toBe(
      (await duBytes(join(zlib, 'pkgdata'))) + (await duBytes(join(zlib, 'pkgdata-sysroot'))),
    );
    // packages-split shares its file with package/: not unique to either folder.
    expect(z.folders['packages-split']!.uniqueBytes).toBe(await dirsOnly(zlib, 'packages-split'));
  });

  it('finds stale work dirs: an older PV beside the newest, a PV whose stamps are gone', async () => {
    const { tmp } = makeTmpdir();
    const r = await scanSpace(tmp, join(tmp, 'work'), join(tmp, 'stamps'), { workers: 0 });
    expect(r.stale.map((s) => [s.pn, s.pv, s.why])).toEqual([
      ['zlib', '1.2.13', 'older PV beside 1.3.1'],
      ['quilt-native', '0.68', 'no stamps left for this PV'],
    ]);
  });
});

describe('folderKind', () => {
  it.each([
    ['git', 'sources'],
    ['sources', 'sources'],
    ['zlib-1.3.1', 'sources'],
    ['deploy-rpms', 'deploy-*'],
    ['deploy-source-date-epoch', 'deploy-*'],
    ['sstate-install-populate_sysroot', 'sstate-install-*'],
    ['pkgdata-pdata-input', 'pkgdata'],
    ['recipe-sysroot-native', 'recipe-sysroot-native'],
    ['license-destdir', 'other'],
  ])('%s → %s', (name, kind) => {
    expect(folderKind(name, 'zlib', '1.3.1')).toBe(kind);
  });
});

// The blocks of a folder's directory entries alone (du of the folder minus its files).
async function dirsOnly(root: string, sub: string): Promise<number> {
  const { stdout } = await execa('find', [join(root, sub), '-type', 'd', '-printf', '%b\n']);
  return stdout
    .split('\n')
    .filter(Boolean)
    .reduce((n, b) => n + Number(b) * 512, 0);
}
