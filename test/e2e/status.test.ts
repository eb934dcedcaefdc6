// `rambake status` as a user runs it: the built binary, a scrubbed env, --json parsed.

import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, copyFixture, runRambake } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();

describe('rambake status (classic layout, the sample build)', () => {
  it('resolves every path and variable with its provenance', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const r = await runRambake(['status', '--json', '--build-dir', ex.topdir]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.schemaVersion).toBe(1);
    expect(s.buildDir.layout).toBe('classic');
    expect(s.buildDir.topdir).toBe(ex.topdir);
    expect(s.layers.map((l: { collection: string }) => l.collection)).toEqual(['core', 'yocto', 'demo-bsp']);
    // TMPDIR ?= in local.conf is a no-op: bitbake.conf's default wins.
    expect(s.vars.TMPDIR).toMatchObject({ value: join(ex.topdir, 'tmp'), source: 'default' });
    expect(s.vars.TMPDIR.file).toMatch(/layers\/meta\/conf\/bitbake\.conf$/);
    // DL_DIR ?= in local.conf works: bitbake.conf sets its default after local.conf.
    expect(s.vars.DL_DIR).toMatchObject({ value: `${ex.topdir}/../downloads`, source: 'conf' });
    expect(s.vars.DL_DIR.file).toBe(join(ex.topdir, 'conf', 'local.conf'));
    expect(s.vars.DL_DIR.line).toBe(12);
    expect(s.vars.MACHINE).toMatchObject({ value: 'qemux86-64', source: 'conf' });
    expect(s.vars.DISTRO.value).toBe('poky');
    expect(s.vars.BB_NUMBER_THREADS.source).toBe('default');
    expect(Number(s.vars.BB_NUMBER_THREADS.value)).toBeGreaterThan(0);
    expect(s.vars.RM_WORK_EXCLUDE.value).toBe(' busybox');
    expect(s.vars.BB_DISKMON_DIRS.value).toContain(`STOPTASKS,${join(ex.topdir, 'tmp')},1G,100K`);
    expect(s.rmWork).toBe(false);
    expect(s.paths.tmpdir).toMatchObject({ variable: 'TMPDIR', path: join(ex.topdir, 'tmp'), exists: false });
    expect(s.paths.componentsDir.path).toBe(join(ex.topdir, 'tmp', 'sysroots-components'));
    expect(s.paths.tmpdir.mount.fsType).toMatch(/\w/);
    expect(s.paths.tmpdir.fs.totalBytes).toBeGreaterThan(0);
    expect(s.host.memTotal).toBeGreaterThan(0);
    for (const name of ['TOPDIR', 'SSTATE_MANIFESTS', 'BUILDSTATS_BASE', 'BB_HASHSERVE', 'SSTATE_MIRRORS']) {
      expect(s.vars).toHaveProperty(name);
    }
  });

  it('prints an aligned human report', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const r = await runRambake(['status'], { cwd: join(ex.topdir, 'conf') });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`Build directory  ${ex.topdir}  (classic layout)`);
    expect(r.stdout).toMatch(
      /^ {2}TMPDIR +\$\{TOPDIR\}\/tmp +default +\.\.\/layers\/meta\/conf\/bitbake\.conf:\d+$/m,
    );
    expect(r.stdout).toMatch(/^ {2}DL_DIR +\$\{TOPDIR\}\/\.\.\/downloads +conf +conf\/local\.conf:12$/m);
    expect(r.stdout).not.toContain('\u001b[');
  });

  it('prefers the allvariables line of a fresh event log', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const dir = join(ex.topdir, 'tmp', 'log', 'eventlog');
    mkdirSync(dir, { recursive: true });
    const early = Array.from({ length: 5 }, () => JSON.stringify({ class: 'bb.event.X', vars: 'gAN9cQAu' }));
    const all = {
      allvariables: { TMPDIR: { v: join(ex.topdir, 'tmp'), history: [] }, MACHINE: { v: 'from-log' } },
    };
    writeFileSync(join(dir, '20251130142627.json'), `${[...early, JSON.stringify(all)].join('\n')}\n`);
    const r = await runRambake(['status', '--json', '-B', ex.topdir]);
    const s = JSON.parse(r.stdout);
    expect(s.vars.MACHINE).toEqual({ value: 'from-log', source: 'eventlog' });
    expect(s.buildDir.eventLog).toBe(join(dir, '20251130142627.json'));
    const offline = JSON.parse(
      (await runRambake(['status', '--json', '--no-bitbake', '-B', ex.topdir])).stdout,
    );
    expect(offline.vars.MACHINE.source).toBe('conf');
  });
});

/** A `bitbake` that answers `-e` as the real one prints it, and counts its calls. */
function fakeBitbake(dir: string): { bin: string; calls: () => number } {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const count = join(dir, 'calls');
  writeFileSync(
    join(bin, 'bitbake'),
    `#!/bin/sh\necho x >> '${count}'\n[ "$1" = -e ] || exit 2\n` +
      "echo '# $TMPDIR [2 operations]'\n" +
      'echo \'export TMPDIR="/from/bitbake/tmp"\'\n' +
      'echo \'MACHINE="bitbake-machine"\'\n' +
      'echo \'BB_HASHSERVE="unix:///b/hashserve.sock"\'\n',
    { mode: 0o755 },
  );
  const calls = () => (existsSync(count) ? readFileSync(count, 'utf8').split('\n').length - 1 : 0);
  return { bin, calls };
}

