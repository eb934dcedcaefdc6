// The whole RAM build on the real BitBake, as a user runs it: `sudo rambake apply` on a build
// whose local.conf pins TMPDIR to disk, a real build of the tiny layer under `rambake run`
// (BitBake as the non-root build user), TMPDIR's tmpfs filling while images and buildstats land
// on disk in rambake-keep/, then `sudo rambake revert`: the conf files byte for byte, the tmpfs
// gone, where the output is, and what the next build does. The TMPDIR before apply never
// existed, so revert says the next build parses again and restores from sstate, running only
// tasks that have no sstate object; BitBake then does exactly that, on the disk TMPDIR.

import { existsSync, readdirSync, readFileSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runRambake } from '../helpers/exec.js';
import {
  applyRam,
  asBuildUser,
  bitbakeBuild,
  describeRealBuild,
  makeTinyBuild,
  rambakeEnv,
} from './harness.js';

describeRealBuild('a RAM build with the real BitBake', () => {
  it('apply → run → revert → the next build, as revert said', { timeout: 600_000 }, async () => {
    const build = await makeTinyBuild({ local: 'TMPDIR = "${TOPDIR}/tmp"\n' });
    const env = rambakeEnv(build);
    const localBefore = readFileSync(join(build.topdir, 'conf', 'local.conf'));

    // As root: mount and write the block; BitBake (run as the build dir's owner) confirms it.
    const { ram, applied } = await applyRam(build, '1g');
    expect(applied.exitCode, applied.stderr).toBe(0);
    const report = JSON.parse(applied.stdout);
    expect(report.mount.status).toBe('mounted');
    expect(report.effect.bitbake, JSON.stringify(report.effect)).toMatchObject({ confirmed: true });
    expect(report.conf.diff).toContain(`+TMPDIR:forcevariable = "${ram}"`);

    // The build: rambake watches as root, BitBake runs as the build user (sanity refuses root).
    const run = await runRambake(['-B', build.topdir, '--json', 'run', '--', ...asBuildUser(build.target)], {
      env,
      timeout: 480_000,
    });
    expect(run.exitCode, `${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(summary.exitCode).toBe(0);
    // apply's block keeps the console log on disk (BB_CONSOLELOG under rambake-keep): the watcher
    // followed it there, so it saw the build start and its tasks.
    const runs = join(build.topdir, 'rambake', 'runs');
    const newest = readdirSync(runs)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .at(-1)!;
    const lines = readFileSync(join(runs, newest), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { type: string; log?: string });
    const start = lines.find((l) => l.type === 'build-start');
    expect(start?.log).toContain(join(build.topdir, 'rambake-keep', 'log', 'cooker'));
    expect(lines.filter((l) => l.type === 'task-start').length).toBeGreaterThan(5);
    // TMPDIR really was the tmpfs: BitBake's work is there, and the tmpfs holds it.
    const fs = statfsSync(ram);
    const used = (fs.blocks - fs.bfree) * fs.bsize;
    expect(used).toBeGreaterThan(1024 * 1024);
    expect(existsSync(join(ram, 'stamps'))).toBe(true);
    expect(existsSync(join(build.topdir, 'tmp', 'stamps'))).toBe(false);
    // What must outlive the tmpfs is on disk.
    expect(readdirSync(join(build.topdir, 'rambake-keep', 'buildstats')).length).toBeGreaterThan(0);
    expect(existsSync(join(build.topdir, 'rambake-keep', 'deploy'))).toBe(true);
    // churn pairs the RAM build (buildstats and console log both in rambake-keep) with its log.
    const churnOf = async () => {
      const r = await runRambake(['-B', build.topdir, '--json', 'churn'], { env });
      expect(r.exitCode, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { builds: { name: string; consoleLog: string | null }[] };
    };
    const during = (await churnOf()).builds.at(-1);
    expect(during?.consoleLog).toContain(join(build.topdir, 'rambake-keep', 'log', 'cooker'));

    // pseudo's server outlives the build by its idle timeout with its cwd on the tmpfs: revert
    // waits for it to leave on its own (it refuses at once for any other holder).
    const reverted = await runRambake(['-B', build.topdir, '--json', 'revert'], { env, timeout: 120_000 });
    expect(reverted.exitCode, reverted.stderr).toBe(0);
    expect(readFileSync(join(build.topdir, 'conf', 'local.conf')).equals(localBefore)).toBe(true);
    expect(existsSync(join(build.topdir, 'conf', 'auto.conf'))).toBe(false);
    expect(existsSync(ram)).toBe(false);
    // Where the RAM build's output is: the buildstats and logs where revert says they are.
    const revert = JSON.parse(reverted.stdout);
    const keep = join(build.topdir, 'rambake-keep');
    const kinds = Object.fromEntries(
      (revert.kept as { kind: string; path: string; count: number; bytes: number }[]).map((k) => [k.kind, k]),
    );
    expect(kinds.buildstats).toMatchObject({ path: join(keep, 'buildstats'), count: 1 });
    expect(readdirSync(join(keep, 'buildstats'))).toHaveLength(1);
    expect(kinds['console-logs']).toMatchObject({ path: join(keep, 'log', 'cooker'), count: 1 });
    expect(kinds['event-logs']?.count).toBeGreaterThanOrEqual(1);
    // The tiny target makes packages, not an image: the rest of deploy, no images entry.
    expect(kinds.deploy?.bytes).toBeGreaterThan(0);
    expect(kinds.images).toBeUndefined();
    expect(revert.nextBuild).toMatchObject({ tmpdir: join(build.topdir, 'tmp'), state: 'empty', stamps: 0 });
    expect(revert.nextBuild.text).toContain('parses every recipe again');
    // After revert BUILDSTATS_BASE is back in TMPDIR: churn still finds the RAM build, log and all.
    expect((await churnOf()).builds.map((b) => [b.name, b.consoleLog])).toContainEqual([
      during?.name,
      during?.consoleLog,
    ]);

    // BitBake is back on the disk TMPDIR, empty as revert said: a full parse, setscene tasks
    // restore every task from the RAM build's sstate objects, and the only real tasks are those
    // with no object: each recipe's do_rm_work, cleaning what setscene put back.
    const again = await bitbakeBuild(build);
    expect(again.exitCode, again.stdout.slice(-2000)).toBe(0);
    expect(existsSync(join(build.topdir, 'tmp', 'stamps'))).toBe(true);
    expect(again.stdout).toMatch(/Parsing of \d+ \.bb files complete \(0 cached, \d+ parsed\)/);
    expect(again.stdout).toMatch(/Sstate summary: Wanted (\d+) Local \1 Mirrors 0 Missed 0 /);
    expect(again.stdout).toMatch(/Running setscene task \d+ of \d+/);
    const real = [...again.stdout.matchAll(/NOTE: Running task \d+ of \d+ \(\S+:(do_\w+)\)/g)].map(
      (m) => m[1],
    );
    expect(new Set(real)).toEqual(new Set(['do_rm_work']));
  });
});
