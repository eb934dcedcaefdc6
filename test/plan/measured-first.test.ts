// plan uses what is measured before published figures, and says which it used: recorded runs,
// else a build that completed on the tmpfs TMPDIR is on now, else the published figures. Step
// sizes come from recorded work-dir peaks before the published kernel figure.

import { describe, expect, it } from 'vitest';
import { planRamBuild } from '../../src/plan/sizing.js';
import type { History } from '../../src/plan/sizing-types.js';
import { GiB, MiB, makeBuildDir, makeFacts, makeHistory, makeRun, TOPDIR } from './fixture.js';

const TMPDIR = `${TOPDIR}/tmp`;

/** Facts with TMPDIR on its own 3 GiB tmpfs holding 77 MB. */
function tmpfsFacts() {
  const facts = makeFacts({ ram: 16 * GiB, cpus: 8 });
  facts.paths.tmpdir = {
    path: TMPDIR,
    exists: true,
    mount: {
      id: 99,
      mountPoint: TMPDIR,
      fsType: 'tmpfs',
      source: 'rambake-x',
      options: [],
      sizeBytes: 3 * GiB,
    },
    fs: { totalBytes: 3 * GiB, freeBytes: 3 * GiB - 77e6, totalInodes: 1e6, freeInodes: 9e5 },
  };
  return facts;
}

const completedOnTmpfs = (completed: boolean, dir = `${TMPDIR}/buildstats/20261203120000`): History => ({
  ...makeHistory(),
  newestBuild: { name: '20261203120000', dir, completed },
});

const plan = (history: History, facts = tmpfsFacts(), target = 'core-image-sato') =>
  planRamBuild({ bd: makeBuildDir(), facts, history, opts: { target }, owner: { uid: 1, gid: 1 } });

describe('plan: measured before published', () => {
  it('a build that completed on the 3 GiB tmpfs TMPDIR is on: sized from it, not from sato’s 27.5 GiB', () => {
    const p = plan(completedOnTmpfs(true));
    expect(p.sources).toMatchObject({ need: 'tmpdir-tmpfs', history: true });
    expect(p.need.bytes).toBe(3 * GiB);
    const need = p.reasons.find((r) => r.topic === 'need')?.text ?? '';
    expect(need).toMatch(/3\.00 GiB tmpfs with 73\.4 MiB used now/);
    expect(need).toContain('20261203120000');
    expect(p.verdict.fits).toBe(true);
    expect(p.verdict.text).toMatch(/measured/);
  });

  it('falls back to published figures, and says so, when that build failed or did not run on the tmpfs', () => {
    for (const h of [
      completedOnTmpfs(false),
      completedOnTmpfs(true, `${TOPDIR}/rambake-keep/buildstats/x`),
    ]) {
      const p = plan(h);
      expect(p.sources).toMatchObject({ need: 'published', published: 'core-image-sato' });
      expect(p.need.bytes).toBe(Math.ceil(22 * GiB * 1.25));
      // The tmpfs and its use are still said, beside the published figure.
      expect(p.reasons.find((r) => r.topic === 'tmpdir')?.text).toMatch(
        /TMPDIR is on a 3\.00 GiB tmpfs with 73\.4 MiB used now, but no build is known to have completed on it/,
      );
    }
  });

  it('recorded runs win over the tmpfs', () => {
    const h = {
      ...makeHistory([makeRun({ peakBytes: 200 * MiB })]),
      newestBuild: completedOnTmpfs(true).newestBuild!,
    };
    const p = plan(h);
    expect(p.sources.need).toBe('recorded-run');
    expect(p.need.bytes).toBe(Math.ceil(200 * MiB * 1.2));
  });
});

describe('plan: the step estimate', () => {
  const small = makeFacts({ ram: 8 * GiB, cpus: 2 });

  it('comes from the largest recorded work-dir peak', () => {
    const run = makeRun({
      peakBytes: 30 * GiB,
      workdirPeaks: { 'qemux86_64-poky-linux/linux-yocto/6.12': 13.6 * MiB, 'x/busybox/1.37': 3 * MiB },
    });
    const p = plan(makeHistory([run], 256 * MiB), small);
    expect(p.verdict.fits).toBe(false);
    expect(p.verdict.text).toMatch(
      /each step needs about 27\.2 MiB \(rough: twice the largest recorded work-dir peak, linux-yocto 13\.6 MiB, not counting what the step builds for it; `rambake plan --predict --steps auto` simulates the steps\)/,
    );
  });

  it('is measured when a stepped run is recorded: its largest step, with the margin', () => {
    const oneGo = makeRun({ peakBytes: 30 * GiB, workdirPeaks: { 'x/webkitgtk/2.50': 2 * GiB } });
    const header = {
      type: 'header' as const,
      schemaVersion: 1,
      startedAt: '2025-11-30T20:00:00Z',
      buildDir: '/home/dev/poky/build',
      tmpdir: '/home/dev/poky/build/tmp',
      tmpfs: { mountPoint: '/home/dev/poky/build/tmp', fsType: 'tmpfs', source: 'rambake-1' },
      host: { memTotal: 16 * GiB, swapTotal: 0, cpus: 2 },
      steps: [
        ['bitbake', 'webkitgtk'],
        ['bitbake', 'core-image-sato'],
      ],
    };
    const stepped = makeRun({
      peakBytes: 10 * GiB,
      header,
      file: '/home/dev/poky/build/rambake/runs/s.jsonl',
    });
    const failed = makeRun({ peakBytes: 12 * GiB, header, enospc: true });
    const p = plan(makeHistory([oneGo, stepped, failed], 256 * MiB), small);
    expect(p.verdict.text).toMatch(
      /about 12\.0 GiB: measured: the stepped run \/home\/dev\/poky\/build\/rambake\/runs\/s\.jsonl peaked at 10\.0 GiB, \+20% margin/,
    );
  });

  it('is the published kernel figure only when nothing was measured, and says so', () => {
    const p = plan(makeHistory(), small);
    expect(p.verdict.text).toMatch(
      /no work dir measured yet: twice a kernel build's 4\.00 GiB \(published\)/,
    );
  });

  it('an asked --size larger than the machine can give is named as such, not as what the machine gives', () => {
    const run = makeRun({ peakBytes: 200 * MiB });
    const p = planRamBuild({
      bd: makeBuildDir(),
      facts: small,
      history: makeHistory([run]),
      opts: { size: 142 * GiB },
      owner: { uid: 1, gid: 1 },
    });
    expect(p.verdict.fits).toBe(false);
    expect(p.verdict.text).toMatch(/the asked 142 GiB tmpfs is more than this machine can give/);
  });
});
