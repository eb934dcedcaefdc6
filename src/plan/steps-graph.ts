// The task graph of a target for `steps` and `plan --predict`: `bitbake -g TARGET` when BitBake
// is on PATH and no build holds the server (run in a temp folder, so nothing lands in TOPDIR or
// TMPDIR), else a rough graph rebuilt from the recorded task order.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { SimTask } from '../analyze/peak.js';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { type DepGraphFiles, readDepGraph } from '../bitbake/taskdepends.js';
import type { History } from './steps-history.js';

export type GraphSource = 'task-depends.dot' | 'recorded';

/** Runs `bitbake -g target`; undefined (with the reason in notes) when it cannot. */
export async function generateDepGraph(
  bd: BuildDir,
  target: string,
  notes: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<DepGraphFiles | undefined> {
  if (bd.buildRunning) {
    notes.push('a build holds bitbake.lock: the task graph comes from the recorded run instead');
    return undefined;
  }
  const cwd = await mkdtemp(join(tmpdir(), 'rambake-graph-'));
  try {
    const r = await execa('bitbake', ['-g', target], {
      cwd,
      env: { ...env, BUILDDIR: bd.topdir, BBPATH: env.BBPATH ?? bd.topdir },
      reject: false,
      stdin: 'ignore',
      timeout: 15 * 60_000,
    });
    if (r.failed || r.exitCode !== 0) {
      const why =
        r.code === 'ENOENT' ? 'bitbake is not on PATH' : `bitbake -g ${target} failed (${r.exitCode})`;
      notes.push(`${why}: the task graph comes from the recorded run instead`);
      return undefined;
    }
    return await readDepGraph(cwd);
  } catch (err) {
    notes.push(`bitbake -g ${target}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

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
export function simTasksFromDot(dep: DepGraphFiles, history: History): Map<string, SimTask> {
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
 * Without a dot file: each recipe's recorded tasks in a chain, in the order they started, and
 * `<pn>:do_build` after the last; across recipes nothing is known, so the prediction is rough.
 */
export function simTasksFromHistory(history: History, target: string): Map<string, SimTask> {
  const spans = [...history.times.spans].sort((a, b) => a.start - b.start);
  const bytes = history.footprint?.bytes ?? new Map<string, number>();
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
    const id = `${pn}:do_build`;
    if (pn === target) continue;
    tasks.set(id, { id, pn, task: 'do_build', deps: [lastId], seconds: 0, bytes: 0 });
    builds.push(id);
  }
  const targetLast = last.get(target);
  tasks.set(`${target}:do_build`, {
    id: `${target}:do_build`,
    pn: target,
    task: 'do_build',
    deps: [...(targetLast ? [targetLast] : []), ...builds],
    seconds: 0,
    bytes: 0,
  });
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
