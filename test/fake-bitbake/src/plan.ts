// Which tasks of the run queue run for real, which are restored by setscene and which are
// already current: BitBake's decision, made from stamps and sstate objects (pure: the file
// system is asked through the predicates).

import type { SstateCounts } from './formats.js';
import { closureOf, PACKAGE_CONSUMERS, type TaskGraph, topoOrder } from './graph.js';
import { sha256 } from './rng.js';
import type { TaskMode } from './types.js';

export interface StampState {
  /** `<STAMP>.<do_x>.<hash>` with the current hash exists. */
  normal: boolean;
  /** `<STAMP>.<do_x>_setscene.<hash>` exists. */
  setscene: boolean;
}

export interface PlanInputs {
  graph: TaskGraph;
  roots: string[];
  hashes: Map<string, string>;
  stamps: (id: string) => StampState;
  objectExists: (id: string) => boolean;
  /** `-f`: run these for real whatever their stamps say. */
  forced: Set<string>;
}

export interface BuildPlan {
  closure: Set<string>;
  modes: Map<string, TaskMode>;
  counts: SstateCounts;
}

/** Task hashes chain through dependencies, so a changed PV re-runs everything above it. */
export function computeHashes(graph: TaskGraph, salt: (id: string) => string): Map<string, string> {
  const hashes = new Map<string, string>();
  for (const t of topoOrder(graph)) {
    const r = t.recipe;
    const depHashes = t.deps.map((d) => hashes.get(d) ?? '').sort();
    hashes.set(t.id, sha256(r.pn, r.pv, r.pr, r.arch, t.task, salt(t.id), ...depHashes));
  }
  return hashes;
}

export function planBuild(inp: PlanInputs): BuildPlan {
  const { graph } = inp;
  const closure = closureOf(graph, inp.roots);
  const modes = new Map<string, TaskMode>();
  const pkgOf = (id: string) => `${graph.get(id)!.recipe.pn}:do_package`;

  // do_package_write_* keeps a normal stamp through rm_work, but BitBake only trusts it while
  // do_package's stamp is there: after rm_work it is restored once by setscene (§5).
  const stampCurrent = (id: string): boolean => {
    const s = inp.stamps(id);
    if (s.setscene) return true;
    if (!s.normal) return false;
    if (graph.get(id)!.task.startsWith('do_package_write_')) {
      const p = inp.stamps(pkgOf(id));
      return p.normal || p.setscene;
    }
    return true;
  };

  // Decide dependents before their dependencies: a task that is neither current nor
  // restorable runs for real only when it is asked for or a real task needs it (BitBake's
  // "covered" tasks are skipped).
  const roots = new Set(inp.roots);
  const runsReal = (id: string) => modes.get(id) === 'real' || modes.get(id) === 'noexec';
  const needed = (id: string) =>
    roots.has(id) || graph.get(id)!.dependents.some((d) => closure.has(d) && runsReal(d));
  const order = topoOrder(graph)
    .filter((t) => closure.has(t.id))
    .reverse();
  for (const t of order) {
    const id = t.id;
    const forced = inp.forced.has(id);
    if (t.task === 'do_package' && !forced) {
      modes.set(id, packageMode(id));
      continue;
    }
    if (!forced && stampCurrent(id)) modes.set(id, 'current');
    else if (!forced && t.sstate && inp.objectExists(id)) modes.set(id, 'setscene');
    else if (needed(id)) modes.set(id, t.noexec ? 'noexec' : 'real');
    else modes.set(id, 'current');
  }

  // do_package is restored only for its consumers (packagedata, package_qa, package_write_*).
  // §11: coverage comes from sstate availability, so a consumer whose object is missing makes
  // BitBake restore do_package even when the consumer's stamp is current and no real consumer
  // runs: a redundant do_package_setscene. Only do_package's normal stamp counts here (rm_work
  // always deletes it), so the restore repeats in every build while the object is missing.
  function packageMode(id: string): TaskMode {
    const pn = graph.get(id)!.recipe.pn;
    const consumers = PACKAGE_CONSUMERS.map((c) => `${pn}:${c}`).filter((c) => closure.has(c));
    if (inp.stamps(id).normal) return 'current';
    const realConsumer = consumers.some((c) => runsReal(c));
    const missing = consumers.some((c) => !inp.objectExists(c));
    if (realConsumer) return inp.objectExists(id) ? 'setscene' : 'real';
    if (missing && inp.objectExists(id)) return 'setscene';
    return roots.has(id) ? 'real' : 'current';
  }

  const counts: SstateCounts = { wanted: 0, local: 0, mirrors: 0, missed: 0, current: 0 };
  for (const id of closure) {
    if (!graph.get(id)!.sstate) continue;
    if (stampCurrent(id)) counts.current++;
    else {
      counts.wanted++;
      if (inp.objectExists(id)) counts.local++;
      else counts.missed++;
    }
  }
  return { closure, modes, counts };
}
