// Benchmark of the disk-usage scanner against GNU `du -sB1` on a tree shaped like a Yocto
// TMPDIR: work/<arch>/<pn>/<pv>/{build,image,package,packages-split,recipe-sysroot,temp},
// recipe sysroots hard-linked from sysroots-components/, packages-split hard-linked from
// package/. About 1,000 entries per recipe; RAMBAKE_BENCH_FILES scales the total (default
// 1,000,000, the size the goal is stated for: about 40 s to make, 2 s per du run here).
// The tree is made by one child process per CPU (components first, then the work dirs that
// link to them). Caches cannot be dropped, so one unmeasured round warms them for every tool;
// then RAMBAKE_BENCH_ROUNDS rounds (default 5) run du, scanTree and single-threaded scanTree,
// alternating their order, and each figure is the median. Goal: scanner wall time ≤ 1.0× du
// on 2 cores, bytes identical. The load average is printed: other work on the machine
// lowers the scanner's share of the second core more than it slows du.

import { existsSync, linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import type { BenchRow } from './types.js';

type DuModule = typeof import('../src/system/du.js');

const ARCHES = ['core2-64-poky-linux', 'x86_64-linux', 'qemux86_64-poky-linux', 'all-poky-linux'];
const PER_RECIPE = 1000;

/** Deterministic sizes: 40% empty, most under 3 KB, a few of tens of KB. */
const sizeFor = (n: number): number => {
  const r = (n * 2654435761) % 1000;
  if (r < 400) return 0;
  if (r < 980) return 100 + ((n * 7919) % 2900);
  return 8192 + ((n * 104729) % 57344);
};

type Phase = 'components' | 'work';

const makeFiles = (dir: string, count: number, perDir: number, first: number) => {
  for (let i = 0; i < count; i++) {
    const sub = join(dir, `d${Math.floor(i / perDir)}`);
    if (i % perDir === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}`), Buffer.alloc(sizeFor(first + i), 1));
  }
};

/** A recipe's sysroot component (phase 1) or its work dir, which links to two earlier components. */
function makeRecipe(root: string, index: number, recipes: number, phase: Phase): void {
  const arch = ARCHES[index % ARCHES.length]!;
  const pn = `recipe${index}`;
  const work = join(root, 'work', arch, pn, '1.0');
  const n = index * PER_RECIPE;
  if (phase === 'components') {
    makeFiles(join(root, 'sysroots-components', arch, pn, 'usr'), 100, 50, n);
    return;
  }
  const files = (dir: string, count: number, perDir: number, offset: number) =>
    makeFiles(dir, count, perDir, n + offset);
  files(join(work, 'build'), 400, 20, 100);
  files(join(work, 'image'), 100, 25, 500);
  files(join(work, 'package'), 100, 25, 600);
  files(join(work, 'temp'), 10, 10, 700);
  for (let d = 0; d < 4; d++) {
    mkdirSync(join(work, 'packages-split', `d${d}`), { recursive: true });
    for (let i = d * 25; i < d * 25 + 25; i++) {
      linkSync(join(work, 'package', `d${d}`, `f${i}`), join(work, 'packages-split', `d${d}`, `f${i}`));
    }
  }
  // The recipe sysroot: hard links into the components of two earlier recipes (its dependencies).
  const deps = [(index + recipes - 1) % recipes, (index + recipes - 2) % recipes].filter((d) => d < index);
  for (const dep of deps) {
    const from = join(root, 'sysroots-components', ARCHES[dep % ARCHES.length]!, `recipe${dep}`, 'usr');
    for (let d = 0; d < 2; d++) {
      const to = join(work, 'recipe-sysroot', `dep${dep}`, `d${d}`);
      mkdirSync(to, { recursive: true });
      for (let i = d * 50; i < d * 50 + 50; i++) linkSync(join(from, `d${d}`, `f${i}`), join(to, `f${i}`));
    }
  }
}

/** Makes recipes [from, to) of one phase; runs in a child process (see the end of this file). */
function makeRecipes(root: string, from: number, to: number, recipes: number, phase: Phase): void {
  for (let i = from; i < to; i++) makeRecipe(root, i, recipes, phase);
}

/** Synchronous calls create small files several times faster than promise-based ones; processes add cores. */
async function makeTree(root: string, recipes: number): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const parts = Math.min(availableParallelism(), recipes);
  for (const phase of ['components', 'work'] as const) {
    await Promise.all(
      Array.from({ length: parts }, (_, p) => {
        const [from, to] = [Math.floor((recipes * p) / parts), Math.floor((recipes * (p + 1)) / parts)];
        // process.execArgv carries tsx's loader, so the child can run this TypeScript file.
        const args = [
          ...process.execArgv,
          self,
          'make-tree',
          root,
          String(from),
          String(to),
          String(recipes),
          phase,
        ];
        return execa(process.execPath, args, { stdio: 'inherit' });
      }),
    );
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await run();
  return { ms: performance.now() - start, value };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export default async function benchDu(): Promise<BenchRow[]> {
  const wanted = Number(process.env.RAMBAKE_BENCH_FILES ?? 1_000_000);
  const rounds = Math.max(3, Number(process.env.RAMBAKE_BENCH_ROUNDS ?? 5));
  const recipes = Math.max(2, Math.round(wanted / PER_RECIPE));
  // Measure what users run (dist/) when it is built; the TypeScript source otherwise.
  const built = new URL('../dist/system/du.js', import.meta.url);
  const du: DuModule = existsSync(built) ? await import(built.href) : await import('../src/system/du.js');
  const root = await mkdtemp(join(tmpdir(), 'rambake-bench-du-'));
  try {
    const created = await timed(() => makeTree(root, recipes));
    const runDu = async () => Number((await execa('du', ['-sB1', root])).stdout.split('\t')[0]);
    const tools = {
      du: runDu,
      scan: async () => (await du.scanTree(root)).bytes,
      one: async () => (await du.scanTree(root, { workers: 0 })).bytes,
    };
    type Tool = keyof typeof tools;
    const measured: Record<Tool, number[]> = { du: [], scan: [], one: [] };
    const bytes: Record<Tool, Set<number>> = { du: new Set(), scan: new Set(), one: new Set() };
    const loadBefore = loadavg()[0]!;
    // Round 0 warms the caches and is not measured; later rounds alternate the order.
    for (let round = 0; round <= rounds; round++) {
      const order = Object.keys(tools) as Tool[];
      if (round % 2 === 1) order.reverse();
      for (const tool of order) {
        const { ms, value } = await timed(tools[tool]);
        bytes[tool].add(value);
        if (round > 0) measured[tool].push(ms);
      }
    }
    const loadAfter = loadavg()[0]!;
    const [duMs, scanMs, oneMs] = [median(measured.du), median(measured.scan), median(measured.one)];
    const files = recipes * PER_RECIPE;
    const each = (tool: Tool) => measured[tool].map((ms) => Math.round(ms)).join('/');
    process.stderr.write(`du ${each('du')} ms; scanTree ${each('scan')}; one thread ${each('one')}\n`);
    const [duBytes] = [...bytes.du];
    const identical = bytes.du.size === 1 && bytes.scan.size === 1 && bytes.one.size === 1;
    const same = identical && bytes.scan.has(duBytes!) && bytes.one.has(duBytes!);
    return [
      {
        bench: 'du',
        metric: `create ~${files} entries (Yocto-shaped)`,
        value: Math.round(created.ms),
        unit: 'ms',
      },
      {
        bench: 'du',
        metric: `1-min load average before/after (${availableParallelism()} CPUs)`,
        value: Number(loadBefore.toFixed(2)),
        unit: '',
        reference: Number(loadAfter.toFixed(2)),
      },
      {
        bench: 'du',
        metric: `scanTree wall time, median of ${rounds} (${du.defaultWorkers()} workers + main)`,
        value: Math.round(scanMs),
        unit: 'ms',
        reference: Math.round(duMs),
        ratio: scanMs / duMs,
        goal: '≤ 1.0× du -sB1',
        ok: scanMs <= duMs,
      },
      {
        bench: 'du',
        metric: `scanTree wall time, median of ${rounds} (main thread only)`,
        value: Math.round(oneMs),
        unit: 'ms',
        reference: Math.round(duMs),
        ratio: oneMs / duMs,
        goal: 'information (one walker: no goal)',
      },
      {
        bench: 'du',
        metric: 'bytes identical to du -sB1 (every run)',
        value: [...bytes.scan][0] ?? 0,
        unit: 'B',
        reference: duBytes,
        ok: same,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

// Child process of makeTree: `node <loader flags> bench/du.ts make-tree ROOT FROM TO RECIPES PHASE`.
if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href &&
  process.argv[2] === 'make-tree'
) {
  const [root, from, to, recipes, phase] = process.argv.slice(3);
  makeRecipes(root!, Number(from), Number(to), Number(recipes), phase as Phase);
}
