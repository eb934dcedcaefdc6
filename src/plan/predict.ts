// `rambake plan --predict`: the tmpfs peak a build would reach with a given
// BB_NUMBER_THREADS, scheduler and steps, from the one task graph (steps-graph.ts), the
// measured task times and the recorded footprint of each task; and whether it fits the tmpfs.
// With too little measured (no recorded footprint, or most tasks never timed) it says so and
// gives no peak and no verdict: 0 bytes is not a figure.

import { loadBuildDir } from '../bitbake/builddir.js';
import type { LoadOptions } from '../bitbake/builddir-types.js';
import { UsageError } from '../errors.js';
import { isTmpfs, statFs } from '../system/fsstat.js';
import { formatBytes } from '../text/format.js';
import { commandTargets } from '../timeline/timeline-runs.js';
import { readHistory } from './history.js';
import { type Scheduler, type SimTask, type StepPeak, simulateSteps } from './peak.js';
import { type Calibration, calibrate, ROUGH_ERROR } from './predict-calibration.js';
import type { History, RamPlan } from './sizing-types.js';
import { loadGraphAndHistory, proposeSteps } from './steps.js';

export const PREDICTION_SCHEMA_VERSION = 2;

/** Below this share of the graph's tasks timed, the prediction is not made. */
export const MIN_TIMED_SHARE = 0.5;

export interface PredictOptions {
  threads?: number;
  /** Recipes built one at a time before the targets; ['auto'] asks `steps` for them. */
  steps?: string[];
  /** tmpfs size in bytes; default: TMPDIR's own size when it is a tmpfs. */
  tmpfsSize?: number;
  /** Default: every target of the newest recorded run. */
  targets?: string[];
  /** One target (the same as `targets: [target]`). */
  target?: string;
  scheduler?: Scheduler;
  /** false: never run `bitbake -g` (tests, a busy server). */
  bitbakeGraph?: boolean;
}

export interface PredictedStep extends StepPeak {
  /** The targets of that bitbake invocation. */
  targets: string[];
}

export interface Prediction {
  schemaVersion: number;
  /** The targets as one string (`a b`). */
  target: string;
  targets: string[];
  /** Named on the command line, or taken from the newest recorded run's command. */
  targetsFrom: 'asked' | 'recorded-run';
  threads: number;
  scheduler: Scheduler;
  steps: string[];
  /** False when too little was measured: no peak, no time and no verdict are given. */
  predicted: boolean;
  /** Why not, when `predicted` is false. */
  unpredictedWhy?: string;
  peakBytes?: number;
  /** The invocation holding the peak (a step, or the targets). */
  peakStep?: string;
  /** Recipes running at the peak. */
  peakRecipes: string[];
  /** Predicted wall seconds (sum of the invocations). */
  seconds?: number;
  perStep: PredictedStep[];
  /** The same build without steps, for comparison (when steps were given). */
  withoutSteps?: { peakBytes: number; seconds: number };
  tmpfsSize?: number;
  /** Only when predicted and a size is known. */
  fits?: boolean;
  /** What it rests on. */
  sources: { graph: string; timeline?: string; buildstats: string[] };
  coverage: { tasks: number; timed: number; sized: number };
  /** How sure: the recorded run replayed against its own measured peak (when predicted). */
  calibration?: Calibration;
  notes: string[];
}

/** The id of the last invocation's root: one target's do_build, or a node waiting for all of them. */
function targetsRoot(tasks: Map<string, SimTask>, targets: readonly string[]): string {
  if (targets.length === 1) return `${targets[0]}:do_build`;
  const pn = targets.join(' ');
  const id = `${pn}:do_build`;
  tasks.set(id, {
    id,
    pn,
    task: 'do_build',
    deps: targets.map((t) => `${t}:do_build`).filter((d) => tasks.has(d)),
    seconds: 0,
    bytes: 0,
  });
  return id;
}