describe('asking BitBake (bitbake -e)', () => {
  it("takes BitBake's own answers, pays once per conf change, and asks nothing while a build holds bitbake.lock", async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const fake = fakeBitbake(ex.root);
    const env = { PATH: `${fake.bin}:${process.env.PATH}`, XDG_CACHE_HOME: join(ex.root, 'cache') };
    const s = JSON.parse((await runRambake(['status', '--json', '-B', ex.topdir], { env })).stdout);
    expect(s.vars.TMPDIR).toEqual({ value: '/from/bitbake/tmp', source: 'bitbake' });
    expect(s.vars.MACHINE).toEqual({ value: 'bitbake-machine', source: 'bitbake' });
    expect(s.vars.SSTATE_MIRRORS).toEqual({ source: 'bitbake' });
    expect(s.paths.tmpdir.path).toBe('/from/bitbake/tmp');
    await runRambake(['status', '--json', '-B', ex.topdir], { env });
    expect(fake.calls()).toBe(1);
    appendFileSync(join(ex.topdir, 'conf', 'local.conf'), '# touched\n');
    await runRambake(['status', '--json', '-B', ex.topdir], { env });
    expect(fake.calls()).toBe(2);
    // A lock really held (flock, as BitBake's server holds it) means a build is running.
    const lock = join(ex.topdir, 'bitbake.lock');
    writeFileSync(lock, '12345\n');
    const holder = execa('flock', ['--no-fork', lock, 'sleep', '30'], { reject: false, stdio: 'ignore' });
    cleanups.push(async () => {
      holder.kill();
      await holder;
    });
    await new Promise((r) => setTimeout(r, 300));
    appendFileSync(join(ex.topdir, 'conf', 'local.conf'), '# touched again\n');
    const locked = JSON.parse((await runRambake(['status', '--json', '-B', ex.topdir], { env })).stdout);
    expect(locked.vars.TMPDIR.source).toBe('default');
    expect(locked.buildDir.buildRunning).toBe(true);
    expect(locked.notes.join('\n')).toMatch(/bitbake\.lock/);
    expect(fake.calls()).toBe(2);
  });
});

describe("status says where BitBake's values differ from the conf files", () => {
  it('names each disagreement and why, in text and JSON (a differing TMPDIR, the hash server socket)', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const fake = fakeBitbake(ex.root);
    appendFileSync(join(ex.topdir, 'conf', 'local.conf'), 'BB_HASHSERVE = "auto"\n');
    const env = { PATH: `${fake.bin}:${process.env.PATH}`, XDG_CACHE_HOME: join(ex.root, 'cache') };
    const s = JSON.parse((await runRambake(['status', '--json', '-B', ex.topdir], { env })).stdout);
    const byName = new Map(s.disagreements.map((d: { name: string }) => [d.name, d]));
    expect(byName.get('TMPDIR')).toEqual({
      name: 'TMPDIR',
      rambake: expect.objectContaining({ value: join(ex.topdir, 'tmp'), source: 'default' }),
      bitbake: '/from/bitbake/tmp',
      why: expect.stringMatching(/changed after the conf files/),
    });
    expect(byName.get('BB_HASHSERVE')).toEqual({
      name: 'BB_HASHSERVE',
      rambake: expect.objectContaining({
        value: 'auto',
        source: 'conf',
        file: join(ex.topdir, 'conf', 'local.conf'),
        line: 41,
      }),
      bitbake: 'unix:///b/hashserve.sock',
      why: expect.stringMatching(/hash equivalence server and replaces "auto" with its socket/),
    });
    expect(byName.has('TOPDIR')).toBe(false);
    // Both values shown: BitBake's as the value, the conf's reading in the disagreement.
    expect(s.vars.BB_HASHSERVE).toEqual({ value: 'unix:///b/hashserve.sock', source: 'bitbake' });

    const text = (await runRambake(['status', '-B', ex.topdir], { env })).stdout;
    expect(text).toContain("Where BitBake's values differ from rambake's reading of the conf files");
    expect(text).toMatch(
      /^ {2}BB_HASHSERVE: conf files say "auto" \(conf\/local\.conf:41\); BitBake uses "unix:\/\/\/b\/hashserve\.sock"$/m,
    );
    expect(text).toMatch(
      /^ {2}TMPDIR: conf files say "\$\{TOPDIR\}\/tmp" .*; BitBake uses "\/from\/bitbake\/tmp"$/m,
    );
    expect(text).toMatch(/^ {4}BitBake starts its own hash equivalence server/m);
    expect(fake.calls()).toBe(1);
  });

  it('BB_HASHSERVE = "auto" read from the conf files only: both the value and the socket BitBake uses', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    appendFileSync(join(ex.topdir, 'conf', 'local.conf'), 'BB_HASHSERVE = "auto"\n');
    const args = ['status', '-B', ex.topdir, '--no-bitbake'];
    const s = JSON.parse((await runRambake([...args, '--json'])).stdout);
    expect(s.vars.BB_HASHSERVE).toEqual({
      value: 'auto',
      source: 'conf',
      file: join(ex.topdir, 'conf', 'local.conf'),
      line: 41,
      note: `BitBake runs its own server at unix://${ex.topdir}/hashserve.sock`,
    });
    const text = (await runRambake(args)).stdout;
    expect(text).toMatch(
      /^ {2}BB_HASHSERVE +auto +conf +conf\/local\.conf:41: BitBake runs its own server at unix:\/\/.*\/hashserve\.sock$/m,
    );
  });

  it('status then doctor pay once for bitbake -e (the cache)', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const fake = fakeBitbake(ex.root);
    const env = { PATH: `${fake.bin}:${process.env.PATH}`, XDG_CACHE_HOME: join(ex.root, 'cache') };
    const status = JSON.parse((await runRambake(['status', '--json', '-B', ex.topdir], { env })).stdout);
    expect(status.vars.MACHINE).toEqual({ value: 'bitbake-machine', source: 'bitbake' });
    const doctor = await runRambake(['doctor', '--json', '-B', ex.topdir], { env });
    expect(JSON.parse(doctor.stdout).topdir).toBe(ex.topdir);
    expect(fake.calls()).toBe(1);
    // Without the cache folder the same two commands pay twice: the count is not a constant.
    const fresh = { ...env, XDG_CACHE_HOME: join(ex.root, 'cache2') };
    await runRambake(['doctor', '--json', '-B', ex.topdir], { env: fresh });
    expect(fake.calls()).toBe(2);
  });
});

