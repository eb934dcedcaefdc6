// One go vs in steps on the real BitBake 2.15.2: the tiny layer built in one go under
// `rambake run` on a real tmpfs, then from scratch again with `rambake run --steps tiny-giant`
// (the giant first, on its own). The stepped run's timeline holds its steps as BitBake ran
// them, and the report shows both runs side by side: each run's peak and outcome, each step's.

import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runRambake } from '../helpers/exec.js';
import {
  applyRam,
  asBuildUser,
  describeRealBuild,
  makeTinyBuild,
  rambakeEnv,
  waitForBitbakeServer,
} from './harness.js';

describeRealBuild('report: one go vs in steps on the real BitBake', () => {
  it('shows both runs and each step', { timeout: 900_000 }, async () => {
    const build = await makeTinyBuild({ giantMb: 16 });
    const env = rambakeEnv(build);
    const { ram, applied } = await applyRam(build, '1g');
    expect(applied.exitCode, applied.stderr).toBe(0);
    const bitbake = asBuildUser(build.target);

    const oneGo = await runRambake(['-B', build.topdir, '--json', 'run', '--', ...bitbake], {
      env,
      timeout: 480_000,
    });
    expect(oneGo.exitCode, oneGo.stderr.slice(-2000)).toBe(0);
    await waitForBitbakeServer(build.topdir);

    // From scratch: the tmpfs emptied (stamps, work, sysroots) and no sstate to restore from.
    for (const name of readdirSync(ram)) rmSync(join(ram, name), { recursive: true, force: true });
    rmSync(join(build.topdir, 'sstate-cache'), { recursive: true, force: true });
    const stepped = await runRambake(
      ['-B', build.topdir, '--json', 'run', '--move-old-deploy', '--steps', 'tiny-giant', '--', ...bitbake],
      { env, timeout: 480_000 },
    );
    expect(stepped.exitCode, stepped.stderr.slice(-2000)).toBe(0);

    const r = await runRambake(['-B', build.topdir, '--no-bitbake', '--json', 'report', '--no-plan'], {
      env,
      timeout: 120_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.run.targets).toEqual([build.target]);
    expect(report.steps.map((s: { targets: string[]; exitCode: number }) => [s.targets, s.exitCode])).toEqual(
      [
        [['tiny-giant'], 0],
        [[build.target], 0],
      ],
    );
    const cmp = report.comparison;
    expect(cmp, JSON.stringify(report.skipped)).not.toBeNull();
    expect(cmp.oneGo.peakBytes).toBeGreaterThan(16 * 2 ** 20);
    expect(cmp.stepped.steps).toHaveLength(2);
    // The giant's step holds at least its file (image/ and package/ copies before rm_work).
    expect(cmp.stepped.steps[0].peakBytes).toBeGreaterThan(16 * 2 ** 20);
    expect(cmp.stepped.peakBytes).toBe(
      Math.max(...cmp.stepped.steps.map((s: { peakBytes: number }) => s.peakBytes)),
    );
    expect(cmp.sizeBytes).toBe(2 ** 30);
    // One buildstats build per step, each found in rambake-keep.
    expect(report.run.builds).toHaveLength(2);
    expect(report.run.buildstatsBase).toBe(join(build.topdir, 'rambake-keep', 'buildstats'));

    const text = await runRambake(['-B', build.topdir, '--no-bitbake', 'report', '--no-plan'], {
      env,
      timeout: 120_000,
    });
    expect(text.stdout).toContain(`rambake report: ${build.target} in 2 steps`);
    expect(text.stdout).toContain(`One go vs in steps: ${build.target}`);
    expect(text.stdout).toMatch(/in steps the peak was \d+% of the one-go peak \(tmpfs size 1\.00 GiB\)/);
  });
});
