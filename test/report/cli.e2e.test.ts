// `rambake report` end to end on real recorded runs: two fake-BitBake builds of the churn
// scenario under `rambake run` (rm_work on), then the report as text, JSON and HTML.
// Needs `npm run build` (dist/ and the fake BitBake's dist/).

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/analyze/report-types.js';
import { rmWorkBuild, runBuild } from '../watch/helpers.js';
import { ENTRY } from './helpers.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', HOME: process.env.HOME ?? '/root' };
const report = (args: string[], cwd: string) =>
  execa(process.execPath, [ENTRY, 'report', ...args], {
    cwd,
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });

describe('rambake report after rambake run', () => {
  let build: ReturnType<typeof rmWorkBuild>;
  let second = '';
  beforeAll(async () => {
    build = rmWorkBuild();
    expect((await runBuild(build.topdir, 'churn')).exitCode).toBe(0);
    const run = await runBuild(build.topdir, 'churn');
    expect(run.exitCode).toBe(0);
    second = run.summary.timeline;
  }, 120_000);
  afterAll(() => build?.cleanup());

  it('--json reports the newest run with its build, CPU, sstate reuse and churn', async () => {
    const r = await report(['--json', '--no-plan'], build.topdir);
    expect(r.exitCode, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as Report;
    expect(json.schemaVersion).toBe(1);
    expect(json.run.file).toBe(second);
    expect(json.run.builds).toHaveLength(1);
    expect(json.run.exitCode).toBe(0);
    expect(json.fill.points.length).toBeGreaterThan(0);
    expect(json.topByCpu.length).toBeGreaterThan(0);
    expect(json.sstate[0]?.summary?.wanted).toBeGreaterThan(0);
    // Build 2 of the churn scenario restores zlib's and busybox's do_package for nothing.
    expect(json.churn?.builds[0]?.redundant.map((x) => x.pn)).toEqual(expect.arrayContaining(['zlib']));
    expect(json.recommendations.some((x) => x.rule === 'tmpfs-size')).toBe(true);
  }, 60_000);

  it('text by default, and --html writes one self-contained page', async () => {
    const html = join(build.root, 'report.html');
    const r = await report(['--html', html], build.topdir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('Top recipes by CPU time');
    expect(r.stdout).toContain('Recommendations');
    expect(r.stdout).toContain('[plan]');
    expect(r.stdout).toContain(`HTML report: ${html}`);
    expect(existsSync(html)).toBe(true);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<svg class="chart"');
    expect(page).not.toMatch(/https?:\/\//);
  }, 60_000);

  it('a named older run, and a usage error for a missing one', async () => {
    const runs = join(build.topdir, 'rambake', 'runs');
    const ok = await report(['--json', '--no-plan', second], build.root);
    expect(ok.exitCode, ok.stderr).toBe(0);
    const missing = await report([join(runs, 'nope.jsonl')], build.topdir);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no such timeline file');
    // A file that is not a timeline: one line naming the file and its line, exit 2.
    const notes = join(build.root, 'notes.txt');
    writeFileSync(notes, 'hello\n');
    const bad = await report([notes], build.topdir);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trimEnd().split('\n')).toEqual([
      `rambake: ${notes}:1: not a rambake timeline (not a JSON line): "hello"`,
    ]);
  }, 60_000);
});
