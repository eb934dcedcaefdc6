// Benchmark of the disk-usage scanner against GNU `du -sB1` on a tree shaped like a Yocto
// TMPDIR: work/<arch>/<pn>/<pv>/{build,image,package,packages-split,recipe-sysroot,temp},
// recipe sysroots hard-linked from sysroots-components/, packages-split hard-linked from
// package/. About 1,000 entries per recipe; RAMBAKE_BENCH_FILES scales the total (default
// 1,000,000). Caches cannot be dropped, so each tool runs once to warm up, then once measured,
// alternating which goes first. Goal: scanner wall time ≤ 1.0× du, bytes identical.

import { existsSync, linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

function makeRecipe(root: string, index: number, recipes: number): void {
  const arch = ARCHES[index % ARCHES.length]!;
  const pn = `recipe${index}`;
  const work = join(root, 'work', arch, pn, '1.0');
  const comp = join(root, 'sysroots-components', arch, pn, 'usr');
  let n = index * PER_RECIPE;
  const files = (dir: string, count: number, perDir: number) => {
    for (let i = 0; i < count; i++) {
      const sub = join(dir, `d${Math.floor(i / perDir)}`);
      if (i % perDir === 0) mkdirSync(sub, { recursive: true });
      writeFileSync(join(sub, `f${i}`), Buffer.alloc(sizeFor(n++), 1));
    }
  };
  files(comp, 100, 50);
  files(join(work, 'build'), 400, 20);
  files(join(work, 'image'), 100, 25);
  files(join(work, 'package'), 100, 25);
  files(join(work, 'temp'), 10, 10);
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

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await run();
  return { ms: performance.now() - start, value };
}

export default async function benchDu(): Promise<BenchRow[]> {
  const wanted = Number(process.env.RAMBAKE_BENCH_FILES ?? 1_000_000);
  const recipes = Math.max(2, Math.round(wanted / PER_RECIPE));
  // Measure what users run (dist/) when it is built; the TypeScript source otherwise.
  const built = new URL('../dist/system/du.js', import.meta.url);
  const du: DuModule = existsSync(built) ? await import(built.href) : await import('../src/system/du.js');
  const root = await mkdtemp(join(tmpdir(), 'rambake-bench-du-'));
  try {
    // Synchronous calls create small files several times faster than promise-based ones
    // (which queue on libuv's four threads); index order makes dependencies exist first.
    const created = await timed(async () => {
      for (let i = 0; i < recipes; i++) makeRecipe(root, i, recipes);
    });
    const runDu = async () => Number((await execa('du', ['-sB1', root])).stdout.split('\t')[0]);
    const runScan = async () => (await du.scanTree(root)).bytes;
    const runScanOne = async () => (await du.scanTree(root, { workers: 0 })).bytes;
    const measured = { du: [] as number[], scan: [] as number[], one: [] as number[] };
    let duBytes = 0;
    let scanBytes = 0;
    for (const order of [0, 1]) {
      const steps: [keyof typeof measured, () => Promise<number>][] = [
        ['du', runDu],
        ['scan', runScan],
        ['one', runScanOne],
      ];
      if (order === 1) steps.reverse();
      for (const [name, run] of steps) {
        const { ms, value } = await timed(run);
        measured[name].push(ms);
        if (name === 'du') duBytes = value;
        else if (name === 'scan') scanBytes = value;
      }
    }
    // The first round warms the caches; the second is measured.
    const [duMs, scanMs, oneMs] = [measured.du[1]!, measured.scan[1]!, measured.one[1]!];
    const workers = du.defaultWorkers();
    const files = recipes * PER_RECIPE;
    return [
      {
        bench: 'du',
        metric: `create ~${files} entries (Yocto-shaped)`,
        value: Math.round(created.ms),
        unit: 'ms',
      },
      {
        bench: 'du',
        metric: `scanTree wall time (${workers} workers)`,
        value: Math.round(scanMs),
        unit: 'ms',
        reference: Math.round(duMs),
        ratio: scanMs / duMs,
        goal: '≤ 1.0× du -sB1',
        ok: scanMs <= duMs,
      },
      {
        bench: 'du',
        metric: 'scanTree wall time (main thread only)',
        value: Math.round(oneMs),
        unit: 'ms',
        reference: Math.round(duMs),
        ratio: oneMs / duMs,
        goal: 'about 1.5× du -sB1 (information)',
      },
      {
        bench: 'du',
        metric: 'bytes identical to du -sB1',
        value: scanBytes,
        unit: 'B',
        reference: duBytes,
        ok: scanBytes === duBytes,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
