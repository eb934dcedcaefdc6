// One go vs in steps, end to end on the fake BitBake's `small` build (rm_work on): a run of
// core-image-minimal in one go, then `rambake run --steps linux-yocto` of the same target; the
// report of the stepped run shows both side by side (text, JSON, HTML), each step with the
// run's own peak while it ran, read from the step events the run wrote into its timeline.
// Needs `npm run build`.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/analyze/report-types.js';
import { readTimeline } from '../../src/timeline/timeline-file.js';
import { buildEnv, rambake, rmWorkBuild, runBuild } from '../watch/helpers.js';

describe('report: one go vs in steps', () => {
  let build: ReturnType<typeof rmWorkBuild>;
  let oneGo = '';
  let stepped = '';
  beforeAll(async () => {
    build = rmWorkBuild();
    const first = await runBuild(build.topdir, 'small');
    expect(first.exitCode, first.stderr).toBe(0);
    oneGo = first.summary.timeline;
    const second = await runBuild(build.topdir, 'small', ['--steps', 'linux-yocto']);
    expect(second.exitCode, second.stderr).toBe(0);
    stepped = second.summary.timeline;
  }, 180_000);
  afterAll(() => build?.cleanup());

  it('the stepped run recorded its steps: header and step events', async () => {
    const t = await readTimeline(stepped);
    expect(t.header?.steps).toEqual([
      ['bitbake', 'linux-yocto'],
      ['bitbake', 'core-image-minimal'],
    ]);
    const events = t.events.filter((e) => e.type === 'step-start' || e.type === 'step-end');
    expect(events.map((e) => `${e.type}:${e.index}`)).toEqual([
      'step-start:0',
      'step-end:0',
      'step-start:1',
      'step-end:1',
    ]);
    // A run in one go writes none.
    expect((await readTimeline(oneGo)).header?.steps).toBeUndefined();
  });

  it('--json: both runs, their peaks, each step; the title names the target', async () => {
    const r = await rambake(['report', '--json', '--no-plan'], build.topdir, buildEnv('small'));
    expect(r.exitCode, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as Report;
    expect(json.run.file).toBe(stepped);
    expect(json.run.targets).toEqual(['core-image-minimal']);
    expect(json.steps.map((s) => [s.index, s.targets, s.exitCode])).toEqual([
      [0, ['linux-yocto'], 0],
      [1, ['core-image-minimal'], 0],
    ]);
    const cmp = json.comparison!;
    expect(cmp.oneGo.file).toBe(oneGo);
    expect(cmp.stepped.file).toBe(stepped);
    expect(cmp.oneGo.peakBytes).toBeGreaterThan(0);
    expect(cmp.stepped.steps).toHaveLength(2);
    // The first step may be too short for a sample (linux-yocto from sstate): the last one is not.
    expect(cmp.stepped.steps[1]!.peakBytes).toBeGreaterThan(0);
    // The run's peak is the fullest of its steps.
    expect(cmp.stepped.peakBytes).toBe(Math.max(...cmp.stepped.steps.map((s) => s.peakBytes)));
    expect(cmp.ratio).toBeCloseTo(cmp.stepped.peakBytes / cmp.oneGo.peakBytes, 2);

    // The one-go run's report finds the stepped one just as well.
    const back = await rambake(['report', '--json', '--no-plan', oneGo], build.topdir, buildEnv('small'));
    const other = JSON.parse(back.stdout) as Report;
    expect(other.steps).toEqual([]);
    expect(other.comparison?.stepped.file).toBe(stepped);
    expect(other.comparison?.oneGo.peakBytes).toBe(cmp.oneGo.peakBytes);
  }, 60_000);

  it('text and HTML show the two runs side by side, step by step', async () => {
    const html = join(build.root, 'compare.html');
    const r = await rambake(['report', '--no-plan', '--html', html], build.topdir, buildEnv('small'));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('rambake report: core-image-minimal in 2 steps');
    expect(r.stdout).toContain('One go vs in steps: core-image-minimal');
    expect(r.stdout).toMatch(/one go +\S+ \S+ +ok/);
    expect(r.stdout).toMatch(/in steps +\S+ \S+ +ok/);
    expect(r.stdout).toMatch(/1 +(\S+ \S+|-) +ok +bitbake linux-yocto/);
    expect(r.stdout).toMatch(/in steps the peak was \d+% of the one-go peak/);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<section id="one-go-vs-in-steps">');
    expect(page).toContain('id="chart-compare"');
    expect(page).toContain('step 2: core-image-minimal');
  }, 60_000);
});
