// What `rambake revert` says about the next build, checked against the real BitBake 2.15.2:
// apply (a real tmpfs) → a real build of the tiny layer → revert, then the next build on the
// disk TMPDIR. The TMPDIR before apply never existed, so revert says the next build parses
// again and restores from sstate, running only tasks that have no sstate object; BitBake then
// does exactly that. The RAM build's buildstats and logs are where revert says they are.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runRambake } from '../helpers/exec.js';
import { applyRam, bitbakeBuild, describeRealBuild, makeTinyBuild, rambakeEnv } from './harness.js';

describeRealBuild('revert after a real RAM build', () => {
  it('says where the output is and what the next build does, and BitBake does it', {
    timeout: 600_000,
  }, async () => {
    const build = await makeTinyBuild();
    const env = rambakeEnv(build);
    const { ram, applied } = await applyRam(build, '1g');
    expect(applied.exitCode, applied.stderr).toBe(0);
    const first = await bitbakeBuild(build);
    expect(first.exitCode, first.stdout.slice(-2000)).toBe(0);

    const r = await runRambake(['-B', build.topdir, '--json', 'revert'], { env, timeout: 150_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    const keep = join(build.topdir, 'rambake-keep');
    const kinds = Object.fromEntries(
      (report.kept as { kind: string; path: string; count: number; bytes: number }[]).map((k) => [k.kind, k]),
    );
    expect(kinds.buildstats).toMatchObject({ path: join(keep, 'buildstats'), count: 1 });
    expect(readdirSync(join(keep, 'buildstats'))).toHaveLength(1);
    expect(kinds['console-logs']).toMatchObject({ path: join(keep, 'log', 'cooker'), count: 1 });
    expect(kinds['event-logs']?.count).toBeGreaterThanOrEqual(1);
    // The tiny target makes packages, not an image: the rest of deploy, no images entry.
    expect(kinds.deploy?.bytes).toBeGreaterThan(0);
    expect(kinds.images).toBeUndefined();
    expect(report.nextBuild).toMatchObject({ tmpdir: join(build.topdir, 'tmp'), state: 'empty', stamps: 0 });
    expect(existsSync(ram)).toBe(false);

    expect(report.nextBuild.text).toContain('parses every recipe again');

    // BitBake, on the empty disk TMPDIR: a full parse, setscene tasks restore every task from
    // the RAM build's sstate objects, and the only real tasks are those with no object: each
    // recipe's do_rm_work, cleaning what setscene put back.
    const next = await bitbakeBuild(build);
    expect(next.exitCode, next.stdout.slice(-2000)).toBe(0);
    expect(next.stdout).toMatch(/Parsing of \d+ \.bb files complete \(0 cached, \d+ parsed\)/);
    expect(next.stdout).toMatch(/Sstate summary: Wanted (\d+) Local \1 Mirrors 0 Missed 0 /);
    expect(next.stdout).toMatch(/Running setscene task \d+ of \d+/);
    const real = [...next.stdout.matchAll(/NOTE: Running task \d+ of \d+ \(\S+:(do_\w+)\)/g)].map(
      (m) => m[1],
    );
    expect(new Set(real)).toEqual(new Set(['do_rm_work']));
  });
});
