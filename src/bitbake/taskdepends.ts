// `bitbake -g TARGET` writes two files into its working folder (bitbake-formats.md §9):
// `pn-buildlist` (one PN a line) and `task-depends.dot`, a Graphviz digraph of every task in
// the run queue with one node line per task and one edge line per dependency. Pure parsers
// plus one reader.

import { join } from 'node:path';
import { ConfSyntaxError } from '../errors.js';
import { readText } from '../system/read-file.js';

export interface DotTask {
  /** `<pn>.<do_task>`, the node name. */
  id: string;
  pn: string;
  task: string;
  /** `PV-PR` from the label, when present. */
  version?: string;
  /** The recipe file from the label, when present. */
  bbFile?: string;
  /** Ids of the tasks this one waits for. */
  deps: string[];
}

export interface TaskDepends {
  /** In file order (the order BitBake listed them). */
  tasks: Map<string, DotTask>;
}

// "zlib.do_compile" [label="zlib do_compile\n:1.3.1-r0\n/srv/meta/recipes-core/zlib/zlib_1.3.1.bb"]
//   → node zlib.do_compile, pn zlib, task do_compile, version 1.3.1-r0, bbFile /srv/…/zlib_1.3.1.bb
const NODE = /^"([^"]+)"\s*\[label="([^"]*)"\]\s*;?$/;
// "zlib.do_compile" -> "zlib.do_configure"  → edge from zlib.do_compile to zlib.do_configure
const EDGE = /^"([^"]+)"\s*->\s*"([^"]+)"\s*;?$/;

/** `gcc-cross-x86_64.do_compile` → pn `gcc-cross-x86_64`, task `do_compile` (PNs may hold dots). */
export function splitDotId(id: string): { pn: string; task: string } {
  const at = id.lastIndexOf('.do_');
  if (at <= 0) return { pn: id, task: '' };
  return { pn: id.slice(0, at), task: id.slice(at + 1) };
}

export function parseTaskDepends(text: string, file = 'task-depends.dot'): TaskDepends {
  const tasks = new Map<string, DotTask>();
  const ensure = (id: string): DotTask => {
    let t = tasks.get(id);
    if (!t) {
      t = { id, ...splitDotId(id), deps: [] };
      tasks.set(id, t);
    }
    return t;
  };
  const lines = text.split('\n');
  let opened = false;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line === '}' || line.startsWith('//')) return;
    if (/^(?:strict\s+)?digraph\b/.test(line)) {
      opened = true;
      return;
    }
    const edge = EDGE.exec(line);
    if (edge) {
      const from = ensure(edge[1]!);
      ensure(edge[2]!);
      if (!from.deps.includes(edge[2]!)) from.deps.push(edge[2]!);
      return;
    }
    const node = NODE.exec(line);
    if (node) {
      const t = ensure(node[1]!);
      // The label holds literal backslash-n separators: "pn do_x\n:PV-PR\n<bb path>".
      const parts = node[2]!.split('\\n');
      const version = parts[1]?.replace(/^:/, '');
      if (version) t.version = version;
      if (parts[2]) t.bbFile = parts[2];
      return;
    }
    throw new ConfSyntaxError(file, i + 1, `unexpected line '${line.slice(0, 80)}'`, 'a node or edge line');
  });
  if (!opened && tasks.size === 0 && text.trim() !== '') {
    throw new ConfSyntaxError(file, 1, 'not a task-depends.dot file', "'digraph depends {'");
  }
  return { tasks };
}

/** pn-buildlist: one PN a line, in BitBake's order. */
export function parsePnBuildlist(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export interface DepGraphFiles {
  graph: TaskDepends;
  pns: string[];
}

/** Reads both files from the folder `bitbake -g` ran in. */
export async function readDepGraph(dir: string): Promise<DepGraphFiles> {
  const [dot, list] = await Promise.all([
    readText(join(dir, 'task-depends.dot'), 'index'),
    readText(join(dir, 'pn-buildlist'), 'index').then((t) => t ?? ''),
  ]);
  if (dot === undefined) throw new Error(`${join(dir, 'task-depends.dot')} was not written`);
  const graph = parseTaskDepends(dot, join(dir, 'task-depends.dot'));
  const pns = list ? parsePnBuildlist(list) : [...new Set([...graph.tasks.values()].map((t) => t.pn))];
  return { graph, pns };
}
