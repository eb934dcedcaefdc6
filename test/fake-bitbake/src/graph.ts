// The task graph BitBake would build for a target: per-recipe tasks wired as OE-Core wires
// them (base, staging, package, image, kernel, rm_work classes), across recipes through
// DEPENDS (sysroot, pkgdata), image installs (package feeds) and do_build.

import type { RecipeKind, ScenarioRecipe } from './types.js';

export const SSTATE_TASKS = new Set([
  'do_populate_sysroot',
  'do_package',
  'do_packagedata',
  'do_package_qa',
  'do_package_write_ipk',
  'do_populate_lic',
  'do_deploy',
  'do_image_complete',
]);

/** Consumers of do_package's output in the same recipe (bitbake-formats.md §11). */
export const PACKAGE_CONSUMERS = ['do_packagedata', 'do_package_qa', 'do_package_write_ipk'];

export interface GraphTask {
  id: string;
  recipe: ScenarioRecipe;
  task: string;
  noexec: boolean;
  sstate: boolean;
  deps: string[];
  dependents: string[];
  weight: number;
  /** Position in creation order: the tie-breaker that keeps runs deterministic. */
  index: number;
}

export type TaskGraph = Map<string, GraphTask>;

type Edges = [string, string[]][];

/** In-recipe tasks and their in-recipe dependencies, by kind. */
function recipeTasks(kind: RecipeKind): Edges {
  const head: Edges = [
    ['do_fetch', []],
    ['do_unpack', ['do_fetch']],
    ['do_patch', ['do_unpack']],
    ['do_populate_lic', ['do_patch']],
    ['do_prepare_recipe_sysroot', ['do_fetch']],
    ['do_configure', ['do_patch', 'do_prepare_recipe_sysroot']],
    ['do_compile', ['do_configure']],
  ];
  if (kind === 'image') {
    return [
      ...head,
      ['do_install', ['do_compile']],
      ['do_rootfs', ['do_install', 'do_prepare_recipe_sysroot']],
      ['do_image', ['do_rootfs']],
      ['do_image_ext4', ['do_image']],
      ['do_image_complete', ['do_image_ext4']],
      ['do_build', ['do_image_complete', 'do_populate_lic']],
    ];
  }
  const install: Edges = [
    ['do_install', ['do_compile']],
    ['do_populate_sysroot', ['do_install']],
  ];
  if (kind === 'native' || kind === 'cross') {
    return [...head, ...install, ['do_build', ['do_populate_sysroot', 'do_populate_lic']]];
  }
  const pkg: Edges = [
    ['do_package', ['do_install']],
    ['do_packagedata', ['do_package']],
    ['do_package_qa', ['do_packagedata']],
    ['do_package_write_ipk', ['do_packagedata']],
  ];
  const build = ['do_populate_sysroot', 'do_package_write_ipk', 'do_package_qa', 'do_populate_lic'];
  if (kind === 'kernel') {
    return [
      ...head,
      ['do_shared_workdir', ['do_compile']],
      ['do_install', ['do_shared_workdir']],
      ['do_populate_sysroot', ['do_install']],
      ...pkg,
      ['do_deploy', ['do_populate_sysroot', 'do_packagedata']],
      ['do_build', [...build, 'do_deploy']],
    ];
  }
  return [...head, ...install, ...pkg, ['do_build', build]];
}

const NOEXEC_IMAGE = new Set([
  'do_fetch',
  'do_unpack',
  'do_patch',
  'do_configure',
  'do_compile',
  'do_install',
]);

export function isNoexec(kind: RecipeKind, task: string): boolean {
  return task === 'do_build' || task === 'do_rm_work_all' || (kind === 'image' && NOEXEC_IMAGE.has(task));
}

/**
 * Builds the whole graph of the given recipes; `rmWorkExcluded(pn)` says which recipes keep
 * their WORKDIR (their do_rm_work still exists, pulled in only by do_rm_work_all).
 */