export async function predictPeak(load: LoadOptions, opts: PredictOptions = {}): Promise<Prediction> {
  const asked = opts.targets ?? (opts.target === undefined ? [] : [opts.target]);
  const history = await readHistory(await loadBuildDir(load), { targets: asked });
  const targets = asked.length > 0 ? asked : (history.run?.targets ?? []);
  if (targets.length === 0)
    throw new UsageError(
      'no target to predict: name one, or record a run first',
      'rambake plan --predict --target TARGET (or rambake run -- bitbake TARGET, then rambake plan --predict)',
    );
  const g = await loadGraphAndHistory(load, targets, {
    bitbakeGraph: opts.bitbakeGraph ?? true,
    history,
  });
  const notes = [...g.notes];
  const threadsVar = Number.parseInt(g.bd.vars.BB_NUMBER_THREADS.value ?? '', 10);
  const threads = opts.threads ?? (Number.isFinite(threadsVar) && threadsVar > 0 ? threadsVar : 4);
  const scheduler: Scheduler =
    opts.scheduler ?? (g.bd.vars.BB_SCHEDULER.value === 'completion' ? 'completion' : 'speed');
  const tasks = new Map(g.graph.tasks);
  let steps = opts.steps ?? [];
  if (steps.length === 1 && steps[0] === 'auto') {
    steps = (await proposeSteps(load, targets, { bitbakeGraph: opts.bitbakeGraph ?? true })).steps;
  }
  const unknown = steps.filter((s) => !tasks.has(`${s}:do_build`));
  if (unknown.length > 0) notes.push(`steps not in the task graph (ignored): ${unknown.join(', ')}`);
  steps = steps.filter((s) => tasks.has(`${s}:do_build`) && !targets.includes(s));

  const all = [...tasks.values()];
  const coverage = {
    tasks: all.length,
    timed: all.filter((t) => g.history.times.seconds.has(t.id)).length,
    sized: all.filter((t) => g.history.footprint?.bytes.has(t.id)).length,
  };
  const prediction: Prediction = {
    schemaVersion: PREDICTION_SCHEMA_VERSION,
    target: targets.join(' '),
    targets,
    targetsFrom: asked.length > 0 ? 'asked' : 'recorded-run',
    threads,
    scheduler,
    steps,
    predicted: false,
    peakRecipes: [],
    perStep: [],
    sources: {
      graph: g.graph.source,
      ...(g.history.run ? { timeline: g.history.run.file } : {}),
      buildstats: g.history.times.builds,
    },
    coverage,
    notes,
  };
  const size = opts.tmpfsSize ?? (await tmpfsSizeOf(g.bd.paths.tmpdir));
  if (size !== undefined) prediction.tmpfsSize = size;
  const why = tooLittle(coverage, g.history.footprint !== undefined);
  if (why) {
    prediction.unpredictedWhy = why;
    return prediction;
  }

  const root = targetsRoot(tasks, targets);
  const roots = [...steps.map((s) => `${s}:do_build`), root];
  const sim = { threads, scheduler };
  const start = g.history.footprint?.startBytes ?? 0;
  const r = simulateSteps(tasks, roots, sim);
  Object.assign(prediction, {
    predicted: true,
    peakBytes: Math.round(r.peakBytes + start),
    peakStep: r.peakStep,
    peakRecipes: r.peakRecipes,
    seconds: r.seconds,
    perStep: r.steps.map((s, i) => ({
      ...s,
      peakBytes: Math.round(s.peakBytes + start),
      targets: i < steps.length ? [steps[i]!] : [...targets],
    })),
  });
  if (steps.length > 0) {
    const plain = simulateSteps(tasks, [root], sim);
    prediction.withoutSteps = { peakBytes: Math.round(plain.peakBytes + start), seconds: plain.seconds };
  }
  if (size !== undefined) prediction.fits = (prediction.peakBytes ?? 0) <= size;
  const cal = replayRecordedRun(tasks, g.history, { scheduler, threads });
  if (typeof cal === 'string') notes.push(cal);
  else prediction.calibration = cal;
  return prediction;
}

