// bitbake.lock and `bitbake -g` on the real BitBake 2.15.2.
//   - BitBake's server holds TOPDIR/bitbake.lock (flock) for a second or two after a command and
//     removes it as it lets go: rambake sees "held", then "none".
//   - A bitbake started outside TOPDIR leaves a stale lock: at exit the server looks for
//     `bitbake.lock` relative to its working folder, does not find it ("Lockfile directory gone,
//     exiting") and leaves the file with its dead PID. rambake calls it stale, doctor names it,
//     revert is not blocked by it, and the next BitBake takes it over and removes it.
//   - Right after a bitbake command, `status` and `apply` wait out its lingering server (they had
//     taken it for a running build: BitBake not asked, apply refused); beside a bitbake command
//     still running in TOPDIR they do not wait, and status takes BitBake's cached answer.
//   - `rambake steps` and `plan --predict` run `bitbake -g` in a private folder and leave
//     neither a lock nor pn-buildlist / task-depends.dot in TOPDIR.

import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { assertUnused } from '../../src/apply/revert.js';
import { readLockState, SERVER_LINGER_MS, waitForLockRelease } from '../../src/system/bitbake-lock.js';
import { CLI, runRambake } from '../helpers/exec.js';
import {
  applyRam,
  describeRealBuild,
  ensureBuildUser,
  makeTinyBuild,
  rambakeEnv,
  realCleanup,
  runAsBuildUser,
  type TinyBuild,
} from './harness.js';

/** What a `bitbake -g` started in TOPDIR leaves there besides conf/ and the layer (measured). */
const BITBAKE_STATE = ['bitbake-cookerdaemon.log', 'cache', 'sstate-cache', 'tmp'];
/** What BitBake's server writes into the folder bitbake was started in. */
const WORKING_FOLDER_FILES = ['pn-buildlist', 'task-depends.dot'];
/**
 * Written into the working folder too, by BitBake's shell parser (lib/bb/pysh/pyshyacc.py),
 * when its own lib/bb/pysh is not writable (a tree owned by root, as here): BitBake's, whether
 * the user or rambake's `bitbake -e` started it in TOPDIR.
 */
const PYSH_TABLES = 'pyshtables.py';

const entries = (dir: string) => readdirSync(dir).sort();
const added = (before: string[], dir: string) => entries(dir).filter((e) => !before.includes(e));

