// Build big targets in steps: the recipes that hold the most of the tmpfs are built one at a
// time (`bitbake <giant>`) before the target, so they never share it with each other or with
// the crowd of small recipes a full build runs beside them (the 2013 tmpfs thread: a 14 GB
// tmpfs builds anything when big targets go in steps).

import { loadBuildDir } from '../bitbake/builddir.js';
import type { BuildDir, LoadOptions } from '../bitbake/builddir-types.js';
import { UsageError } from '../errors.js';
import { commandTargets } from '../timeline/timeline-runs.js';
import { readHistory, recipeWorkdirPeaks } from './history.js';
import { renderBitbakeCommand } from './mount-commands.js';
import { planFor } from './sizing.js';
import type { History } from './sizing-types.js';
import { type GraphSource, loadTaskGraph, type TaskGraph } from './steps-graph.js';

export const STEPS_SCHEMA_VERSION = 1;

/** Known giants (bitbake-formats.md, "Published figures"), for builds with no history. */
export const KNOWN_GIANTS: readonly RegExp[] = [
  /^linux-yocto/,
  /^virtual\/kernel$/,
  /^gcc-cross-/,
  /^webkitgtk/,
  /^chromium/,
  /^llvm(-native)?$/,
  /^clang(-native)?$/,
  /^rust(-llvm)?(-native)?$/,
  /^qtwebengine/,
];

export interface StepReason {
  step: string;
  text: string;
  bytes?: number;
}

export interface StepsProposal {
  schemaVersion: number;
  /** The targets, as one string (`a b`). */
  target: string;
  targets: string[];
  /** Whether the build needs steps: `rambake plan`'s verdict, so the two never disagree. */
  needed: boolean;
  /** The plan's verdict, which says why. */
  why: string;
  /** Recipes to build one at a time, dependencies first; no target is among them. */
  steps: string[];
  reasons: StepReason[];
  graph: GraphSource;
  notes: string[];
}

export interface ProposeInput {
  targets: readonly string[];
  /** Recipes the targets need, in BitBake's order; only these can be steps. */
  pns: readonly string[];
  /** Measured peak bytes per recipe. */
  peaks: ReadonlyMap<string, number>;
  /** What `peaks` are, for the reasons (default: recorded work-dir peaks). */
  peaksAre?: string;
  /** pn → every PN it needs; empty when unknown. */
  deps: ReadonlyMap<string, ReadonlySet<string>>;
  /** When each recipe started building in the measured build (epoch ms): the tie order. */
  starts?: ReadonlyMap<string, number>;
  /** A recipe is a step when its peak is at least this share of the largest (default 0.25). */
  share?: number;
  maxSteps?: number;
}

/** Pure: which recipes, in which order, and why. */
export function chooseSteps(inp: ProposeInput): { steps: string[]; reasons: StepReason[] } {
  const share = inp.share ?? 0.25;
  const candidate = (pn: string) => inp.pns.includes(pn) && !inp.targets.includes(pn);
  const reasons: StepReason[] = [];
  let picked: string[];
  const measured = [...inp.peaks].filter(([pn, b]) => b > 0 && candidate(pn));
  if (measured.length > 0) {
    measured.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const top = measured[0]![1];
    picked = measured
      .filter(([, b]) => b >= top * share)
      .slice(0, inp.maxSteps ?? 5)
      .map(([pn, b]) => {
        reasons.push({ step: pn, text: inp.peaksAre ?? 'largest measured work-dir peak', bytes: b });
        return pn;
      });
  } else {
    picked = inp.pns.filter((pn) => candidate(pn) && KNOWN_GIANTS.some((re) => re.test(pn)));
    for (const pn of picked) reasons.push({ step: pn, text: 'known giant (no recorded run to measure)' });
  }
  const steps = orderByDependency(picked, inp.deps, inp.starts);
  reasons.sort((a, b) => steps.indexOf(a.step) - steps.indexOf(b.step));
  return { steps, reasons };
}

/**
 * Dependencies first; otherwise by when each started building in the measured build (an order
 * no dependency contradicts, so every graph source gives the same order), then the given order.
 */
export function orderByDependency(
  pns: readonly string[],
  deps: ReadonlyMap<string, ReadonlySet<string>>,
  starts?: ReadonlyMap<string, number>,
): string[] {
  const needs = (a: string, b: string) => deps.get(a)?.has(b) === true;
  const rank = (pn: string) => starts?.get(pn) ?? Infinity;
  // Array sort is stable: without recorded starts the given order (largest first) stays.
  const left = [...pns].sort((a, b) => rank(a) - rank(b));
  const out: string[] = [];
  while (left.length > 0) {
    // The first remaining recipe that needs none of the others.
    const i = left.findIndex((a) => !left.some((b) => b !== a && needs(a, b)));
    out.push(...left.splice(Math.max(i, 0), 1));
  }
  return out;
}

