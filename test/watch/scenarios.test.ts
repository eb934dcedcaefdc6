// Whole fake builds under `rambake run`: every work-dir state is reached for the right recipe.
// Needs `npm run build` (dist/ and the fake BitBake's dist/).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTimeline } from '../../src/timeline/timeline-file.js';
import { buildEnv, listFiles, rambake, rmWorkBuild, runBuild } from './helpers.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

/** workdir key → every state it went through, in order. */
async function statesOf(timeline: string): Promise<Map<string, string[]>> {
  const t = await readTimeline(timeline);
  const out = new Map<string, string[]>();
  for (const e of t.events)
    if (e.type === 'workdir-state') out.set(e.workdir, [...(out.get(e.workdir) ?? []), e.state]);
  return out;
}

describe('rambake run on fake builds', () => {
  it('small: active → waiting-rm-work → cleaned, kernel excluded, work-shared; nothing under TMPDIR', async () => {
    const b = rmWorkBuild();
    cleanup = b.cleanup;
    const { exitCode, summary } = await runBuild(b.topdir, 'small');
    expect(exitCode).toBe(0);
    expect(summary.exitCode).toBe(0);
    const states = await statesOf(summary.timeline);
    const zlib = states.get('core2-64-poky-linux/zlib/1.3.1') ?? [];
    expect(zlib).toContain('active');
    expect(zlib.slice(-3)).toEqual(['waiting-rm-work', 'active', 'cleaned']);
    expect(states.get('x86_64-linux/m4-native/1.4.20')).toContain('waiting-rm-work');
    const byWorkdir = new Map(summary.lingering.map((l) => [l.workdir, l]));
    expect(byWorkdir.get('qemux86_64-poky-linux/linux-yocto/6.12.47+git')).toMatchObject({
      state: 'excluded',
      reason: expect.stringContaining('kernel'),
    });
    expect(byWorkdir.get('core2-64-poky-linux/busybox/1.37.0')?.state).toBe('excluded');
    expect(byWorkdir.get('work-shared/qemux86-64/kernel-source')?.state).toBe('work-shared');
    expect(byWorkdir.has('core2-64-poky-linux/zlib/1.3.1')).toBe(false);
    expect(byWorkdir.get('qemux86_64-poky-linux/linux-yocto/6.12.47+git')?.bytes).toBeGreaterThan(0);
    // The timeline lives under TOPDIR/rambake/runs, and the watcher wrote nothing into TMPDIR.
    expect(summary.timeline.startsWith(join(b.topdir, 'rambake', 'runs'))).toBe(true);
    const tmpFiles = listFiles(join(b.topdir, 'tmp'));
    expect(tmpFiles.filter((f) => f.includes('rambake') || f.endsWith('.jsonl'))).toEqual([]);
    expect(summary.peak.bytes).toBeGreaterThan(0);
    expect(summary.schemaVersion).toBe(1);
  }, 90_000);

  it('fail: the failed recipe is failed, and rambake exits with bitbake’s code', async () => {
    const b = rmWorkBuild();
    cleanup = b.cleanup;
    const { exitCode, summary } = await runBuild(b.topdir, 'fail');
    expect(exitCode).toBe(1);
    const busybox = summary.lingering.find((l) => l.pn === 'busybox');
    expect(busybox).toMatchObject({ state: 'failed', reason: 'do_compile failed' });
  }, 90_000);

  it('version-bump: the older PV left beside the new one is stale', async () => {
    const b = rmWorkBuild();
    cleanup = b.cleanup;
    expect((await runBuild(b.topdir, 'version-bump')).exitCode).toBe(0);
    const second = await runBuild(b.topdir, 'version-bump');
    expect(second.exitCode).toBe(0);
    expect(
      second.summary.lingering.find((l) => l.workdir === 'core2-64-poky-linux/netbase/6.5'),
    ).toMatchObject({
      state: 'stale',
      reason: 'older PV beside 6.6',
    });
    expect(second.summary.lingering.some((l) => l.workdir === 'core2-64-poky-linux/netbase/6.6')).toBe(false);
  }, 120_000);

  it('churn: a cleaned work dir restored by setscene in the next build is refilled', async () => {
    const b = rmWorkBuild();
    cleanup = b.cleanup;
    expect((await runBuild(b.topdir, 'churn')).exitCode).toBe(0);
    const second = await runBuild(b.topdir, 'churn');
    expect(second.exitCode).toBe(0);
    const zlib = second.summary.lingering.find((l) => l.workdir === 'core2-64-poky-linux/zlib/1.3.1');
    expect(zlib?.state).toBe('refilled');
  }, 120_000);

  it('exits with the command’s own code', async () => {
    const b = rmWorkBuild();
    cleanup = b.cleanup;
    const r = await rambake(['run', '--json', '--', 'sh', '-c', 'exit 3'], b.topdir, buildEnv('small'));
    expect(r.exitCode).toBe(3);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!).exitCode).toBe(3);
    expect(existsSync(join(b.topdir, 'rambake', 'runs'))).toBe(true);
  }, 30_000);
});