export function buildTaskGraph(
  recipes: ScenarioRecipe[],
  rmWork: boolean,
  rmWorkExcluded: (r: ScenarioRecipe) => boolean,
): TaskGraph {
  const graph: TaskGraph = new Map();
  const byPn = new Map(recipes.map((r) => [r.pn, r]));
  const add = (recipe: ScenarioRecipe, task: string, deps: string[]) => {
    const id = `${recipe.pn}:${task}`;
    graph.set(id, {
      id,
      recipe,
      task,
      noexec: isNoexec(recipe.kind, task),
      sstate: SSTATE_TASKS.has(task),
      deps,
      dependents: [],
      weight: 0,
      index: graph.size,
    });
  };
  for (const r of recipes) {
    const local = (t: string) => `${r.pn}:${t}`;
    const deps = r.deps.filter((d) => byPn.has(d));
    const rdeps = (r.rdeps ?? []).filter((d) => byPn.has(d));
    const hasPkg = (pn: string) => byPn.get(pn)?.kind !== 'native' && byPn.get(pn)?.kind !== 'cross';
    for (const [task, inRecipe] of recipeTasks(r.kind)) {
      const d = inRecipe.map(local);
      if (task === 'do_prepare_recipe_sysroot') d.push(...deps.map((p) => `${p}:do_populate_sysroot`));
      if (task === 'do_package') d.push(...deps.filter(hasPkg).map((p) => `${p}:do_packagedata`));
      if (task === 'do_rootfs') {
        for (const p of rdeps) d.push(`${p}:do_package_write_ipk`, `${p}:do_packagedata`);
      }
      if (task === 'do_build') d.push(...[...deps, ...rdeps].map((p) => `${p}:do_build`));
      add(r, task, d);
    }
    if (rmWork) {
      const build = graph.get(local('do_build'))!;
      const inRecipe = build.deps.filter((d) => d.startsWith(`${r.pn}:`));
      add(r, 'do_rm_work', rmWorkExcluded(r) ? [] : inRecipe);
      add(r, 'do_rm_work_all', [local('do_rm_work'), ...[...deps, ...rdeps].map((p) => `${p}:do_rm_work`)]);
      build.deps.push(local('do_rm_work_all'));
      if (!rmWorkExcluded(r)) build.deps.push(local('do_rm_work'));
    }
  }
  for (const t of graph.values()) {
    for (const d of t.deps) graph.get(d)?.dependents.push(t.id);
  }
  weighTasks(graph);
  return graph;
}

/** BitBake's weights (runqueue.py): end points 10, every task adds its dependents' weights. */
function weighTasks(graph: TaskGraph): void {
  const order = topoOrder(graph).reverse();
  for (const t of order) {
    t.weight = t.dependents.length === 0 ? 10 : 1;
    for (const d of t.dependents) t.weight += graph.get(d)!.weight;
  }
}

/** Dependencies before dependents; throws on a cycle (a broken scenario file). */
export function topoOrder(graph: TaskGraph): GraphTask[] {
  const out: GraphTask[] = [];
  const state = new Map<string, 1 | 2>();
  const visit = (t: GraphTask, path: string[]) => {
    const s = state.get(t.id);
    if (s === 2) return;
    if (s === 1) throw new Error(`task dependency cycle: ${[...path, t.id].join(' -> ')}`);
    state.set(t.id, 1);
    for (const d of t.deps) {
      const dt = graph.get(d);
      if (dt) visit(dt, [...path, t.id]);
    }
    state.set(t.id, 2);
    out.push(t);
  };
  for (const t of graph.values()) visit(t, []);
  return out;
}

/** Every task reachable from the roots: BitBake's run queue for this invocation. */
export function closureOf(graph: TaskGraph, roots: string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id) || !graph.has(id)) continue;
    seen.add(id);
    stack.push(...graph.get(id)!.deps);
  }
  return seen;
}
