// BitBake's schedulers (runqueue.py, bitbake-formats.md §6) over the tasks ready to run.

import type { GraphTask } from './graph.js';

/**
 * `speed`: the heaviest task first (weight ≈ how much depends on it).
 * `completion`: the same, but tasks of recipes already started come before tasks that would
 * start a new recipe, so a started recipe is finished (and cleaned by rm_work) first.
 */
export function pickTask<J extends { g: GraphTask }>(
  ready: J[],
  scheduler: 'speed' | 'completion',
  startedRecipes: Set<string>,
): J | undefined {
  let best: J | undefined;
  for (const j of ready) {
    if (!best || before(j.g, best.g, scheduler, startedRecipes)) best = j;
  }
  return best;
}

function before(a: GraphTask, b: GraphTask, scheduler: string, started: Set<string>): boolean {
  if (scheduler === 'completion') {
    const sa = started.has(a.recipe.pn);
    const sb = started.has(b.recipe.pn);
    if (sa !== sb) return sa;
  }
  if (a.weight !== b.weight) return a.weight > b.weight;
  return a.index < b.index;
}
