// Every doctor check on a real evaluation of a temp copy of the sample build, with host and
// mount facts written out so each hazard is met exactly once.

import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBuildDir } from '../../src/bitbake/builddir.js';
import type { BuildDir } from '../../src/bitbake/builddir-types.js';
import { checkHazards } from '../../src/doctor/hazards.js';
import type { BuildFacts, MountFacts, PathKey } from '../../src/plan/facts-types.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, copyFixture } from '../helpers/exec.js';
import { desktopHost } from '../helpers/host.js';

const GiB = 2 ** 30;
const cleanups = cleanupsAfterEach();

async function sample(localConf = ''): Promise<BuildDir> {
  const ex = copyExample();
  cleanups.push(ex.cleanup);
  if (localConf) appendFileSync(join(ex.topdir, 'conf', 'local.conf'), localConf);
  return loadBuildDir({ buildDir: ex.topdir, env: {}, sources: { getvar: false, eventlog: false } });
}

const disk: MountFacts = {
  id: 1,
  mountPoint: '/',
  fsType: 'ext4',
  source: '/dev/vda',
  options: ['rw', 'relatime'],
};
const ram = (extra: Partial<MountFacts> = {}): MountFacts => ({
  id: 7,
  mountPoint: '/mnt/ram',
  fsType: 'tmpfs',
  source: 'rambake-1234abcd',
  options: ['rw', 'noatime'],
  sizeBytes: 12 * GiB,
  ...extra,
});

function facts(
  bd: BuildDir,
  mounts: Partial<Record<PathKey, MountFacts>> = {},
  more: Partial<BuildFacts> = {},
) {
  const paths = {} as BuildFacts['paths'];
  for (const key of Object.keys(bd.paths) as PathKey[]) {
    paths[key] = { path: bd.paths[key], exists: true, mount: mounts[key] ?? disk };
  }
  const f: BuildFacts = {
    host: { ...desktopHost },
    paths,
    tmp: disk,
    ...more,
  };
  return f;
}

const ids = (bd: BuildDir, f: BuildFacts) => checkHazards(bd, f).map((x) => x.id);
const allOnRam = (m: MountFacts) =>
  Object.fromEntries(
    ['tmpdir', 'baseWorkdir', 'stampsDir', 'componentsDir', 'workShared'].map((k) => [k, m]),
  );

describe('doctor checks on conf statements', () => {
  it('flags ?= on TMPDIR in local.conf (a no-op) with file:line, and RM_WORK_EXCLUDE_ITEMS +=', async () => {
    const bd = await sample();
    const found = checkHazards(bd, facts(bd));
    const noop = found.find((x) => x.id === 'noop-weak-assignment');
    expect(noop).toMatchObject({
      severity: 'warning',
      file: join(bd.topdir, 'conf', 'local.conf'),
      line: 19,
    });
    expect(noop?.fix).toBe('write TMPDIR = "${TOPDIR}/tmp"');
    expect(found.find((x) => x.id === 'rm-work-items-lost')).toMatchObject({ line: 38 });
    expect(found.some((x) => x.severity === 'error')).toBe(false);
  });

  it('does not flag DL_DIR ?= (bitbake.conf sets its default after local.conf)', async () => {
    const bd = await sample();
    const noops = checkHazards(bd, facts(bd)).filter((x) => x.id === 'noop-weak-assignment');
    expect(noops.map((x) => x.line)).toEqual([19]);
  });

  it('warns when BASE_WORKDIR is rewritten (it is in task signatures)', async () => {
    const bd = await sample('BASE_WORKDIR = "/mnt/ram/work"\n');
    expect(ids(bd, facts(bd))).toContain('base-workdir-changed');
  });

  it('reports the old _append syntax as an error finding', async () => {
    const bd = await sample('IMAGE_INSTALL_append = " strace"\n');
    const f = checkHazards(bd, facts(bd)).find((x) => x.id === 'old-override-syntax');
    expect(f).toMatchObject({ severity: 'error', line: 41 });
  });

  it('warns when rm_work runs under another scheduler', async () => {
    const bd = await sample('INHERIT += "rm_work"\nBB_SCHEDULER = "speed"\n');
    expect(bd.rmWork).toBe(true);
    expect(ids(bd, facts(bd))).toContain('scheduler-overridden');
    const ok = await sample('INHERIT += "rm_work"\n');
    expect(ok.vars.BB_SCHEDULER.value).toBe('completion');
    expect(ids(ok, facts(ok))).not.toContain('scheduler-overridden');
  });

  it('refuses TMPDIR paths BitBake refuses', async () => {
    for (const bad of [
      '/mnt/ram/a b',
      '/mnt/r+am',
      '/mnt/ram/../x',
      // sanity.bbclass: TMPDIR.startswith("~") (a ~ inside the path is fine)
      '~/ram',
      // over 400 characters, in names the kernel takes (none over 255 bytes)
      `/mnt/${'x'.repeat(200)}/${'x'.repeat(200)}`,
    ]) {
      const bd = await sample(`TMPDIR = "${bad}"\n`);
      expect(ids(bd, facts(bd)), bad).toContain('tmpdir-bad-path');
    }
    const good = await sample('TMPDIR = "/mnt/ram/tmp"\n');
    expect(ids(good, facts(good))).not.toContain('tmpdir-bad-path');
    const tilde = await sample('TMPDIR = "/mnt/a~b/tmp"\n');
    expect(ids(tilde, facts(tilde))).not.toContain('tmpdir-bad-path');
  });

  it('refuses, at its conf line, a TMPDIR no system call takes (a name over 255 bytes, a path over 4095)', async () => {
    for (const [bad, why] of [
      [
        `/mnt/${'x'.repeat(256)}/tmp`,
        'has a 256-byte folder name: Linux takes none over 255 bytes (NAME_MAX)',
      ],
      [
        `/mnt${`/${'x'.repeat(200)}`.repeat(21)}`,
        'is 4225 bytes long: Linux takes no path over 4095 bytes (PATH_MAX)',
      ],
    ] as const) {
      await expect(sample(`TMPDIR = "${bad}"\n`)).rejects.toThrow(
        new RegExp(`/build/conf/local\\.conf:\\d+: TMPDIR ${why.replace(/[()]/g, '\\$&')}$`),
      );
    }
  });

  it('says when saved_tmpdir names another place', async () => {
    const bd = await sample();
    expect(ids(bd, facts(bd, {}, { savedTmpdir: '/old/place/tmp' }))).toContain('tmpdir-moved');
    expect(ids(bd, facts(bd, {}, { savedTmpdir: bd.paths.tmpdir }))).not.toContain('tmpdir-moved');
  });

  it('flags per-build paths in a bitbake-setup shared site.conf', async () => {
    const fx = copyFixture('builds/bitbake-setup');
    cleanups.push(fx.cleanup);
    const bd = await loadBuildDir({
      buildDir: join(fx.path, 'poky-master'),
      env: {},
      sources: { getvar: false, eventlog: false },
    });
    const shared = checkHazards(bd, facts(bd)).filter((x) => x.id === 'shared-site-conf');
    expect(shared.map((x) => x.line)).toEqual([5]);
    expect(shared[0]?.file).toBe(join(fx.path, 'site.conf'));
  });
});

