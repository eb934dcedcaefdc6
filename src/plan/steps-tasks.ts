// The task graph as simulation tasks, from either kind of source: BitBake's task-depends.dot,
// or the task spans of a build (buildstats of the recorded run's builds, the watcher's events,
// or buildstats alone). Pure.

import type { DepGraphFiles } from '../bitbake/taskdepends.js';
import type { TaskSpan } from './footprint.js';
import type { SimTask } from './peak.js';
import type { History } from './sizing-types.js';

/** Typical seconds of a task name, for tasks the recorded builds did not run. */
function typicalSeconds(seconds: ReadonlyMap<string, number>): Map<string, number> {
  const byTask = new Map<string, number[]>();
  for (const [key, s] of seconds) {
    const task = key.slice(key.lastIndexOf(':') + 1);
    const list = byTask.get(task);
    if (list) list.push(s);
    else byTask.set(task, [s]);
  }
  return new Map([...byTask].map(([t, l]) => [t, l.sort((a, b) => a - b)[l.length >> 1] ?? 0]));
}

/** The dot graph as simulation tasks: times from buildstats, bytes from the footprint. */
export function simTasksFromDot(
  dep: DepGraphFiles,
  history: Pick<History, 'times' | 'footprint'>,
): Map<string, SimTask> {
  const { seconds } = history.times;
  const typical = typicalSeconds(seconds);
  const bytes = history.footprint?.bytes ?? new Map<string, number>();
  const tasks = new Map<string, SimTask>();
  const key = (dotId: string) => {
    const t = dep.graph.tasks.get(dotId);
    return t ? `${t.pn}:${t.task}` : dotId;
  };
  for (const t of dep.graph.tasks.values()) {
    const id = `${t.pn}:${t.task}`;
    // A task with no buildstats in a build that ran its recipe was noexec (do_build, …).
    const ranRecipe = seconds.has(`${t.pn}:do_fetch`) || seconds.has(`${t.pn}:do_compile`);
    const s = seconds.get(id) ?? (ranRecipe ? 0 : (typical.get(t.task) ?? 0));
    tasks.set(id, {
      id,
      pn: t.pn,
      task: t.task,
      deps: t.deps.map(key),
      seconds: s,
      bytes: bytes.get(id) ?? 0,
    });
  }
  return tasks;
}

/**
 * Without a dot file: each recipe's tasks in a chain, in the order they started, and
 * `<pn>:do_build` after the last; every target's do_build waits for every other recipe's (the
 * recipes of a build are what its targets needed); across recipes nothing else is known.
 */
export function simTasksFromSpans(
  spansIn: readonly TaskSpan[],
  targets: readonly string[],
  bytes: ReadonlyMap<string, number> = new Map(),
): Map<string, SimTask> {
  const spans = [...spansIn].sort((a, b) => a.start - b.start);
  const tasks = new Map<string, SimTask>();
  const last = new Map<string, string>();
  for (const s of spans) {
    if (s.task.endsWith('_setscene')) continue;
    const id = `${s.pn}:${s.task}`;
    if (tasks.has(id)) continue;
    const prev = last.get(s.pn);
    tasks.set(id, {
      id,
      pn: s.pn,
      task: s.task,
      deps: prev ? [prev] : [],
      seconds: Math.max(0, (s.end - s.start) / 1000),
      bytes: bytes.get(id) ?? 0,
    });
    last.set(s.pn, id);
  }
  const builds: string[] = [];
  for (const [pn, lastId] of last) {
    if (targets.includes(pn)) continue;
    const id = `${pn}:do_build`;
    tasks.set(id, { id, pn, task: 'do_build', deps: [lastId], seconds: 0, bytes: 0 });
    builds.push(id);
  }
  for (const target of targets) {
    const own = last.get(target);
    tasks.set(`${target}:do_build`, {
      id: `${target}:do_build`,
      pn: target,
      task: 'do_build',
      deps: [...(own ? [own] : []), ...builds],
      seconds: 0,
      bytes: 0,
    });
  }
  return tasks;
}

/** Recipe-level dependencies: pn → PNs it needs (directly or not), from task edges. */
export function recipeDeps(tasks: ReadonlyMap<string, SimTask>): Map<string, Set<string>> {
  const direct = new Map<string, Set<string>>();
  for (const t of tasks.values()) {
    const set = direct.get(t.pn) ?? new Set<string>();
    direct.set(t.pn, set);
    for (const d of t.deps) {
      const dpn = tasks.get(d)?.pn;
      if (dpn && dpn !== t.pn) set.add(dpn);
    }
  }
  const all = new Map<string, Set<string>>();
  const visit = (pn: string): Set<string> => {
    const have = all.get(pn);
    if (have) return have;
    const out = new Set<string>();
    all.set(pn, out);
    for (const d of direct.get(pn) ?? []) {
      out.add(d);
      for (const x of visit(d)) out.add(x);
    }
    return out;
  };
  for (const pn of direct.keys()) visit(pn);
  return all;
}

/**
 * When each recipe started building: its do_configure (else do_compile, do_install, its first task),
 * epoch ms. A recipe's configure starts after the sysroot of everything it builds against was
 * populated, so this order never puts a recipe before one it was seen to need.
 */
export function buildStarts(spans: readonly TaskSpan[]): Map<string, number> {
  const order = ['do_configure', 'do_compile', 'do_install'];
  const rank = (task: string) => (order.includes(task) ? order.indexOf(task) : order.length);
  const best = new Map<string, { rank: number; start: number }>();
  for (const s of spans) {
    if (s.task.endsWith('_setscene')) continue;
    const r = rank(s.task);
    const have = best.get(s.pn);
    if (!have || r < have.rank || (r === have.rank && s.start < have.start))
      best.set(s.pn, { rank: r, start: s.start });
  }
  return new Map([...best].map(([pn, b]) => [pn, b.start]));
}