/** The recorded run replayed with its own threads, steps and targets; a note when it cannot be. */
function replayRecordedRun(
  tasks: Map<string, SimTask>,
  history: History,
  sim: { scheduler: Scheduler; threads: number },
): Calibration | string {
  const { run, footprint } = history;
  if (!run || !footprint) return 'no recorded run to check the prediction against';
  if (footprint.peakBytes <= 0)
    return `the recorded run ${run.file} shows no growth of TMPDIR: the prediction is not checked against it`;
  const missing = run.targets.filter((t) => !tasks.has(`${t}:do_build`));
  if (run.targets.length === 0 || missing.length > 0)
    return `the recorded run's targets (${run.targets.join(' ') || 'none'}) are not all in this task graph: the prediction is not checked against it`;
  // A stepped run records each command; its steps are the targets of all but the last.
  const steps = (run.header?.steps ?? []).slice(0, -1).flatMap((c) => commandTargets(c));
  const roots = [
    ...steps.map((s) => `${s}:do_build`).filter((id) => tasks.has(id)),
    targetsRoot(tasks, run.targets),
  ];
  const threads = run.header?.bbNumberThreads ?? sim.threads;
  return calibrate(tasks, run, { steps, roots, footprint }, { threads, scheduler: sim.scheduler });
}

/** Why the measured data are too little to predict from; undefined when they are enough. */
export function tooLittle(coverage: Prediction['coverage'], footprint: boolean): string | undefined {
  const timed = `${coverage.timed} of ${coverage.tasks} tasks timed`;
  if (coverage.tasks === 0) return 'no task graph (no bitbake -g, no recorded run, no buildstats)';
  if (!footprint) return `no recorded footprint (record a run with rambake run -- bitbake TARGET); ${timed}`;
  if (coverage.timed < coverage.tasks * MIN_TIMED_SHARE)
    return `only ${timed} (at least ${Math.round(MIN_TIMED_SHARE * 100)}% are needed)`;
  return undefined;
}

/**
 * One verdict for one output: when the prediction gives one, it is the plan's verdict too
 * (the plan's own estimate stays in its reasons); otherwise the plan's verdict stands.
 */
export function reconcileVerdict(plan: RamPlan, p: Prediction): RamPlan {
  if (!p.predicted || p.fits === undefined || p.peakBytes === undefined || p.tmpfsSize === undefined)
    return plan;
  const how = `${p.threads} threads${p.steps.length > 0 ? `, steps ${p.steps.join(', ')}` : ''}`;
  const cal = p.calibration;
  const rough = !cal?.rough
    ? ''
    : Math.abs(cal.error) > ROUGH_ERROR
      ? `; rough: replaying the recorded run is off by ${Math.round(cal.error * 100)} %`
      : `; rough: the recorded disk grew ${formatBytes(cal.unexplainedBytes ?? 0)} more than TMPDIR holds`;
  const text = `${
    p.fits
      ? `fits: predicted peak ${formatBytes(p.peakBytes)} for ${p.target} (${how}) in the ${formatBytes(p.tmpfsSize)} tmpfs`
      : `does not fit: predicted peak ${formatBytes(p.peakBytes)} for ${p.target} (${how}) exceeds the ${formatBytes(p.tmpfsSize)} tmpfs; try --steps auto or fewer --threads`
  }${rough}`;
  return {
    ...plan,
    verdict: { fits: p.fits, inSteps: p.fits || plan.verdict.inSteps, text },
    reasons: [
      ...plan.reasons,
      { topic: 'plan-estimate', text: `before the prediction: ${plan.verdict.text}` },
    ],
  };
}

async function tmpfsSizeOf(dir: string): Promise<number | undefined> {
  const s = await statFs(dir).catch(() => undefined);
  return s && isTmpfs(s) ? s.totalBytes : undefined;
}
