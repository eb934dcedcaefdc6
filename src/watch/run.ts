// `rambake run`: start the watcher, run each command in order (stop at the first failure),
// stop the watcher, return the summary. The `steps` list is the hook for `--steps`.

import { constants } from 'node:os';
import { execa, type ResultPromise } from 'execa';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { peakRssKiB } from '../system/peak-rss.js';
import { OwnUsage } from '../timeline/run-baseline.js';
import {
  TIMELINE_SCHEMA_VERSION,
  type TimelineLine,
  type TimelineSample,
  type TimelineSummary,
} from '../timeline/timeline-types.js';
import { type OwnPeak, ownPeakOf } from './own-peak.js';
import type { WatchView } from './view.js';
import { startWatch } from './watcher.js';

export interface RunOptions {
  /** Commands (argv arrays) run one after the other. */
  steps: string[][];
  intervalMs: number;
  timelinePath?: string;
  /** Keep stdout for JSON: the commands' stdout goes to stderr. */
  childStdoutToStderr?: boolean;
  onLine?: (line: TimelineLine) => void;
  onSample?: (view: WatchView) => void;
}

export interface StepResult {
  command: string[];
  exitCode: number;
  signal?: string;
  /** The command could not be started (not found, not executable). */
  error?: string;
  startedAt: number;
  endedAt: number;
  /**
   * The fullest the file system got while this command ran (from the samples in its window);
   * on a shared disk the run's own bytes (`ownPeak`'s rule).
   */
  peak?: { bytes: number; inodes: number; at: number };
}

export interface RunSummary extends Omit<TimelineSummary, 'type'> {
  schemaVersion: number;
  /**
   * TMPDIR shared a disk: the run's own peak, as report, plan and --predict take it (the disk's
   * used bytes less what it held before and less the sstate and downloads the run wrote
   * beside TMPDIR by then). `peak` stays the disk's used bytes.
   */
  ownPeak?: OwnPeak;
  timeline: string;
  steps: StepResult[];
  exitCode: number;
  /**
   * The timeline could not be written whole (a full or read-only disk under TOPDIR): why, and
   * how many lines were lost. The run's exit code is then 1 if the command succeeded.
   */
  timelineIncomplete?: { reason: string; linesLost: number };
  /** rambake's own cost while watching. */
  resources: { wallMs: number; cpuUserMs: number; cpuSystemMs: number; maxRssKiB: number };
}

export interface RunHandle {
  done: Promise<RunSummary>;
  /** Forwards a signal to the running command and runs no further step. */
  interrupt(signal: NodeJS.Signals): void;
}

export function startRun(bd: BuildDir, opts: RunOptions): RunHandle {
  let child: ResultPromise | undefined;
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals) => {
    interrupted = true;
    child?.kill(signal);
  };
  const done = (async (): Promise<RunSummary> => {
    const t0 = Date.now();
    const watch = await startWatch(bd, {
      intervalMs: opts.intervalMs,
      command: opts.steps.flat(),
      ...(opts.steps.length > 1 ? { steps: opts.steps } : {}),
      ...(opts.timelinePath ? { timelinePath: opts.timelinePath } : {}),
      ...(opts.onLine ? { onLine: opts.onLine } : {}),
      ...(opts.onSample ? { onSample: opts.onSample } : {}),
    });
    const steps: StepResult[] = [];
    const stepped = opts.steps.length > 1;
    for (const [index, command] of opts.steps.entries()) {
      if (interrupted) break;
      const [file, ...args] = command;
      if (file === undefined) continue;
      const startedAt = Date.now();
      if (stepped) watch.noteStep({ type: 'step-start', t: startedAt, index, command });
      child = execa(file, args, {
        stdio: ['inherit', opts.childStdoutToStderr ? 2 : 'inherit', 'inherit'],
        reject: false,
        cwd: bd.topdir,
      });
      const r = await child;
      child = undefined;
      const step: StepResult = { command, exitCode: exitCodeOf(r), startedAt, endedAt: Date.now() };
      if (stepped)
        watch.noteStep({ type: 'step-end', t: step.endedAt, index, command, exitCode: step.exitCode });
      if (r.signal) step.signal = r.signal;
      if (r.failed && r.exitCode === undefined && !r.signal) step.error = r.shortMessage;
      steps.push(step);
      if (step.exitCode !== 0) break;
    }
    const commandExit = steps.find((s) => s.exitCode !== 0)?.exitCode ?? (interrupted ? 130 : 0);
    const summary = await watch.stop(commandExit);
    // A build that succeeded with a record that did not is not a success: the report would
    // read a cut-off timeline as the whole build.
    const writeError = watch.writeError;
    const exitCode = writeError && commandExit === 0 ? 1 : commandExit;
    const { own, ownPeak: peak } = await ownPeakOf(bd, watch.timelinePath, {
      shared: summary.baselineBytes !== undefined,
      samples: steps.length > 1,
    });
    if (steps.length > 1) addStepPeaks(steps, own.samples, own.usage);
    const usage = process.resourceUsage();
    const { type: _type, ...rest } = summary;
    return {
      schemaVersion: TIMELINE_SCHEMA_VERSION,
      ...rest,
      ...(peak ? { ownPeak: peak } : {}),
      exitCode,
      timeline: watch.timelinePath,
      steps,
      ...(writeError
        ? { timelineIncomplete: { reason: writeError.message, linesLost: watch.linesLost } }
        : {}),
      resources: {
        wallMs: Date.now() - t0,
        cpuUserMs: Math.round(usage.userCPUTime / 1000),
        cpuSystemMs: Math.round(usage.systemCPUTime / 1000),
        maxRssKiB: peakRssKiB(),
      },
    };
  })();
  return { done, interrupt };
}

/** Each step's peak, from the samples taken while it ran (a step shorter than the interval has none). */
export function addStepPeaks(
  steps: StepResult[],
  samples: readonly TimelineSample[],
  own: OwnUsage = new OwnUsage(0),
): void {
  for (const step of steps) {
    for (const s of samples) {
      if (s.t < step.startedAt || s.t > step.endedAt) continue;
      const bytes = own.of(s.t, s.fs.usedBytes);
      if (step.peak === undefined || bytes > step.peak.bytes)
        step.peak = { bytes, inodes: s.fs.usedInodes, at: s.t };
    }
  }
}

/** The shell's convention: the exit code, else 128 + the signal number; 127 when it never started. */
function exitCodeOf(r: { exitCode?: number; signal?: string; failed: boolean }): number {
  if (r.exitCode !== undefined) return r.exitCode;
  if (r.signal) return 128 + (constants.signals[r.signal as NodeJS.Signals] ?? 0);
  return 127;
}
