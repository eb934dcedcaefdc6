// The prediction against the fake BitBake's real behaviour: one training run of `sato-like`
// (4 threads) is recorded (usage samples → timeline, buildstats → task times); then for 2, 4
// and 8 threads, with and without steps, the predicted peak is compared with the peak
// measured on a fresh tmpfs. The measured runs use time scale 0: the fake decides on its
// virtual clock, so the order of events (and the peak) does not depend on real time.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { predictPeak } from '../../src/plan/predict.js';
import { proposeSteps } from '../../src/plan/steps.js';
import {
  devShmIsTmpfs,
  type FakeBuild,
  isRoot,
  makeFakeBuild,
  runMeasured,
  writeTimeline,
} from './fake-build.js';

const TARGET = 'core-image-sato';
const SIZE = 0.002;
const usable = isRoot() || devShmIsTmpfs();
if (!usable) console.warn('skipped: needs root (a private tmpfs) or /dev/shm on a tmpfs to measure peaks');

describe.skipIf(!usable)('plan --predict on the fake sato-like build', () => {
  let train: FakeBuild;
  let steps: string[] = [];
  const load = () => ({
    buildDir: train.topdir,
    env: train.env,
    sources: { getvar: false, eventlog: false },
  });

  beforeAll(async () => {
    train = makeFakeBuild(4, 'sato-like');
    // Real time matters here: buildstats times are wall times, rounded to 10 ms as BitBake's
    // are, and do_rm_work lasts 0.6 virtual seconds. At 1 ms per virtual second that rounding is
    // 10 virtual seconds and the share rm_work frees was read from too few clean samples: 0.36-
    // 0.96 between runs (true: about 0.55), and the stepped prediction moved: +10 % here with the
    // disk busy, +20 % in one CI run. At 4 ms per virtual second it read 0.58-0.79 and every
    // prediction held within 3 % under that load; a real build's tasks last seconds, far above
    // the rounding.
    const m = await runMeasured(train, [TARGET], { time: 0.004, size: SIZE });
    writeTimeline(train, m, ['bitbake', TARGET]);
    steps = (await proposeSteps(load(), [TARGET])).steps;
  }, 120_000);
  afterAll(() => train?.cleanup(), 60_000);

  it('proposes webkitgtk, the largest recipe, as a step', () => {
    // The training run is sampled in real time: on a loaded machine a few smaller recipes can
    // also pass the quarter-of-the-largest bar, but the giant is always there.
    expect(steps).toContain('webkitgtk');
    expect(steps.length).toBeLessThanOrEqual(5);
  });

  for (const threads of [2, 4, 8]) {
    for (const withSteps of [false, true]) {
      it(`is within 15% of the measured peak at ${threads} threads ${withSteps ? 'with' : 'without'} steps`, async () => {
        const use = withSteps ? steps : [];
        const p = await predictPeak(load(), { threads, steps: use, target: TARGET });
        expect(p.sources.graph).toBe('task-depends.dot');
        expect(p.predicted, p.unpredictedWhy).toBe(true);
        expect(p.coverage.sized).toBeGreaterThan(p.coverage.tasks / 2);
        const b = makeFakeBuild(threads, 'sato-like');
        try {
          let measured = 0;
          for (const step of [...use, TARGET]) {
            measured = Math.max(measured, (await runMeasured(b, [step], { time: 0, size: SIZE })).peak);
          }
          const why = `steps ${use.join(',') || '-'}: predicted ${p.peakBytes} in ${p.peakStep}, measured ${measured}`;
          expect(Math.abs((p.peakBytes ?? 0) / measured - 1), why).toBeLessThanOrEqual(0.15);
        } finally {
          b.cleanup();
        }
      }, 180_000);
    }
  }

  it('steps lower the predicted peak', async () => {
    const p = await predictPeak(load(), { threads: 8, steps: ['auto'], target: TARGET });
    expect(p.steps).toEqual(steps);
    expect(p.withoutSteps).toBeDefined();
    expect(p.peakBytes).toBeLessThan(p.withoutSteps!.peakBytes);
  }, 180_000);
});