describe('status with an event log of a build that said BB_HASHSERVE = "auto"', () => {
  it('reads "None" as unset and says both: the socket BitBake used and the conf\'s "auto"', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    appendFileSync(join(ex.topdir, 'conf', 'local.conf'), 'BB_HASHSERVE = "auto"\n');
    const dir = join(ex.topdir, 'tmp', 'log', 'eventlog');
    mkdirSync(dir, { recursive: true });
    // The named fixture (test/fixtures/records/eventlog-none-hashserve-auto), written after the
    // conf files so that it is fresh; its newer query log has no allvariables line.
    const fixture = copyFixture('records/eventlog-none-hashserve-auto');
    cleanups.push(fixture.cleanup);
    for (const name of ['20251201120000.json', '20251201130000.json'])
      writeFileSync(join(dir, name), readFileSync(join(fixture.path, name)));
    const s = JSON.parse((await runRambake(['status', '--json', '-B', ex.topdir])).stdout);
    expect(s.buildDir.eventLog).toBe(join(dir, '20251201120000.json'));
    expect(s.vars.SSTATE_MIRRORS).toEqual({ source: 'eventlog' });
    expect(s.vars.BB_HASHSERVE).toEqual({ value: 'unix:///home/u/build/hashserve.sock', source: 'eventlog' });
    const d = s.disagreements.find((x: { name: string }) => x.name === 'BB_HASHSERVE');
    expect(d).toMatchObject({
      rambake: { value: 'auto', line: 41 },
      bitbake: 'unix:///home/u/build/hashserve.sock',
    });
    expect(s.notes.join('\n')).not.toMatch(/no allvariables/);
  });
});

describe('rambake status (bitbake-setup layout)', () => {
  it('finds build/ from the setup folder and names the shared site.conf', async () => {
    const fx = copyFixture('builds/bitbake-setup');
    cleanups.push(fx.cleanup);
    const setup = join(fx.path, 'poky-master');
    const r = await runRambake(['status', '--json', '--build-dir', setup]);
    expect(r.exitCode).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.buildDir).toMatchObject({
      layout: 'bitbake-setup',
      topdir: join(setup, 'build'),
      setupDir: setup,
      sharedSiteConf: join(fx.path, 'site.conf'),
    });
    expect(s.vars.TMPDIR).toMatchObject({ value: '/var/tmp/shared-tmp', source: 'conf' });
    expect(s.vars.SSTATE_MIRRORS.value).toMatch(/^file:\/\/.* http/);
    expect(s.vars.SSTATE_MIRRORS.file).toMatch(/fragments\/yocto\/sstate-mirror-cdn.conf$/);
    expect(s.buildDir.confFiles.toolcfg).toBe(join(setup, 'build', 'conf', 'toolcfg.conf'));
  });
});

describe('finding the build directory', () => {
  it('uses $BUILDDIR as oe-init-build-env exports it', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const r = await runRambake(['status', '--json'], { cwd: '/', env: { BUILDDIR: ex.topdir } });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).buildDir.topdir).toBe(ex.topdir);
  });

  it('says what it looked for, in one line, and exits 2', async () => {
    const r = await runRambake(['status'], { cwd: '/' });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe(
      'rambake: not a BitBake build directory: no conf/bblayers.conf in / or any folder above it',
    );
    expect(lines[1]).toMatch(/hint: .*oe-init-build-env/);
  });
});
