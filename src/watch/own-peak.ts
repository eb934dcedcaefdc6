// A run on a disk TMPDIR shares with other files: its peak as report, plan and --predict take
// it (timeline/run-baseline.ts), read back from its timeline once the watcher has stopped. The
// walk of sstate and downloads this costs is cached beside the run (plan/history-outside.ts).

import type { BuildDir } from '../bitbake/builddir-types.js';
import { ownUsageOfRun } from '../plan/history-outside.js';
import { OwnUsage, ownFileSystem, ownPeak } from '../timeline/run-baseline.js';
import { readTimeline } from '../timeline/timeline-file.js';
import { recordedRunFrom } from '../timeline/timeline-runs.js';
import type { TimelineSample } from '../timeline/timeline-types.js';

export interface OwnPeak {
  bytes: number;
  at: number | null;
  baselineBytes: number;
  outsideBytes: number;
}

/**
 * On a shared disk, the run's own peak (read back from its timeline, with the walk of sstate
 * and downloads it costs, cached for plan and report); on a tmpfs of its own, nothing to read
 * unless the samples are wanted for the steps.
 */
export async function ownPeakOf(
  bd: BuildDir,
  timelinePath: string,
  want: { shared: boolean; samples: boolean },
): Promise<{ own: { usage: OwnUsage; samples: TimelineSample[] }; ownPeak?: OwnPeak }> {
  // A timeline that could not be written (a full disk) has no peak to give.
  const timeline =
    want.shared || want.samples ? await readTimeline(timelinePath).catch(() => undefined) : undefined;
  if (!timeline) return { own: { usage: new OwnUsage(0), samples: [] } };
  if (ownFileSystem(timeline.header)) return { own: { usage: new OwnUsage(0), samples: timeline.samples } };
  const run = recordedRunFrom(timeline, timelinePath);
  const usage = await ownUsageOfRun(bd, run).catch(() => new OwnUsage(run.baselineBytes));
  const peak = ownPeak(usage, timeline.samples);
  return {
    own: { usage, samples: timeline.samples },
    ownPeak: { ...peak, baselineBytes: usage.baselineBytes, outsideBytes: usage.outsideBytes },
  };
}
