// The usual reset after a RAM build, on the real BitBake 2.15.2: apply (DEPLOY_DIR on disk in
// rambake-keep/) → a real build → `rm -rf` the tmpfs contents. sstate-control went with the
// tmpfs, the deploy folder did not: `rambake run` starts nothing and says how to go on; started
// anyway (--ignore-doctor), BitBake fails as rambake said, with sstate.bbclass's overlap error,
// and doctor still says so with that failed build's manifests in place;
// `rambake run --move-old-deploy` moves the folder aside (every file kept), doctor is clean, and
// the real build succeeds.

import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runRambake } from '../helpers/exec.js';
import { listFiles } from '../watch/helpers.js';
import {
  applyRam,
  asBuildUser,
  BUILD_USER,
  bitbakeBuild,
  describeRealBuild,
  makeTinyBuild,
  rambakeEnv,
  type TinyBuild,
  waitForBitbakeServer,
} from './harness.js';

/** `rambake run [flags] -- runuser -u <build user> -- bitbake <target>` as root (BitBake refuses root). */
async function rambakeRun(build: TinyBuild, flags: string[]) {
  const r = await runRambake(['-B', build.topdir, 'run', ...flags, '--', ...asBuildUser(build.target)], {
    env: rambakeEnv(build),
    timeout: 480_000,
  });
  await waitForBitbakeServer(build.topdir);
  return r;
}

async function doctorIds(build: TinyBuild): Promise<string[]> {
  const d = await runRambake(['-B', build.topdir, '--json', 'doctor'], {
    env: rambakeEnv(build),
    timeout: 120_000,
  });
  return (JSON.parse(d.stdout).findings as { id: string }[]).map((f) => f.id);
}

/** The usual reset: everything in the tmpfs removed, the mount kept. */
function emptyTmpfs(ram: string): void {
  for (const name of readdirSync(ram)) rmSync(join(ram, name), { recursive: true, force: true });
}

describeRealBuild('DEPLOY_DIR after the tmpfs is emptied, on the real BitBake', () => {
  it('run refuses, BitBake would fail, --move-old-deploy lets the build through', {
    timeout: 900_000,
  }, async () => {
    const build = await makeTinyBuild();
    const { ram, applied } = await applyRam(build, '1g');
    expect(applied.exitCode, applied.stderr).toBe(0);
    const first = await bitbakeBuild(build);
    expect(first.exitCode, first.stdout.slice(-2000)).toBe(0);
    const deploy = join(build.topdir, 'rambake-keep', 'deploy');
    const files = listFiles(deploy).sort();
    expect(files.some((f) => f.startsWith('deb/'))).toBe(true);

    emptyTmpfs(ram);
    expect(await doctorIds(build)).toContain('deploy-outlives-tmpdir');

    // Refused before BitBake: the tmpfs stays empty.
    const refused = await rambakeRun(build, []);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^rambake: doctor error: deploy-outlives-tmpdir: DEPLOY_DIR /);
    expect(refused.stderr).toContain(
      `rambake: to move it aside and build: rambake run --move-old-deploy -- /usr/sbin/runuser -u ${BUILD_USER} -- bitbake ${build.target}`,
    );
    expect(refused.stderr).toMatch(/the build was not started: this error makes it fail/);
    expect(readdirSync(ram)).toEqual([]);

    // rambake was right: started anyway, the real build fails on the old files.
    const forced = await rambakeRun(build, ['--ignore-doctor']);
    expect(forced.exitCode, forced.stdout.slice(-2000)).not.toBe(0);
    expect(`${forced.stdout}\n${forced.stderr}`).toMatch(
      /is trying to install files into a shared area when those files already exist/,
    );

    // The failed build left sstate manifests of its own: the old files are still nobody's.
    expect(await doctorIds(build)).toContain('deploy-outlives-tmpdir');

    // The fix, from the state a user is in after a reset (the failed attempt's leftovers gone too).
    emptyTmpfs(ram);
    const before = listFiles(deploy).sort();
    expect(before).toEqual(expect.arrayContaining(files));
    const fixed = await rambakeRun(build, ['--move-old-deploy']);
    expect(fixed.exitCode, `${fixed.stderr}\n${fixed.stdout.slice(-2000)}`).toBe(0);
    const moved = /rambake: moved the old DEPLOY_DIR aside, nothing deleted: (\S+) → (\S+) \(/.exec(
      fixed.stderr,
    );
    expect(moved?.[1]).toBe(deploy);
    expect(moved?.[2]).toMatch(/\/rambake-keep\/deploy\.old-\d{8}-\d{6}$/);
    // Every file of the old deploy folder is in the folder it was moved to.
    expect(listFiles(moved?.[2] ?? '').sort()).toEqual(before);
    expect(listFiles(deploy).some((f) => f.startsWith('deb/'))).toBe(true);
    expect(await doctorIds(build)).not.toContain('deploy-outlives-tmpdir');
  });
});
