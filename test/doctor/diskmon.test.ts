// doctor's BB_DISKMON_DIRS check on a real evaluation of a temp copy of the sample build (its
// distro sets Poky's template with ??=), with TMPDIR's file system written out: a 1 GiB tmpfs
// like the one the real BitBake stopped on at once, a 12 GiB one, and the disk.

import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBuildDir } from '../../src/bitbake/builddir.js';
import type { BuildDir } from '../../src/bitbake/builddir-types.js';
import { checkDiskmon } from '../../src/doctor/check-diskmon.js';
import { checkHazards } from '../../src/doctor/hazards.js';
import { diskmonValue } from '../../src/plan/diskmon.js';
import type { BuildFacts, FsFacts, MountFacts, PathFacts, PathKey } from '../../src/plan/facts-types.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample } from '../helpers/exec.js';
import { desktopHost } from '../helpers/host.js';

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const cleanups = cleanupsAfterEach();

/** The sample build, with `local` appended to local.conf; the line number of its first line. */
async function sample(local = ''): Promise<{ bd: BuildDir; line: number }> {
  const ex = copyExample();
  cleanups.push(ex.cleanup);
  const file = join(ex.topdir, 'conf', 'local.conf');
  const line = readFileSync(file, 'utf8').split('\n').length;
  if (local) appendFileSync(file, `\n${local}\n`);
  const bd = await loadBuildDir({
    buildDir: ex.topdir,
    env: {},
    sources: { getvar: false, eventlog: false },
  });
  return { bd, line: line + 1 };
}

const disk: MountFacts = { id: 1, mountPoint: '/', fsType: 'ext4', source: '/dev/vda', options: ['rw'] };
const diskFs: FsFacts = { totalBytes: 250 * GiB, freeBytes: 80 * GiB, totalInodes: 16e6, freeInodes: 15e6 };

/** TMPDIR on a tmpfs of `size` with `inodes` (mounted at /mnt/ram); every other path on the disk. */
function onTmpfs(bd: BuildDir, size: number, inodes: number, dirs: Record<string, 'ram' | 'disk'> = {}) {
  const ram: MountFacts = {
    id: 7,
    mountPoint: '/mnt/ram',
    fsType: 'tmpfs',
    source: 'rambake-1234abcd',
    options: ['rw'],
    sizeBytes: size,
    nrInodes: inodes,
  };
  const ramFs: FsFacts = { totalBytes: size, freeBytes: size, totalInodes: inodes, freeInodes: inodes };
  const at = (path: string, where: 'ram' | 'disk'): PathFacts =>
    where === 'ram'
      ? { path, exists: true, mount: ram, fs: ramFs }
      : { path, exists: true, mount: disk, fs: diskFs };
  const paths = {} as BuildFacts['paths'];
  for (const key of Object.keys(bd.paths) as PathKey[])
    paths[key] = at(bd.paths[key], key === 'tmpdir' ? 'ram' : 'disk');
  const facts: BuildFacts = {
    host: { ...desktopHost },
    paths,
    diskmonDirs: Object.fromEntries(Object.entries(dirs).map(([p, w]) => [p, at(p, w)])),
  };
  return facts;
}

