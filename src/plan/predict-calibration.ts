// How sure a prediction is, measured rather than asserted: the recorded run the footprint came
// from is replayed through the same simulation with its own configuration (its threads, its
// steps, its targets) and compared with the peak that run measured (its growth above the
// baseline when TMPDIR shared a disk). Pure: tasks, roots and the run come in as data.

import type { RecordedRun } from '../timeline/timeline-runs.js';
import type { Footprint } from './footprint.js';
import { type SimOptions, type SimTask, simulateSteps } from './peak.js';

/** Beyond this replay error the prediction is called rough. */
export const ROUGH_ERROR = 0.15;
/**
 * Beyond this share of the recorded peak, growth on a shared disk that TMPDIR does not hold makes
 * the prediction rough (other writers on the disk). A quiet disk here: 1 % on sato-like since the
 * folders the run made in SSTATE_DIR count as written (5 % before); with other writers 12–42 %.
 */
export const ROUGH_UNEXPLAINED = 0.1;

export interface Calibration {
  /** The recorded run (timeline file) replayed. */
  run: string;
  threads: number;
  /** Steps of that run (recipes built alone before its targets). */
  steps: string[];
  targets: string[];
  /** The replay's peak: what the prediction says for that run. */
  replayedPeakBytes: number;
  /** What that run measured: TMPDIR's own peak (growth above the baseline on a shared disk). */
  recordedPeakBytes: number;
  /** replayed / recorded − 1. */
  error: number;
  /** Where the run's TMPDIR was: a file system of its own, or a disk shared with other files. */
  history: 'tmpfs' | 'shared-disk';
  /** What the shared disk held that was not the run's (subtracted); 0 on a tmpfs. */
  baselineBytes: number;
  /** What the run wrote next to TMPDIR on that disk (sstate, downloads; subtracted). */
  outsideBytes: number;
  /**
   * On a shared disk: the run's growth at its end that TMPDIR does not hold now (other writers
   * on the disk, or TMPDIR changed since the run); the prediction may be high by about this much.
   */
  unexplainedBytes?: number;
  /** The replay error is above ROUGH_ERROR, or the unexplained growth above ROUGH_UNEXPLAINED of the recorded peak. */
  rough: boolean;
}

export function calibrate(
  tasks: ReadonlyMap<string, SimTask>,
  run: RecordedRun,
  replay: { steps: string[]; roots: string[]; footprint: Footprint },
  sim: Omit<SimOptions, 'done' | 'startBytes'>,
): Calibration {
  const r = simulateSteps(tasks, replay.roots, sim);
  const replayed = Math.round(r.peakBytes + replay.footprint.startBytes);
  const recorded = replay.footprint.peakBytes;
  const unexplained = replay.footprint.unexplainedBytes;
  const error = recorded > 0 ? replayed / recorded - 1 : Number.POSITIVE_INFINITY;
  return {
    run: run.file,
    threads: sim.threads,
    steps: replay.steps,
    targets: run.targets,
    replayedPeakBytes: replayed,
    recordedPeakBytes: recorded,
    error,
    history: run.onTmpfs ? 'tmpfs' : 'shared-disk',
    baselineBytes: run.baselineBytes,
    outsideBytes: replay.footprint.outsideBytes,
    ...(unexplained === undefined ? {} : { unexplainedBytes: unexplained }),
    rough: !(Math.abs(error) <= ROUGH_ERROR) || Math.abs(unexplained ?? 0) > ROUGH_UNEXPLAINED * recorded,
  };
}
