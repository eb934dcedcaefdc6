// The steps and the outcome of a recorded run, pure: the commands it ran (the header's steps
// of `rambake run --steps`), the targets they built, each step's window and peak from the
// step events, why the build stopped, and one run in brief for the one-go/in-steps comparison.

import type { OwnUsage } from '../timeline/run-baseline.js';
import type { Timeline } from '../timeline/timeline-file.js';
import { commandTargets } from '../timeline/timeline-runs.js';
import type { ReportRunBrief, ReportStep, ReportStop, ReportUsage } from './report-types.js';

/**
 * The commands a run ran: the header's steps, else its command. A run in steps recorded before
 * the header had `steps` joined the commands into one: split it where the program comes again.
 */
export function commandsOf(timeline: Timeline): string[][] {
  const h = timeline.header;
  if (h?.steps && h.steps.length > 0) return h.steps;
  const command = h?.command ?? [];
  if (command.length === 0) return [];
  const out: string[][] = [];
  for (const word of command) {
    if (word === command[0] || out.length === 0) out.push([word]);
    else out[out.length - 1]!.push(word);
  }
  return out;
}

/** The build's targets: those of the last command (a run in steps builds its target last). */
export function targetsOf(timeline: Timeline): string[] {
  const last = commandsOf(timeline).at(-1);
  return last ? commandTargets(last) : [];
}

/**
 * Why the build did not finish, most specific first: BitBake's disk monitor said so, an ENOSPC
 * was seen, or the command exited non-zero. A build stopped this way never "fits".
 */
export function stopOf(
  timeline: Timeline,
  usage: ReportUsage,
  diskmon: readonly string[],
): ReportStop | null {
  if (diskmon.length > 0) return { kind: 'diskmon', message: diskmon[0]! };
  const enospc = usage.enospc[0];
  if (enospc) return { kind: 'enospc', message: enospc.message };
  const code = timeline.summary.exitCode;
  if (code !== undefined && code !== 0) return { kind: 'failed', message: `the command exited with ${code}` };
  for (const e of timeline.events)
    if (e.type === 'step-end' && e.exitCode !== 0)
      return { kind: 'failed', message: `step ${e.index + 1} exited with ${e.exitCode}` };
  return null;
}

/** The steps of a run in steps, each with the run's own peak while it ran. */
export function describeSteps(timeline: Timeline, own: OwnUsage): ReportStep[] {
  const steps = new Map<number, ReportStep>();
  for (const e of timeline.events) {
    if (e.type === 'step-start')
      steps.set(e.index, {
        index: e.index,
        command: e.command,
        targets: commandTargets(e.command),
        startedAt: e.t,
        endedAt: null,
        exitCode: null,
        peakBytes: 0,
        peakAt: null,
      });
    else if (e.type === 'step-end') {
      const step = steps.get(e.index);
      if (step) {
        step.endedAt = e.t;
        step.exitCode = e.exitCode;
      }
    }
  }
  const list = [...steps.values()].sort((a, b) => a.index - b.index);
  // A step's window runs to the next step's start: the watcher's last sample, after the
  // last command ended, still belongs to the last step.
  for (const [i, step] of list.entries()) {
    const end = list[i + 1]?.startedAt ?? Number.POSITIVE_INFINITY;
    for (const s of timeline.samples) {
      if (s.t < step.startedAt || s.t >= end) continue;
      const bytes = own.of(s.t, s.fs.usedBytes);
      if (step.peakAt === null || bytes > step.peakBytes) {
        step.peakBytes = bytes;
        step.peakAt = s.t;
      }
    }
  }
  return list;
}

/** One run as the comparison shows it. */
export function briefRun(
  file: string,
  timeline: Timeline,
  usage: ReportUsage,
  own: OwnUsage,
  diskmon: readonly string[],
): ReportRunBrief {
  const started = timeline.header ? Date.parse(timeline.header.startedAt) : Number.NaN;
  return {
    file,
    startedAt: Number.isFinite(started) ? started : null,
    targets: targetsOf(timeline),
    peakBytes: usage.peakRunBytes,
    exitCode: timeline.summary.exitCode ?? null,
    stopped: stopOf(timeline, usage, diskmon),
    steps: describeSteps(timeline, own),
  };
}