describe('doctor checks on mounts and host', () => {
  it('finds noexec on TMPDIR and on /tmp', async () => {
    const bd = await sample();
    const noexec = ram({ options: ['rw', 'noexec'] });
    expect(ids(bd, facts(bd, { tmpdir: noexec }))).toContain('tmpdir-noexec');
    expect(ids(bd, facts(bd, {}, { tmp: { ...disk, options: ['noexec'] } }))).toContain('tmp-noexec');
    // The remount command is for pasting: a mount point from the system is quoted.
    const hostile = ram({ options: ['noexec'], mountPoint: '/mnt/$(touch x) ram' });
    const fix = checkHazards(bd, facts(bd, { tmpdir: hostile })).find((f) => f.id === 'tmpdir-noexec')?.fix;
    expect(fix).toContain("mount -o remount,exec '/mnt/$(touch x) ram'");
  });

  it('finds work/ and sysroots-components/ split, and stamps outliving work/', async () => {
    const bd = await sample('INHERIT += "rm_work"\n');
    const found = ids(bd, facts(bd, { baseWorkdir: ram() }));
    expect(found).toContain('workdir-components-split');
    expect(found).toContain('stamps-outlive-workdir');
    const whole = ids(bd, facts(bd, allOnRam(ram())));
    expect(whole).not.toContain('workdir-components-split');
    expect(whole).not.toContain('stamps-outlive-workdir');
  });

  it('finds persistent folders on a tmpfs', async () => {
    const bd = await sample();
    const found = checkHazards(bd, facts(bd, { dlDir: ram(), buildstatsBase: ram() }));
    expect(
      found.filter((x) => x.id === 'persistent-dir-in-tmpfs').map((x) => x.message.split(' ')[0]),
    ).toEqual(['DL_DIR', 'BUILDSTATS_BASE']);
  });

  it('finds rm_work off, an oversized tmpfs and no swap on a RAM TMPDIR', async () => {
    const bd = await sample();
    const f = facts(bd, allOnRam(ram({ sizeBytes: 40 * GiB })));
    f.host.swapTotal = 0;
    const found = checkHazards(bd, f);
    expect(found.find((x) => x.id === 'rm-work-off-on-tmpfs')?.severity).toBe('warning');
    expect(found.find((x) => x.id === 'tmpfs-oversized')?.severity).toBe('error');
    expect(found.find((x) => x.id === 'no-swap')?.severity).toBe('warning');
    const fits = facts(bd, allOnRam(ram({ sizeBytes: 20 * GiB })));
    expect(ids(bd, fits)).not.toContain('tmpfs-oversized'); // 16 GiB RAM + 8 GiB swap
  });

  it('warns about a low inotify limit', async () => {
    const bd = await sample();
    const f = facts(bd);
    f.host.inotifyMaxUserWatches = 8192;
    expect(ids(bd, f)).toContain('inotify-limit-low');
  });
});

describe('a DEPLOY_DIR kept on disk', () => {
  it('is an error when it holds files no sstate manifest lists (a lost tmpfs, or a build that failed on it)', async () => {
    const bd = await sample('DEPLOY_DIR = "${TOPDIR}/rambake-keep/deploy"\n');
    const unowned = { files: 12, unowned: 3, example: 'licenses/zlib/COPYING' };
    const found = checkHazards(bd, facts(bd, {}, { deploy: unowned })).find(
      (f) => f.id === 'deploy-outlives-tmpdir',
    );
    expect(found?.severity).toBe('error');
    expect(found?.message).toContain('3 of its 12 files, e.g. licenses/zlib/COPYING');
    expect(ids(bd, facts(bd, {}, { deploy: { files: 12, unowned: 0 } }))).not.toContain(
      'deploy-outlives-tmpdir',
    );
    const inside = await sample();
    expect(ids(inside, facts(inside, {}, { deploy: unowned }))).not.toContain('deploy-outlives-tmpdir');
  });
});