describe('doctor: BB_DISKMON_DIRS against TMPDIR’s file system', () => {
  it('Poky’s template on a 1 GiB tmpfs: an error at the distro’s line, with the value rambake writes', async () => {
    const { bd } = await sample();
    const found = checkDiskmon(bd, onTmpfs(bd, GiB, 409_600, { '/tmp': 'disk' }));
    // STOPTASKS,${TMPDIR},1G,100K: the whole tmpfs, and a quarter of its inodes. HALT at 100M
    // (10%) and the disk entries (DL_DIR, SSTATE_DIR, /tmp) are fine.
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      id: 'diskmon-stops-at-once',
      severity: 'error',
      file: join(bd.topdir, '..', 'layers', 'meta-poky', 'conf', 'distro', 'poky.conf'),
      line: 8,
      fix: `write BB_DISKMON_DIRS = "${diskmonValue(bd.paths.tmpdir, GiB, 409_600)}" (what rambake apply writes for this file system)`,
    });
    expect(found[0]?.message).toContain(`STOPTASKS,${bd.paths.tmpdir},1G,100K starts no new task`);
    expect(found[0]?.message).toContain(
      '1.00 GiB or 102k inodes free on /mnt/ram (tmpfs, 1.00 GiB, 410k inodes)',
    );
    expect(found[0]?.message).toMatch(
      /No new tasks can be executed since the disk space monitor action is "STOPTASKS"/,
    );
    // Registered with the other doctor checks.
    expect(checkHazards(bd, onTmpfs(bd, GiB, 409_600)).map((f) => f.id)).toContain('diskmon-stops-at-once');
  });

  it('the same template on a 12 GiB tmpfs and on the disk: nothing to say', async () => {
    const { bd } = await sample();
    expect(checkDiskmon(bd, onTmpfs(bd, 12 * GiB, 786_432))).toEqual([]);
    const onDisk = onTmpfs(bd, GiB, 0);
    onDisk.paths.tmpdir = { path: bd.paths.tmpdir, exists: true, mount: disk, fs: diskFs };
    expect(checkDiskmon(bd, onDisk)).toEqual([]);
  });

  it('compares by file system: a path on the tmpfs counts, the same number on the disk does not', async () => {
    const { bd, line } = await sample(
      'BB_DISKMON_DIRS = "STOPTASKS,${DL_DIR},1G,100K HALT,/mnt/ram,300M WARN,${TMPDIR},1G STOPTASKS,/mnt/ram/x,200M"',
    );
    const found = checkDiskmon(bd, onTmpfs(bd, GiB, 409_600, { '/mnt/ram': 'ram', '/mnt/ram/x': 'ram' }));
    // HALT at 300M is 29% of the tmpfs; STOPTASKS at 200M is 19.5% (fires at 80.5% full: fine);
    // WARN only warns; DL_DIR is on the disk.
    expect(found).toEqual([
      {
        id: 'diskmon-stops-early',
        severity: 'warning',
        message:
          "BB_DISKMON_DIRS entry HALT,/mnt/ram,300M halts the build once less than 300 MiB (29%) is free on /mnt/ram (tmpfs, 1.00 GiB, 410k inodes): before TMPDIR's file system is 80% full",
        file: join(bd.topdir, 'conf', 'local.conf'),
        line,
        fix: expect.stringContaining(
          `"STOPTASKS,${bd.paths.tmpdir},102M,40K HALT,${bd.paths.tmpdir},20M,4K `,
        ),
      },
    ]);
  });

  it('an inode threshold counts only where the file system counts inodes', async () => {
    const { bd } = await sample(`BB_DISKMON_DIRS = "STOPTASKS,\${TMPDIR},100M,300K"`);
    expect(checkDiskmon(bd, onTmpfs(bd, GiB, 409_600))[0]?.message).toContain('307k inodes (75%)');
    // nr_inodes=0: statfs reports no inode count and BitBake drops inode thresholds.
    expect(checkDiskmon(bd, onTmpfs(bd, GiB, 0))).toEqual([]);
  });

  it('what rambake writes never stops a build before its tmpfs is 80% full', async () => {
    const { bd } = await sample();
    const K = 1024;
    for (const [size, inodes] of [
      [512 * MiB, 400 * K],
      [GiB, 400 * K],
      [8 * GiB, 512 * K],
      [14 * GiB, 896 * K],
      [64 * GiB, 4096 * K],
      [GiB, 0],
    ] as const) {
      bd.vars.BB_DISKMON_DIRS = { value: diskmonValue(bd.paths.tmpdir, size, inodes), source: 'conf' };
      expect(checkDiskmon(bd, onTmpfs(bd, size, inodes)), `${size} ${inodes}`).toEqual([]);
    }
  });

  it('a value BitBake refuses: it builds with no disk monitor at all', async () => {
    const { bd, line } = await sample('BB_DISKMON_DIRS = "STOPTASKS,${TMPDIR},0,100K"');
    expect(checkDiskmon(bd, onTmpfs(bd, GiB, 409_600))).toMatchObject([
      {
        id: 'diskmon-invalid',
        severity: 'warning',
        line,
        message: expect.stringMatching(/disk space 0 is not .*no disk monitor at all/),
      },
    ]);
  });
});
