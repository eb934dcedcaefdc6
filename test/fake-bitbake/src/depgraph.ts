// `bitbake -g`: pn-buildlist and task-depends.dot (bitbake-formats.md §9).

import { closureOf, type TaskGraph } from './graph.js';
import { bbFileOf } from './naming.js';
import type { FakeConfig } from './types.js';

export function formatDepGraph(cfg: FakeConfig, graph: TaskGraph, roots: string[]) {
  const ids = [...closureOf(graph, roots)].sort((a, b) => graph.get(a)!.index - graph.get(b)!.index);
  const pns = [...new Set(ids.map((id) => graph.get(id)!.recipe.pn))];
  const lines = ['digraph depends {'];
  for (const id of ids) {
    const t = graph.get(id)!;
    const r = t.recipe;
    lines.push(`"${r.pn}.${t.task}" [label="${r.pn} ${t.task}\\n:${r.pv}-${r.pr}\\n${bbFileOf(cfg, r)}"]`);
    for (const d of t.deps) {
      const dt = graph.get(d);
      if (dt) lines.push(`"${r.pn}.${t.task}" -> "${dt.recipe.pn}.${dt.task}"`);
    }
  }
  lines.push('}');
  return { pnBuildlist: `${pns.join('\n')}\n`, taskDepends: `${lines.join('\n')}\n` };
}
