import { describe, expect, it } from 'vitest';
import type { Prediction } from '../../src/plan/predict.js';
import { makeColors } from '../../src/report/format.js';
import { renderPrediction } from '../../src/report/predict.js';

const base: Prediction = {
  schemaVersion: 1,
  target: 'core-image-sato',
  threads: 8,
  scheduler: 'completion',
  steps: ['webkitgtk'],
  peakBytes: 12 * 2 ** 30,
  peakStep: 'core-image-sato',
  peakRecipes: ['core-image-sato'],
  seconds: 3725,
  perStep: [
    { step: 'webkitgtk', peakBytes: 9 * 2 ** 30, seconds: 1800 },
    { step: 'core-image-sato', peakBytes: 12 * 2 ** 30, seconds: 1925 },
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
