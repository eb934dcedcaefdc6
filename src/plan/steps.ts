// Build big targets in steps: the recipes that hold the most of the tmpfs are built one at a
// time (`bitbake <giant>`) before the target, so they never share it with each other or with
// the crowd of small recipes a full build runs beside them (the 2013 tmpfs thread: a 14 GB
// tmpfs builds anything when big targets go in steps).

import type { SimTask } from '../analyze/peak.js';
import { loadBuildDir } from '../bitbake/builddir.js';
import type { BuildDir, LoadOptions } from '../bitbake/builddir-types.js';
import { UsageError } from '../errors.js';
import {
  type GraphSource,
  generateDepGraph,
  recipeDeps,
  simTasksFromDot,
  simTasksFromHistory,
} from './steps-graph.js';
import { type History, readHistoryFor } from './steps-history.js';

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
  target: string;
  /** Recipes to build one at a time, dependencies first; the target is not among them. */
  steps: string[];
  reasons: StepReason[];
  graph: GraphSource | 'none';
  notes: string[];
}

export interface ProposeInput {
  target: string;
  /** Recipes the target needs (pn-buildlist), in BitBake's order; empty when unknown. */
  pns: readonly string[];
  /** Measured peak bytes per recipe. */
  peaks: ReadonlyMap<string, number>;
  /** pn → every PN it needs; empty when unknown. */
  deps: ReadonlyMap<string, ReadonlySet<string>>;
  /** When no dependencies are known: the recorded first start per recipe (epoch ms). */
  firstStart?: ReadonlyMap<string, number>;
  /** A recipe is a step when its peak is at least this share of the largest (default 0.25). */
  share?: number;
  maxSteps?: number;
}

/** Pure: which recipes, in which order, and why. */
export function chooseSteps(inp: ProposeInput): { steps: string[]; reasons: StepReason[] } {
  const share = inp.share ?? 0.25;
  const inBuild = (pn: string) => inp.pns.length === 0 || inp.pns.includes(pn);
  const reasons: StepReason[] = [];
  let picked: string[];
  const measured = [...inp.peaks].filter(([pn, b]) => pn !== inp.target && b > 0 && inBuild(pn));
  if (measured.length > 0) {
    measured.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const top = measured[0]![1];
    picked = measured
      .filter(([, b]) => b >= top * share)
      .slice(0, inp.maxSteps ?? 5)
      .map(([pn, b]) => {
        reasons.push({ step: pn, text: 'largest measured work-dir peak', bytes: b });
        return pn;
      });
  } else {
    const pool = inp.pns.length > 0 ? inp.pns : [...inp.deps.keys()];
    picked = pool.filter((pn) => pn !== inp.target && KNOWN_GIANTS.some((re) => re.test(pn)));
    for (const pn of picked) reasons.push({ step: pn, text: 'known giant (no recorded run to measure)' });
  }
  const steps = orderByDependency(picked, inp.deps, inp.firstStart);
  reasons.sort((a, b) => steps.indexOf(a.step) - steps.indexOf(b.step));
  return { steps, reasons };
}

/** Dependencies first; ties (and everything, without a graph) by recorded start, then given order. */
export function orderByDependency(
  pns: readonly string[],
  deps: ReadonlyMap<string, ReadonlySet<string>>,
  firstStart?: ReadonlyMap<string, number>,
): string[] {
  const needs = (a: string, b: string) => deps.get(a)?.has(b) === true;
  const rank = (pn: string) => firstStart?.get(pn) ?? Infinity;
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

/** The commands `rambake run --steps` runs, in order: each step, then the target. */
export function stepCommands(steps: readonly string[], target: string, bitbake = 'bitbake'): string[][] {
  return [...steps.filter((s) => s !== target).map((s) => [bitbake, s]), [bitbake, target]];
}

export interface GraphAndHistory {
  bd: BuildDir;
  tasks: Map<string, SimTask>;
  source: GraphSource;
  pns: string[];
  history: History;
  notes: string[];
}

/** Everything steps and the prediction need about a target, with notes on what was missing. */
export async function loadGraphAndHistory(
  load: LoadOptions,
  target: string,
  opts: { bitbakeGraph?: boolean } = {},
): Promise<GraphAndHistory> {
  const bd = await loadBuildDir(load);
  const history = await readHistoryFor(bd.topdir, bd.paths.buildstatsBase);
  const notes = [...history.notes];
  const dep = opts.bitbakeGraph === false ? undefined : await generateDepGraph(bd, target, notes, load.env);
  if (dep)
    return {
      bd,
      tasks: simTasksFromDot(dep, history),
      source: 'task-depends.dot',
      pns: dep.pns,
      history,
      notes,
    };
  const tasks = simTasksFromHistory(history, target);
  const pns = [...new Set([...tasks.values()].map((t) => t.pn))];
  return { bd, tasks, source: 'recorded', pns, history, notes };
}

/** Per-recipe peaks: the watcher's work-dir peaks, else what the footprint says each held. */
export function recipePeaks(history: History): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, bytes] of Object.entries(history.run?.workdirPeaks ?? {})) {
    const pn = key.split('/')[1] ?? key;
    out.set(pn, Math.max(out.get(pn) ?? 0, bytes));
  }
  if (out.size > 0) return out;
  return new Map(history.footprint?.recipePeaks ?? []);
}

/** `rambake steps TARGET`. */
export async function proposeSteps(
  load: LoadOptions,
  target: string,
  opts: { bitbakeGraph?: boolean } = {},
): Promise<StepsProposal> {
  const g = await loadGraphAndHistory(load, target, opts);
  const firstStart = new Map<string, number>();
  for (const s of g.history.times.spans)
    firstStart.set(s.pn, Math.min(firstStart.get(s.pn) ?? Infinity, s.start));
  // With the dot graph, dependencies decide and independent giants go largest first;
  // without it, the recorded start order is the only order known.
  const dot = g.source === 'task-depends.dot';
  const { steps, reasons } = chooseSteps({
    target,
    pns: g.pns,
    peaks: recipePeaks(g.history),
    deps: dot ? recipeDeps(g.tasks) : new Map<string, Set<string>>(),
    ...(dot ? {} : { firstStart }),
  });
  return { schemaVersion: STEPS_SCHEMA_VERSION, target, steps, reasons, graph: g.source, notes: g.notes };
}

/** `--steps auto|a,b,c` for `rambake run`: the list of recipes to build before the target. */
export async function resolveSteps(load: LoadOptions, target: string, spec: string): Promise<string[]> {
  if (spec.trim() === 'auto') return (await proposeSteps(load, target)).steps;
  return parseStepsList(spec);
}