/** `--steps a,b,c` → ['a','b','c']; `auto` is resolved by the caller. */
export function parseStepsList(spec: string): string[] {
  const steps = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (steps.length === 0)
    throw new UsageError(`--steps '${spec}' names no recipe`, 'use --steps auto or --steps a,b,c');
  return steps;
}

/**
 * The commands `rambake run --steps` runs, in order: `bitbake <step>` for each step (behind
 * the same words before bitbake, e.g. `runuser -u builder --`), then the whole command as
 * given (every target and option kept).
 */
export function stepCommands(steps: readonly string[], command: readonly string[]): string[][] {
  const at = command.findIndex((a) => BITBAKE_WORD.test(a));
  const prefix = at < 0 ? ['bitbake'] : command.slice(0, at + 1);
  const targets = commandTargets(command);
  return [...steps.filter((s) => !targets.includes(s)).map((s) => [...prefix, s]), [...command]];
}

/** The word that runs BitBake in a command line: `bitbake`, or a path ending in it. */
export const BITBAKE_WORD = /(^|\/)bitbake$/;

export interface GraphAndHistory {
  bd: BuildDir;
  graph: TaskGraph;
  history: History;
  notes: string[];
}

/** Everything steps and the prediction need about the targets, with notes on what was missing. */
export async function loadGraphAndHistory(
  load: LoadOptions,
  targets: readonly string[],
  opts: { bitbakeGraph?: boolean; history?: History } = {},
): Promise<GraphAndHistory> {
  const bd = await loadBuildDir(load);
  const history = opts.history ?? (await readHistory(bd, { targets }));
  const graph = await loadTaskGraph(bd, history, targets, {
    ...(opts.bitbakeGraph === undefined ? {} : { bitbakeGraph: opts.bitbakeGraph }),
    ...(load.env ? { env: load.env } : {}),
  });
  return { bd, graph, history, notes: [...history.notes, ...graph.notes] };
}

/**
 * Per-recipe sizes, measured only (nothing published): recorded work-dir peaks over every
 * run, else what the footprint says each recipe held. Buildstats alone give none: their `IO
 * wchar` counts the task's own process, not the shell commands it runs (tiny-giant's 8 MiB
 * written by dd never shows), so it is no size; the known giants are named instead.
 */
export function recipePeaks(history: History): { peaks: Map<string, number>; what: string } {
  const workdirs = recipeWorkdirPeaks(history.workdirPeaks);
  if (workdirs.size > 0) return { peaks: workdirs, what: 'largest measured work-dir peak' };
  return {
    peaks: new Map(history.footprint?.recipePeaks ?? []),
    what: 'largest footprint in the recorded run',
  };
}

/** `rambake steps TARGET…`. */
export async function proposeSteps(
  load: LoadOptions,
  targets: readonly string[],
  opts: { bitbakeGraph?: boolean } = {},
): Promise<StepsProposal> {
  if (targets.length === 0) throw new UsageError('steps needs a target', 'rambake steps <target>…');
  const g = await loadGraphAndHistory(load, targets, opts);
  // Without any graph no recipe of the targets is known, so no answer can be given for them.
  if (g.graph.source === 'none') {
    const noDot = g.graph.notes[0]?.replace(/: the task graph comes from the recorded run instead$/, '');
    throw new UsageError(
      `no task graph for ${targets.join(' ')} (${noDot ?? 'bitbake -g not asked'}; no recorded run, no buildstats): with bitbake on PATH (source oe-init-build-env) bitbake -g gives it; or record a build: rambake run -- ${renderBitbakeCommand(targets)}`,
    );
  }
  const sizes = recipePeaks(g.history);
  const { steps, reasons } = chooseSteps({
    targets,
    pns: g.graph.pns,
    peaks: sizes.peaks,
    peaksAre: sizes.what,
    deps: g.graph.deps,
    starts: g.graph.starts,
  });
  // Whether steps are needed is the plan's verdict, from the same history.
  const plan = await planFor(g.bd, targets.length === 1 ? { target: targets[0]! } : {}, load.cwd, g.history);
  return {
    schemaVersion: STEPS_SCHEMA_VERSION,
    target: targets.join(' '),
    targets: [...targets],
    needed: !plan.verdict.fits,
    why: plan.verdict.text,
    steps,
    reasons,
    graph: g.graph.source,
    notes: g.notes,
  };
}

/** `--steps auto|a,b,c` for `rambake run`: the list of recipes to build before the targets. */
export async function resolveSteps(
  load: LoadOptions,
  targets: readonly string[],
  spec: string,
): Promise<string[]> {
  if (spec.trim() === 'auto') return (await proposeSteps(load, targets)).steps;
  return parseStepsList(spec);
}
