import { describe, expect, it } from 'vitest';
import { type Prediction, reconcileVerdict, tooLittle } from '../../src/plan/predict.js';
import { planRamBuild } from '../../src/plan/sizing.js';
import { renderPrediction } from '../../src/report/predict.js';
import { makeColors } from '../../src/text/format.js';
import { GiB, makeBuildDir, makeFacts, makeHistory } from '../plan/fixture.js';

const base: Prediction = {
  schemaVersion: 2,
  target: 'core-image-sato',
  targets: ['core-image-sato'],
  targetsFrom: 'asked',
  predicted: true,
  threads: 8,
  scheduler: 'completion',
  steps: ['webkitgtk'],
  peakBytes: 12 * 2 ** 30,
  peakStep: 'core-image-sato',
  peakRecipes: ['core-image-sato'],
  seconds: 3725,
  perStep: [
    { step: 'webkitgtk', targets: ['webkitgtk'], peakBytes: 9 * 2 ** 30, seconds: 1800 },
    { step: 'core-image-sato', targets: ['core-image-sato'], peakBytes: 12 * 2 ** 30, seconds: 1925 },
  ],
  withoutSteps: { peakBytes: 17 * 2 ** 30, seconds: 3300 },
  tmpfsSize: 14 * 2 ** 30,
  fits: true,
  sources: { graph: 'task-depends.dot', buildstats: ['20261202120000'] },
  coverage: { tasks: 100, timed: 90, sized: 90 },
  notes: [],
};

describe('prediction text', () => {
  it('says the peak, the steps, the comparison and whether it fits', () => {
    expect(renderPrediction(base, makeColors(false))).toEqual([
      'Predicted tmpfs peak for core-image-sato (8 threads, completion scheduler, steps webkitgtk → core-image-sato): 12.0 GiB',
      '  at the peak: core-image-sato',
      '  build time (predicted): 1h 02m',
      '  without steps: 17.0 GiB in 55m 00s',
      '  bitbake webkitgtk        9.00 GiB  30m 00s',
      '  bitbake core-image-sato  12.0 GiB  32m 05s',
      '  fits the 14.0 GiB tmpfs (2.00 GiB to spare)',
      'based on: task-depends.dot; 90/100 tasks timed, 90/100 sized',
    ]);
  });

  it('says by how much it does not fit', () => {
    const lines = renderPrediction({ ...base, tmpfsSize: 10 * 2 ** 30, fits: false }, makeColors(false));
    expect(lines).toContain('  does not fit the 10.0 GiB tmpfs (short by 2.00 GiB)');
  });
});

describe('too little measured', () => {
  const none: Prediction = {
    ...base,
    target: 'hello-data os-release',
    targets: ['hello-data', 'os-release'],
    targetsFrom: 'recorded-run',
    steps: [],
    predicted: false,
    unpredictedWhy:
      'no recorded footprint (record a run with rambake run -- bitbake TARGET); 0 of 36 tasks timed',
    perStep: [],
    peakRecipes: [],
    coverage: { tasks: 36, timed: 0, sized: 0 },
  };
  delete none.peakBytes;
  delete none.seconds;
  delete none.fits;
  delete none.withoutSteps;

  it('0 of 36 tasks timed: no peak, no "fits", and says why', () => {
    expect(tooLittle({ tasks: 36, timed: 0, sized: 0 }, false)).toMatch(/0 of 36 tasks timed/);
    expect(tooLittle({ tasks: 36, timed: 10, sized: 30 }, true)).toMatch(/only 10 of 36 tasks timed/);
    expect(tooLittle({ tasks: 36, timed: 30, sized: 30 }, true)).toBeUndefined();
    const text = renderPrediction(none, makeColors(false)).join('\n');
    expect(text).toMatch(
      /hello-data os-release .*the targets of the recorded run\): not predicted: no recorded footprint/,
    );
    expect(text).not.toMatch(/fits|0 B/);
  });

  const plan = planRamBuild({
    bd: makeBuildDir(),
    facts: makeFacts({ ram: 16 * GiB, cpus: 8 }),
    history: makeHistory(),
    opts: { target: 'core-image-sato' },
    owner: { uid: 1, gid: 1 },
  });

  it('leaves the plan’s verdict alone when nothing was predicted', () => {
    expect(plan.verdict.fits).toBe(false);
    expect(reconcileVerdict(plan, { ...none, tmpfsSize: plan.tmpfs.size })).toBe(plan);
  });

  it('a prediction with a verdict becomes the one verdict of the output', () => {
    const fits = reconcileVerdict(plan, { ...base, tmpfsSize: 14 * GiB, peakBytes: 12 * GiB, fits: true });
    expect(fits.verdict).toMatchObject({ fits: true });
    expect(fits.verdict.text).toMatch(/^fits: predicted peak 12\.0 GiB for core-image-sato/);
    expect(fits.reasons.at(-1)?.text).toContain(plan.verdict.text);
    const not = reconcileVerdict(fits, { ...base, tmpfsSize: 10 * GiB, peakBytes: 12 * GiB, fits: false });
    expect(not.verdict.fits).toBe(false);
  });
});
