// The peak prediction against the measured peak of the fake BitBake's `sato-like` build:
// one training run (4 threads) recorded, then for 2, 4 and 8 threads the predicted peak beside
// the peak measured on a fresh tmpfs (root) or /dev/shm. Goal: within ±15%.

import { predictPeak } from '../src/plan/predict.js';
import { diskHistoryBuild } from '../test/predict/disk-build.js';
import {
  devShmIsTmpfs,
  isRoot,
  makeFakeBuild,
  runMeasured,
  writeTimeline,
} from '../test/predict/fake-build.js';
import type { BenchRow } from './types.js';

const TARGET = 'core-image-sato';
const SIZE = Number(process.env.RAMBAKE_BENCH_PREDICT_SIZE ?? 0.002);

export default async function (): Promise<BenchRow[]> {
  if (!isRoot() && !devShmIsTmpfs()) {
    process.stderr.write('bench predict: skipped (needs root or /dev/shm on a tmpfs)\n');
    return [];
  }
  const train = makeFakeBuild(4, 'sato-like');
  const rows: BenchRow[] = [];
  try {
    const m = await runMeasured(train, [TARGET], { time: 0.001, size: SIZE });
    writeTimeline(train, m, ['bitbake', TARGET]);
    const load = { buildDir: train.topdir, env: train.env, sources: { getvar: false, eventlog: false } };
    for (const threads of [2, 4, 8]) {
      const p = await predictPeak(load, { threads, target: TARGET });
      const b = makeFakeBuild(threads, 'sato-like');
      try {
        const measured = (await runMeasured(b, [TARGET], { time: 0, size: SIZE })).peak;
        // Not predicted (too little measured) shows as NaN and fails the goal.
        const predicted = p.peakBytes ?? Number.NaN;
        const ratio = predicted / measured;
        rows.push({
          bench: 'predict',
          kind: 'measured',
          metric: `sato-like peak, ${threads} threads`,
          value: predicted,
          unit: 'bytes',
          reference: measured,
          refName: 'fake build, measured',
          ratio,
          goal: 'within ±15% of measured',
          ok: Math.abs(ratio - 1) <= 0.15,
        });
      } finally {
        b.cleanup();
      }
    }
  } finally {
    train.cleanup();
  }
  if (isRoot()) rows.push(...(await diskHistoryRows()));
  else process.stderr.write('bench predict: disk-recorded history skipped (needs root for a tmpfs)\n');
  return rows;
}

/** History recorded by `rambake run` on a shared disk, predicted, then measured on a fresh tmpfs. */
async function diskHistoryRows(): Promise<BenchRow[]> {
  const r = await diskHistoryBuild();
  // How sure the prediction said it was: a noisy disk shows as growth TMPDIR does not hold.
  const cal = r.oneGo.calibration;
  const sure = cal
    ? `; replay ${(cal.error * 100).toFixed(1)} %, ${((cal.unexplainedBytes ?? 0) / 2 ** 20).toFixed(0)} MiB unexplained${cal.rough ? ', said rough' : ''}`
    : '; no calibration';
  const row = (what: string, predicted: number, measured: number): BenchRow => ({
    bench: 'predict',
    kind: 'measured',
    metric: `sato-like peak from disk-recorded history, ${what}${sure}`,
    value: predicted,
    unit: 'bytes',
    reference: measured,
    refName: 'same build on a fresh tmpfs, measured',
    ratio: predicted / measured,
    goal: 'within ±15% of measured',
    ok: Math.abs(predicted / measured - 1) <= 0.15,
  });
  return [
    row('one go', r.oneGo.peakBytes ?? Number.NaN, r.measuredOneGo),
    row(`steps ${r.stepped.steps.join(', ')}`, r.stepped.peakBytes ?? Number.NaN, r.measuredStepped),
  ];
}
