// `rambake report` after a RAM build that did not fit, on the real BitBake 2.15.2: apply (a
// real tmpfs too small for the tiny layer's giant), the build under `rambake run` stopped by
// BitBake (its disk monitor, from the BB_DISKMON_DIRS apply wrote, or ENOSPC), then revert.
// The report reads the run's buildstats where apply's block put them (rambake-keep/, while
// BUILDSTATS_BASE is back under the disk TMPDIR), names why the build stopped as BitBake said
// it, and never calls that tmpfs one that "fits". Without the recorded run, the same build's
// buildstats alone still give CPU, sstate and per-recipe figures.

import { appendFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runRambake } from '../helpers/exec.js';
import { applyRam, asBuildUser, describeRealBuild, makeTinyBuild, rambakeEnv } from './harness.js';

describeRealBuild('report after a RAM build that did not fit, and revert', () => {
  it('reads buildstats from rambake-keep and says the tmpfs did not hold the build', {
    timeout: 600_000,
  }, async () => {
    // 3 × 48 MiB of the giant (image/, package/, packages-split/) on a 64 MiB tmpfs.
    const build = await makeTinyBuild({ giantMb: 48 });
    const env = rambakeEnv(build);
    const { ram, applied } = await applyRam(build, '64m');
    expect(applied.exitCode, applied.stderr).toBe(0);

    const run = await runRambake(['-B', build.topdir, 'run', '--', ...asBuildUser(build.target)], {
      env,
      timeout: 480_000,
    });
    const said = `${run.stdout}\n${run.stderr}`;
    expect(run.exitCode, said.slice(-3000)).not.toBe(0);
    const diskmon = said.includes(
      'No new tasks can be executed since the disk space monitor action is "STOPTASKS"!',
    );

    // pseudo's server outlives a failed build by its idle timeout, its cwd on the tmpfs: revert
    // refuses while it is there ("stop them, then run rambake revert again"), so wait it out.
    let reverted = await runRambake(['-B', build.topdir, '--json', 'revert'], { env, timeout: 120_000 });
    for (const deadline = Date.now() + 180_000; reverted.exitCode !== 0 && Date.now() < deadline; ) {
      expect(reverted.stderr).toContain('processes use');
      await new Promise((done) => setTimeout(done, 2000));
      reverted = await runRambake(['-B', build.topdir, '--json', 'revert'], { env, timeout: 120_000 });
    }
    expect(reverted.exitCode, reverted.stderr).toBe(0);
    const keep = join(build.topdir, 'rambake-keep', 'buildstats');
    const kept = readdirSync(keep);
    expect(kept).toHaveLength(1);

    const r = await runRambake(['-B', build.topdir, '--no-bitbake', '--json', 'report', '--no-plan'], {
      env,
      timeout: 120_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.run).toMatchObject({
      source: 'run',
      targets: [build.target],
      buildstatsBase: keep,
      builds: kept,
      fs: { fsType: 'tmpfs', mountPoint: ram },
    });
    const why = `${JSON.stringify({ run: report.run, skipped: report.skipped, recs: report.recommendations })}\n${said.slice(-3000)}`;
    console.log(
      `real report: ${report.run.stopped?.kind} (${report.run.stopped?.message}), peak ${(report.usage.peak.bytes / 2 ** 20).toFixed(1)} MiB of 64 MiB, ${report.topByCpu.length} recipes with CPU figures`,
    );
    expect(report.topByCpu.length, why).toBeGreaterThan(0);
    // BitBake's own words, from the console log apply moved to rambake-keep/log.
    if (diskmon)
      expect(report.run.stopped).toEqual({
        kind: 'diskmon',
        message: 'No new tasks can be executed since the disk space monitor action is "STOPTASKS"!',
      });
    else expect(['enospc', 'failed']).toContain(report.run.stopped?.kind);
    const size = report.recommendations.find((x: { rule: string }) => x.rule === 'tmpfs-size');
    expect(size).toMatchObject({ severity: 'warn' });
    expect(size.text).toContain('did not hold it');
    for (const x of report.recommendations) expect(x.text).not.toMatch(/\bfits\b/);

    const text = await runRambake(['-B', build.topdir, '--no-bitbake', 'report', '--no-plan'], {
      env,
      timeout: 120_000,
    });
    expect(text.stdout).toContain(`rambake report: ${build.target}`);
    expect(text.stdout).toMatch(
      diskmon ? /outcome +stopped by BitBake's disk monitor/ : /outcome +(ENOSPC|failed)/,
    );

    // No recorded run: the same build from its buildstats alone.
    rmSync(join(build.topdir, 'rambake', 'runs'), { recursive: true });
    const alone = await runRambake(['-B', build.topdir, '--no-bitbake', '--json', 'report', '--no-plan'], {
      env,
      timeout: 120_000,
    });
    expect(alone.exitCode, alone.stderr).toBe(0);
    const bs = JSON.parse(alone.stdout);
    expect(bs.run).toMatchObject({ source: 'buildstats', file: join(keep, kept[0]!), builds: kept });
    expect(bs.fill.points).toEqual([]);
    expect(bs.topByCpu.map((x: { pn: string }) => x.pn)).toContain('tiny-giant');
    expect(bs.sstate[0].summary).not.toBeNull();
    if (diskmon) expect(bs.run.stopped?.kind).toBe('diskmon');
    // Its console log is the one BitBake wrote there (BB_CONSOLELOG of the block).
    const logs = readdirSync(join(build.topdir, 'rambake-keep', 'log', 'cooker', 'qemux86-64'));
    expect(
      logs.some((l) =>
        readFileSync(join(build.topdir, 'rambake-keep', 'log', 'cooker', 'qemux86-64', l), 'utf8').includes(
          'Sstate summary',
        ),
      ),
    ).toBe(true);
  });

  it("BitBake's disk monitor stops the build: the report names it, from the console log in rambake-keep", {
    timeout: 600_000,
  }, async () => {
    const build = await makeTinyBuild();
    const env = rambakeEnv(build);
    const { ram, applied } = await applyRam(build, '64m');
    expect(applied.exitCode, applied.stderr).toBe(0);
    // Poky's template figure on a 64 MiB tmpfs: STOPTASKS at 1G free starts no task at all.
    // local.conf is read after the block's auto.conf, so this line wins (doctor says so: hence
    // --ignore-doctor to start the build all the same).
    appendFileSync(
      join(build.topdir, 'conf', 'local.conf'),
      `BB_DISKMON_DIRS = "STOPTASKS,${ram},1G,100K"\n`,
    );
    const run = await runRambake(
      ['-B', build.topdir, 'run', '--ignore-doctor', '--', ...asBuildUser(build.target)],
      { env, timeout: 480_000 },
    );
    const said = `${run.stdout}\n${run.stderr}`;
    expect(run.exitCode, said.slice(-3000)).not.toBe(0);
    const message = 'No new tasks can be executed since the disk space monitor action is "STOPTASKS"!';
    expect(said).toContain(message);

    const r = await runRambake(['-B', build.topdir, '--no-bitbake', '--json', 'report', '--no-plan'], {
      env,
      timeout: 120_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    const cooker = join(build.topdir, 'rambake-keep', 'log', 'cooker');
    const logs = readdirSync(cooker, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
    const inLogs = logs.map((l) => `${l}: ${readFileSync(l, 'utf8').includes(message)}`);
    const why = JSON.stringify({ inLogs, run: report.run, skipped: report.skipped });
    expect(report.run.stopped, why).toEqual({ kind: 'diskmon', message });
    expect(report.run.buildstatsBase).toBe(join(build.topdir, 'rambake-keep', 'buildstats'));
    const size = report.recommendations.find((x: { rule: string }) => x.rule === 'tmpfs-size');
    if (size) expect(size.text).toContain("when BitBake's disk monitor stopped the build");
    for (const x of report.recommendations) expect(x.text).not.toMatch(/\bfits\b/);
  });
});
