// The founding story end to end on the fake BitBake's sato-like build (rm_work on), as a user
// runs it: record one build in a big tmpfs → `plan` (measured) → `steps` → `apply` a tmpfs
// between the stepped peak and the one-go peak → the one-go `run` fails with the tmpfs full and
// rambake says so → `run --steps auto` succeeds with its peak under the size → `report` shows
// both side by side. Real tmpfs mounts, so root only. Each build starts from scratch (no sstate),
// so the stepped build's peak is its own and not a restore.

import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEnv, rambake as rambakeIn, rmWorkBuild } from '../watch/helpers.js';

const MiB = 1024 * 1024;
const isRoot = process.getuid?.() === 0;
// The scenario's own scale (1/100 of core-image-sato's sizes): about 175 MiB at the one-go peak.
// Smaller scales shrink files more than their count, so the many small recipes weigh more
// than the giant and steps gain less.
const TARGET = 'core-image-sato';

if (!isRoot) console.log('story test skipped: not root (it mounts real tmpfs file systems)');

describe.skipIf(!isRoot)('a build too big for the tmpfs, made to fit in steps (fake sato-like)', () => {
  it('record → plan → steps → apply → one go fails → steps fit → report', {
    timeout: 900_000,
  }, async () => {
    const ex = rmWorkBuild();
    const ram = join(ex.topdir, 'ram');
    const env = buildEnv('sato-like', '0.002');
    const rambake = (args: string[]) => rambakeIn(args, ex.topdir, env, 600_000);
    const runJson = async (args: string[]) => {
      const r = await rambake(['run', '--json', '--interval', '0.02', ...args, '--', 'bitbake', TARGET]);
      const summary = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}');
      return { ...r, summary };
    };
    const fromScratch = () => {
      rmSync(join(ex.root, 'sstate-cache'), { recursive: true, force: true });
      for (const name of readdirSync(ram)) rmSync(join(ram, name), { recursive: true, force: true });
    };

    try {
      // 1. The build recorded in a tmpfs big enough for it. (Its peak lasts a millisecond or two
      // at this time scale: rambake reads it as do_rm_work starts, not from its 20 ms samples.)
      const big = await rambake(['apply', '--path', ram, '--size', '1g']);
      expect(big.exitCode, big.stderr).toBe(0);
      const record = await runJson([]);
      expect(record.exitCode, record.stderr).toBe(0);
      const oneGoPeak: number = record.summary.peak.bytes;
      expect(oneGoPeak).toBeGreaterThan(20 * MiB);
      expect(oneGoPeak).toBeLessThan(400 * MiB);
      expect((await rambake(['revert'])).exitCode).toBe(0);

      // 2. plan sizes from that measurement.
      const plan = await rambake(['plan', '--json', '--target', TARGET]);
      const reasons = JSON.parse(plan.stdout).reasons as { topic: string; text: string }[];
      expect(reasons.find((r) => r.topic === 'need')?.text).toMatch(/^measured: TMPDIR peaked at /);

      // 3. steps names the giant from the recorded work-dir peaks.
      const steps = await rambake(['steps', '--json', TARGET]);
      expect(steps.exitCode, steps.stderr).toBe(0);
      expect(JSON.parse(steps.stdout).steps).toContain('webkitgtk');

      // 4. A tmpfs between the peak in steps (the giant alone: about 0.71 of the one-go peak)
      // and the one-go peak: the disk monitor stops new tasks with 10 % left, so the steps must
      // peak under 0.84 of the one-go peak; 0.93 leaves the sampled one-go peak 15 % to be low.
      const size = Math.floor((oneGoPeak * 0.93) / MiB) * MiB;
      const applied = await rambake(['apply', '--path', ram, '--size', `${size / MiB}m`]);
      expect(applied.exitCode, applied.stderr).toBe(0);
      fromScratch();

      // 5. In one go: first stopped before BitBake (the recorded build's deploy folder outlived its
      // tmpfs), then, with that moved aside, BitBake fills the tmpfs and fails; rambake says why.
      const refused = await rambake(['run', '--', 'bitbake', TARGET]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toMatch(/^rambake: doctor error: deploy-outlives-tmpdir/);
      const oneGo = await runJson(['--move-old-deploy']);
      expect(oneGo.exitCode).not.toBe(0);
      // With --json, BitBake's own output goes to stderr.
      expect(oneGo.stderr).toMatch(/No space left on device|disk space monitor action is "(STOPTASKS|HALT)"/);
      expect(oneGo.stderr).toMatch(
        new RegExp(
          `rambake: the build failed with the tmpfs full: TMPDIR peaked at .* of its .* tmpfs; in one go it does not fit\\. Build the giants first, one at a time: rambake run --steps auto -- bitbake ${TARGET}`,
        ),
      );

      // 6. In steps, from scratch again: the giant alone, then the rest; the peak stays under the size.
      fromScratch();
      const stepped = await runJson(['--steps', 'auto', '--move-old-deploy']);
      expect(stepped.exitCode, stepped.stderr).toBe(0);
      expect(stepped.summary.steps.map((s: { command: string[] }) => s.command.join(' '))).toEqual([
        'bitbake webkitgtk',
        `bitbake ${TARGET}`,
      ]);
      const steppedPeak: number = stepped.summary.peak.bytes;
      expect(steppedPeak).toBeLessThan(size);
      expect(steppedPeak).toBeLessThan(oneGoPeak);
      console.log(
        `story: one-go peak ${(oneGoPeak / MiB).toFixed(1)} MiB, tmpfs ${size / MiB} MiB, stepped peak ${(steppedPeak / MiB).toFixed(1)} MiB (${((steppedPeak / oneGoPeak) * 100).toFixed(0)} %)`,
      );

      // 7. The report puts the failed one-go run and the stepped run side by side.
      const report = await rambake(['report', '--json']);
      expect(report.exitCode, report.stderr).toBe(0);
      const cmp = JSON.parse(report.stdout).comparison;
      expect(cmp.stepped.peakBytes).toBeLessThan(size);
      expect(cmp.oneGo.exitCode).not.toBe(0);
      expect(cmp.stepped.steps).toHaveLength(2);

      expect((await rambake(['revert'])).exitCode).toBe(0);
    } finally {
      // The tmpfs goes before the copy that holds its mount point, whatever failed.
      await rambake(['revert', '--force']);
      ex.cleanup();
    }
  });
});
