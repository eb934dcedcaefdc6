import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { planRamBuild } from '../../src/plan/sizing.js';
import type { PlanOptions } from '../../src/plan/sizing-types.js';
import { GiB, MiB, makeBuildDir, makeFacts, makeHistory, makeRun, TOPDIR } from './fixture.js';

const plan = (
  host: Parameters<typeof makeFacts>[0],
  opts: PlanOptions = {},
  history = makeHistory(),
  bd = makeBuildDir(),
) => planRamBuild({ bd, facts: makeFacts(host), history, opts, owner: { uid: 1000, gid: 1000 } });

describe('planRamBuild without history (published figures)', () => {
  it('16 GB, no swap, 8 CPUs: core-image-sato does not fit, not even in steps', () => {
    const p = plan({ ram: 16 * GiB, cpus: 8 }, { target: 'core-image-sato' });
    // need 22 GiB + 25%; room at 4 jobs (half the CPUs) = 15 − 2 headroom − 4 × 2 GiB
    expect(p.need.bytes).toBe(Math.ceil(22 * GiB * 1.25));
    expect(p.tmpfs.size).toBe(5 * GiB);
    expect(p.verdict).toMatchObject({ fits: false, inSteps: false });
    expect(p.threads).toEqual({ bbNumberThreads: 4, parallelMake: '-j 4', lowered: true });
    expect(p.sources).toMatchObject({ history: false, published: 'core-image-sato' });
    expect(p.reasons.map((r) => r.topic)).toContain('advice');
    expect(p.uncertainty).toMatch(/±30%/);
  });

  it('16 GB, no swap: core-image-minimal fits in steps', () => {
    const p = plan({ ram: 16 * GiB, cpus: 8 }, { target: 'core-image-minimal' });
    expect(p.tmpfs.size).toBe(9 * GiB); // 15 − 2 − 4 jobs × 1 GiB
    expect(p.verdict).toMatchObject({ fits: false, inSteps: true });
    expect(p.verdict.text).toMatch(/rambake steps/);
  });

  it('32 GB with 16 GB swap: sato fits with swap under the tmpfs and 7 jobs', () => {
    const p = plan({ ram: 32 * GiB, swap: 16 * GiB, cpus: 8 }, { target: 'core-image-sato' });
    expect(p.tmpfs.size).toBe(28 * GiB);
    expect(p.swapHelps).toBe(true);
    expect(p.threads).toEqual({ bbNumberThreads: 7, parallelMake: '-j 7', lowered: true });
    expect(p.verdict.fits).toBe(true);
    expect(p.verdict.text).toMatch(/with swap/);
    expect(p.conf).toContain('BB_NUMBER_THREADS = "7"');
    expect(p.conf).toContain('PARALLEL_MAKE = "-j 7"');
  });

  it('64 GB: sato fits in RAM as is; threads untouched and not written', () => {
    const p = plan({ ram: 64 * GiB, cpus: 8 }, { target: 'core-image-sato' });
    expect(p.verdict.fits).toBe(true);
    expect(p.swapHelps).toBe(false);
    expect(p.threads).toEqual({ bbNumberThreads: 8, parallelMake: '-j 8', lowered: false });
    expect(p.conf.some((l) => l.startsWith('BB_NUMBER_THREADS'))).toBe(false);
    expect(p.tmpfs).toEqual({
      path: `${TOPDIR}/tmp-ram`,
      size: 28 * GiB,
      nrInodes: 28 * 65_536,
      scope: 'tmpdir',
    });
    expect(p.reserve).toEqual({ jobs: 8, perJobBytes: 2 * GiB, bytes: 16 * GiB, from: 'published' });
  });

  it('an unknown target uses core-image-sato and says so', () => {
    const p = plan({ ram: 64 * GiB, cpus: 8 }, { target: 'my-image' });
    expect(p.sources.published).toBe('core-image-sato');
    expect(p.reasons.find((r) => r.topic === 'need')?.text).toMatch(/no published figure for "my-image"/);
  });

  it('--ram what-if: a 16 GB machine planned as 64 GB keeps what is in use now', () => {
    const p = plan({ ram: 16 * GiB, cpus: 8, inUse: 3 * GiB }, { ram: 64 * GiB, target: 'core-image-sato' });
    expect(p.verdict.fits).toBe(true);
    const ram = p.reasons.find((r) => r.topic === 'ram')!;
    expect(ram.text).toMatch(/as asked \(--ram/);
    expect(ram.figures).toMatchObject({ ram: 64 * GiB, available: 61 * GiB, inUse: 3 * GiB });
  });

  it('--size is checked, not chosen', () => {
    const small = plan({ ram: 64 * GiB, cpus: 8 }, { size: 20 * GiB });
    expect(small.tmpfs.size).toBe(20 * GiB);
    expect(small.verdict.fits).toBe(false);
    const big = plan({ ram: 64 * GiB, cpus: 8 }, { size: 32 * GiB });
    expect(big.tmpfs.size).toBe(32 * GiB);
    expect(big.verdict.fits).toBe(true);
  });
});

describe('planRamBuild with history', () => {
  it('sizes from the measured peak and the buildstats compile memory', () => {
    const history = makeHistory([makeRun({ peakBytes: 8 * GiB })], 512 * MiB);
    const p = plan({ ram: 16 * GiB, cpus: 8 }, {}, history);
    expect(p.need.bytes).toBe(Math.ceil(8 * GiB * 1.2));
    expect(p.tmpfs.size).toBe(10 * GiB);
    // room at 8 jobs: 15 − 2 − 4 = 9 < 10 → 6 jobs × 512 MiB
    expect(p.threads).toMatchObject({ bbNumberThreads: 6, parallelMake: '-j 6', lowered: true });
    expect(p.reserve).toEqual({ jobs: 6, perJobBytes: 512 * MiB, bytes: 3 * GiB, from: 'buildstats' });
    expect(p.sources).toEqual({ history: true, need: 'recorded-run', runs: 1, buildstats: 1 });
    expect(p.reasons.find((r) => r.topic === 'reserve')?.text).toMatch(
      /90th percentile of ru_maxrss over 40/,
    );
    expect(p.verdict.fits).toBe(true);
    expect(p.reasons.some((r) => r.topic === 'advice')).toBe(false);
  });

  it('measured inodes raise nr_inodes above the per-GiB rule', () => {
    const history = makeHistory([makeRun({ peakBytes: 4 * GiB, peakInodes: 2_000_000 })]);
    const p = plan({ ram: 64 * GiB, cpus: 8 }, {}, history);
    expect(p.tmpfs.nrInodes).toBe(2_400_000);
  });

  it('places a giant recipe on disk with a WORKDIR override, never BASE_WORKDIR', () => {
    const run = makeRun({
      peakBytes: 16 * GiB,
      workdirPeaks: {
        'core2-64-poky-linux/chromium-x11/131.0': 9 * GiB,
        'core2-64-poky-linux/gcc/14.2.0': 2 * GiB,
      },
    });
    const p = plan({ ram: 16 * GiB, cpus: 8 }, {}, makeHistory([run], 512 * MiB));
    expect(p.verdict.fits).toBe(true);
    expect(p.placeOnDisk.map((g) => g.pn)).toEqual(['chromium-x11']);
    expect(p.tmpfs.size).toBe(11 * GiB); // 19.2 GiB − 9 GiB, rounded up
    expect(p.conf).toContain(
      'WORKDIR:pn-chromium-x11 = "${TOPDIR}/rambake-disk/work/${MULTIMACH_TARGET_SYS}/${PN}/${PV}"',
    );
    expect(p.conf.join('\n')).not.toMatch(/BASE_WORKDIR/);
  });

  it('warns about RM_WORK_EXCLUDE recipes with their measured size', () => {
    const run = makeRun({
      peakBytes: 4 * GiB,
      workdirPeaks: { 'core2-64-poky-linux/busybox/1.37.0': 700 * MiB },
    });
    const bd = makeBuildDir({ rmWorkExclude: ['busybox'] });
    const p = plan({ ram: 64 * GiB, cpus: 8 }, {}, makeHistory([run]), bd);
    expect(p.rmWorkExclude).toEqual([expect.objectContaining({ pn: 'busybox', bytes: 700 * MiB })]);
    expect(p.rmWorkExclude[0]?.text).toMatch(/stays in RAM .*700 MiB/);
  });
});

describe('scope and path', () => {
  it('workdir scope mounts on BASE_WORKDIR and leaves TMPDIR alone', () => {
    const p = plan({ ram: 32 * GiB, cpus: 8 }, { scope: 'workdir' });
    expect(p.tmpfs.path).toBe(`${TOPDIR}/tmp/work`);
    expect(p.conf.some((l) => l.startsWith('TMPDIR'))).toBe(false);
    expect(p.conf.some((l) => l.startsWith('DEPLOY_DIR'))).toBe(false);
    expect(p.reasons.find((r) => r.topic === 'scope')?.text).toMatch(/full copy/);
  });

  it('refuses --path with the workdir scope, and TMPDIR paths BitBake refuses', () => {
    expect(() => plan({ ram: 32 * GiB, cpus: 8 }, { scope: 'workdir', path: '/ram' })).toThrow(UsageError);
    for (const path of ['/ram disk', '/ram+x', '/a/../b', 'relative/ram', '/']) {
      expect(() => plan({ ram: 32 * GiB, cpus: 8 }, { path })).toThrow(UsageError);
    }
    expect(plan({ ram: 64 * GiB, cpus: 8 }, { path: '/mnt/ram' }).tmpfs.path).toBe('/mnt/ram');
  });

  it('mounts with a stable unique source and never noexec', () => {
    const p = plan({ ram: 64 * GiB, cpus: 8 });
    expect(p.mount.source).toMatch(/^rambake-[0-9a-f]{16}$/);
    expect(plan({ ram: 16 * GiB, cpus: 2 }).mount.source).toBe(p.mount.source);
    expect(p.mount.options).toEqual([
      'size=28g',
      'nr_inodes=1835008',
      'mode=0755',
      'uid=1000',
      'gid=1000',
      'noatime',
    ]);
    expect(p.mount.options.join(',')).not.toMatch(/noexec/);
  });
});

describe('world without history', () => {
  it('puts the published giants (chromium, webkitgtk) on disk on a 32 GB machine', () => {
    const p = plan({ ram: 32 * GiB, cpus: 8 }, { target: 'world' });
    expect(p.placeOnDisk.map((g) => g.pn)).toEqual(['chromium-ozone-wayland', 'chromium-x11', 'webkitgtk']);
    expect(p.conf.filter((l) => l.startsWith('WORKDIR:pn-'))).toHaveLength(3);
    expect(p.verdict.fits).toBe(false);
    expect(p.uncertainty).toMatch(/±50%/);
  });

  it('explains a --size as the user’s choice', () => {
    const p = plan({ ram: 64 * GiB, cpus: 8 }, { size: 32 * GiB });
    expect(p.reasons.find((r) => r.topic === 'size')?.text).toMatch(/as asked \(--size\)/);
  });
});