/** A folder owned by the build user, removed after the test. */
async function userFolder(prefix: string): Promise<string> {
  const u = await ensureBuildUser();
  const dir = mkdtempSync(join('/tmp', prefix));
  chownSync(dir, u.uid, u.gid);
  realCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function bitbake(build: TinyBuild, args: string[], cwd = build.topdir): Promise<void> {
  const env = cwd === build.topdir ? build.env : { ...build.env, BBPATH: build.topdir };
  const r = await runAsBuildUser(['bitbake', ...args], { cwd, env, timeoutMs: 300_000 });
  expect(r.exitCode, `bitbake ${args.join(' ')}\n${r.stdout.slice(-2000)}\n${r.stderr}`).toBe(0);
}

describeRealBuild('bitbake.lock and bitbake -g with the real BitBake', () => {
  it('after bitbake -e and bitbake -g the lock goes from held to none; what -g writes where', {
    timeout: 300_000,
  }, async () => {
    const build = await makeTinyBuild();
    const before = entries(build.topdir);
    for (const args of [['-e'], ['-g', build.target]]) {
      await bitbake(build, args);
      // The server outlives the client by a second or two, holding the lock.
      const held = readLockState(build.topdir);
      expect(held.state, `${args.join(' ')}: ${held.detail}`).toBe('held');
      expect(held.holder).toBe('bitbake-server');
      expect(held.pid).toBe(Number(readFileSync(join(build.topdir, 'bitbake.lock'), 'utf8').split(/\s/)[0]));
      const after = await waitForLockRelease(build.topdir, 20_000);
      expect(after.state, after.detail).toBe('none');
      expect(existsSync(join(build.topdir, 'bitbake.lock'))).toBe(false);
    }
    const log = readFileSync(join(build.topdir, 'bitbake-cookerdaemon.log'), 'utf8');
    expect(log).toContain('Exiting as we could obtain the lock');
    expect(log).not.toContain('Lockfile directory gone');
    // Started in TOPDIR, bitbake -g writes its graph files there, beside BitBake's own state.
    const made = added(before, build.topdir).filter((e) => e !== PYSH_TABLES);
    expect(made).toEqual([...BITBAKE_STATE, ...WORKING_FOLDER_FILES].sort());
  });

  it('a bitbake started outside TOPDIR leaves a stale lock: ignored, reported, taken over by the next BitBake', {
    timeout: 300_000,
  }, async () => {
    const build = await makeTinyBuild();
    const elsewhere = await userFolder('rambake-elsewhere-');
    const lock = join(build.topdir, 'bitbake.lock');
    await bitbake(build, ['-e'], elsewhere);
    const pid = Number(readFileSync(lock, 'utf8').split(/\s/)[0]);
    for (let i = 0; i < 200 && existsSync(`/proc/${pid}`); i++) await sleep(100);
    expect(existsSync(`/proc/${pid}`), `server ${pid} still running`).toBe(false);

    // BitBake's own account of it, and the file it left.
    const log = readFileSync(join(build.topdir, 'bitbake-cookerdaemon.log'), 'utf8');
    expect(log).toContain('Lockfile directory gone, exiting');
    expect(existsSync(lock)).toBe(true);
    expect(readLockState(build.topdir)).toMatchObject({ state: 'stale', pid, detail: `pid ${pid} gone` });

    // rambake: not a running build; doctor names it; revert's check does not wait for it.
    const env = rambakeEnv(build);
    const status = await runRambake(['-B', build.topdir, '--json', '--no-bitbake', 'status'], { env });
    const report = JSON.parse(status.stdout);
    expect(report.buildDir.buildRunning).toBe(false);
    expect(report.notes).toContain(`stale bitbake.lock (pid ${pid} gone): ignored`);
    const doctor = await runRambake(['-B', build.topdir, '--json', '--no-bitbake', 'doctor'], { env });
    const findings: { id: string; severity: string; message: string }[] = JSON.parse(doctor.stdout).findings;
    expect(findings.find((f) => f.id === 'stale-bitbake-lock')).toMatchObject({
      severity: 'info',
      message: expect.stringContaining(`pid ${pid} gone`),
    });
    const started = Date.now();
    await expect(assertUnused(build.topdir, elsewhere)).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);

    // The next BitBake, started in TOPDIR, takes the stale file over and removes it at exit.
    await bitbake(build, ['-e']);
    expect((await waitForLockRelease(build.topdir, 20_000)).state).toBe('none');
    expect(existsSync(lock)).toBe(false);
  });

  it('rambake steps and plan --predict leave no lock, no graph files, and the user’s own pn-buildlist as it was', {
    timeout: 600_000,
  }, async () => {
    const build = await makeTinyBuild();
    const u = await ensureBuildUser();
    const mine = { 'pn-buildlist': 'my own list\n', 'task-depends.dot': 'digraph mine {}\n' };
    for (const [name, text] of Object.entries(mine)) {
      writeFileSync(join(build.topdir, name), text);
      chownSync(join(build.topdir, name), u.uid, u.gid);
    }
    const temp = await userFolder('rambake-tmp-');
    const env = {
      ...rambakeEnv(build),
      NO_COLOR: '1',
      TMPDIR: temp,
      XDG_CACHE_HOME: join(temp, 'cache'),
    };
    const before = entries(build.topdir);

    // steps as the build dir's owner; plan --predict as root (BitBake then runs as the owner).
    const steps = await runAsBuildUser(
      [process.execPath, CLI, '-B', build.topdir, '--json', 'steps', build.target],
      {
        cwd: build.topdir,
        env,
        timeoutMs: 300_000,
      },
    );
    expect(steps.exitCode, steps.stderr).toBe(0);
    expect(JSON.parse(steps.stdout).graph).toBe('task-depends.dot');
    const plan = await runRambake(
      ['-B', build.topdir, '--json', 'plan', '--predict', '--steps', 'auto', '--target', build.target],
      { env, timeout: 300_000 },
    );
    expect([0, 1], plan.stderr).toContain(plan.exitCode);
    const predicted = JSON.parse(plan.stdout).prediction;
    expect(predicted.notes.join('\n')).not.toMatch(/bitbake -g|bitbake\.lock|recorded run instead/);

    // A few seconds later: no lock, no socket, nothing of rambake's, the user's files intact.
    await sleep(3000);
    expect(readLockState(build.topdir).state).toBe('none');
    const made = added(before, build.topdir).filter((e) => e !== PYSH_TABLES);
    expect(
      made.every((e) => BITBAKE_STATE.includes(e)),
      made.join(' '),
    ).toBe(true);
    for (const [name, text] of Object.entries(mine)) {
      expect(readFileSync(join(build.topdir, name), 'utf8')).toBe(text);
    }
    expect(readdirSync(temp).filter((e) => e.startsWith('rambake-graph-'))).toEqual([]);
    const log = readFileSync(join(build.topdir, 'bitbake-cookerdaemon.log'), 'utf8');
    expect(log).not.toContain('Lockfile directory gone');
  });

  it('status and apply right after a bitbake command wait out its server; beside a running one they do not wait', {
    timeout: 300_000,
  }, async () => {
    const build = await makeTinyBuild();
    const temp = await userFolder('rambake-cache-');
    const env = { ...rambakeEnv(build), XDG_CACHE_HOME: join(temp, 'cache') };
    const status = async () => {
      const r = await runRambake(['-B', build.topdir, '--json', 'status'], { env, timeout: 150_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    await bitbake(build, ['-e']);
    expect(readLockState(build.topdir).state).toBe('held');
    const after = await status();
    expect(after.buildDir.buildRunning).toBe(false);
    expect(after.vars.TMPDIR.source).toBe('bitbake');
    expect(after.notes.join('\n')).not.toMatch(/bitbake\.lock/);

    // A bitbake command working in TOPDIR: held at once, and BitBake's answer from the cache.
    const running = runAsBuildUser(['bitbake', '-e'], {
      cwd: build.topdir,
      env: build.env,
      timeoutMs: 300_000,
    });
    for (let i = 0; i < 200 && readLockState(build.topdir).state !== 'held'; i++) await sleep(50);
    const t0 = Date.now();
    const during = await status();
    expect(Date.now() - t0).toBeLessThan(SERVER_LINGER_MS);
    expect(during.buildDir.buildRunning).toBe(true);
    expect(during.vars.TMPDIR.source).toBe('bitbake');
    expect((await running).exitCode).toBe(0);

    // Its server still holds the lock: apply waits it out instead of refusing.
    expect(readLockState(build.topdir).state).toBe('held');
    const { applied } = await applyRam(build, '256m');
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout).mount.status).toBe('mounted');
  });

  it('rambake revert right after a bitbake command waits out the lingering server instead of refusing', {
    timeout: 300_000,
  }, async () => {
    const build = await makeTinyBuild();
    const env = rambakeEnv(build);
    const { applied } = await applyRam(build, '256m');
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout).mount.status).toBe('mounted');

    await bitbake(build, ['-e']);
    expect(readLockState(build.topdir).state).toBe('held');
    const reverted = await runRambake(['-B', build.topdir, '--json', 'revert'], { env, timeout: 150_000 });
    expect(reverted.exitCode, reverted.stderr).toBe(0);
    expect(JSON.parse(reverted.stdout).mount.status).toBe('unmounted');
    expect(readLockState(build.topdir).state).toBe('none');
  });
});
