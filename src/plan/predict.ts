// `rambake plan --predict`: the tmpfs peak a build would reach with a given
// BB_NUMBER_THREADS, scheduler and steps, from the task graph, the recorded task times and
// the recorded footprint of each task; and whether it fits the tmpfs.

import { type Scheduler, type StepPeak, simulateSteps } from '../analyze/peak.js';
import { loadBuildDir } from '../bitbake/builddir.js';
import type { LoadOptions } from '../bitbake/builddir-types.js';
import { UsageError } from '../errors.js';
import { isTmpfs, statFs } from '../system/fsstat.js';
import { loadGraphAndHistory, proposeSteps } from './steps.js';
import { findNewestRun, readRecordedRun } from './steps-history.js';

export const PREDICTION_SCHEMA_VERSION = 1;

export interface PredictOptions {
  threads?: number;
  /** Recipes built one at a time before the target; ['auto'] asks `steps` for them. */
  steps?: string[];
  /** tmpfs size in bytes; default: TMPDIR's own size when it is a tmpfs. */
  tmpfsSize?: number;
  /** Default: the target of the recorded run. */
  target?: string;
  scheduler?: Scheduler;
  /** false: never run `bitbake -g` (tests, a busy server). */
  bitbakeGraph?: boolean;
}

export interface Prediction {
  schemaVersion: number;
  target: string;
  threads: number;
  scheduler: Scheduler;
  steps: string[];
  peakBytes: number;
  /** The invocation holding the peak (a step, or the target). */
  peakStep: string;
  /** Recipes running at the peak. */
  peakRecipes: string[];
  /** Predicted wall seconds (sum of the invocations). */
  seconds: number;
  perStep: StepPeak[];
  /** The same build without steps, for comparison (when steps were given). */
  withoutSteps?: { peakBytes: number; seconds: number };
  tmpfsSize?: number;
  fits?: boolean;
  /** What it rests on. */
  sources: { graph: string; timeline?: string; buildstats: string[] };
  coverage: { tasks: number; timed: number; sized: number };
  notes: string[];
}

function targetOf(command: readonly string[] | undefined): string | undefined {
  if (!command) return undefined;
  const args = command.slice(command.findIndex((a) => /(^|\/)bitbake$/.test(a)) + 1);
  return args.filter((a) => !a.startsWith('-')).pop();
}

export async function predictPeak(load: LoadOptions, opts: PredictOptions = {}): Promise<Prediction> {
  const probe = opts.target ? undefined : await recordedTarget(load);
  const target = opts.target ?? probe;
  if (!target) {
    throw new UsageError(
      'no target to predict',
      'name one (rambake plan --predict TARGET) or record a run first',
    );
  }
  const g = await loadGraphAndHistory(load, target, { bitbakeGraph: opts.bitbakeGraph ?? true });
  const notes = [...g.notes];
  const threadsVar = Number.parseInt(g.bd.vars.BB_NUMBER_THREADS.value ?? '', 10);
  const threads = opts.threads ?? (Number.isFinite(threadsVar) && threadsVar > 0 ? threadsVar : 4);
  const scheduler: Scheduler =
    opts.scheduler ?? (g.bd.vars.BB_SCHEDULER.value === 'completion' ? 'completion' : 'speed');
  let steps = opts.steps ?? [];
  if (steps.length === 1 && steps[0] === 'auto') {
    steps = (await proposeSteps(load, target, { bitbakeGraph: opts.bitbakeGraph ?? true })).steps;
  }
  const unknown = steps.filter((s) => !g.tasks.has(`${s}:do_build`));
  if (unknown.length > 0) notes.push(`steps not in the task graph (ignored): ${unknown.join(', ')}`);
  steps = steps.filter((s) => g.tasks.has(`${s}:do_build`) && s !== target);
  const roots = [...steps, target].map((s) => `${s}:do_build`);
  if (!g.tasks.has(`${target}:do_build`)) notes.push(`${target}:do_build is not in the task graph`);

  const sim = { threads, scheduler };
  const r = simulateSteps(g.tasks, roots, sim);
  const start = g.history.footprint?.startBytes ?? 0;
  const tasks = [...g.tasks.values()];
  const prediction: Prediction = {
    schemaVersion: PREDICTION_SCHEMA_VERSION,
    target,
    threads,
    scheduler,
    steps,
    peakBytes: Math.round(r.peakBytes + start),
    peakStep: r.peakStep,
    peakRecipes: r.peakRecipes,
    seconds: r.seconds,
    perStep: r.steps.map((s) => ({ ...s, peakBytes: Math.round(s.peakBytes + start) })),
    sources: {
      graph: g.source,
      ...(g.history.run ? { timeline: g.history.run.file } : {}),
      buildstats: g.history.times.builds,
    },
    coverage: {
      tasks: tasks.length,
      timed: tasks.filter((t) => g.history.times.seconds.has(t.id)).length,
      sized: tasks.filter((t) => g.history.footprint?.bytes.has(t.id)).length,
    },
    notes,
  };
  if (steps.length > 0) {
    const plain = simulateSteps(g.tasks, [`${target}:do_build`], sim);
    prediction.withoutSteps = { peakBytes: Math.round(plain.peakBytes + start), seconds: plain.seconds };
  }
  const size = opts.tmpfsSize ?? (await tmpfsSizeOf(g.bd.paths.tmpdir));
  if (size !== undefined) {
    prediction.tmpfsSize = size;
    prediction.fits = prediction.peakBytes <= size;
  }
  if (!g.history.footprint)
    notes.push('no recorded footprint: the peak cannot be predicted (0 is not a figure)');
  return prediction;
}

/** The target of the newest recorded run (`rambake run -- bitbake TARGET`). */
async function recordedTarget(load: LoadOptions): Promise<string | undefined> {
  const bd = await loadBuildDir(load);
  const file = await findNewestRun(bd.topdir);
  return file ? targetOf((await readRecordedRun(file)).header?.command) : undefined;
}

async function tmpfsSizeOf(dir: string): Promise<number | undefined> {
  const s = await statFs(dir).catch(() => undefined);
  return s && isTmpfs(s) ? s.totalBytes : undefined;
}
