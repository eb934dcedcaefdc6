// Benchmark of the disk-usage scanner against GNU `du -sB1` on a tree shaped like a Yocto
// TMPDIR: work/<arch>/<pn>/<pv>/{build,image,package,packages-split,recipe-sysroot,temp},
// recipe sysroots hard-linked from sysroots-components/, packages-split hard-linked from
// package/. About 1,000 entries per recipe; RAMBAKE_BENCH_FILES scales the total (default
// 1,000,000, the size the goals are stated for).
// The tree is made by one child process per CPU (components first, then the work dirs that
// link to them). Caches cannot be dropped, so one unmeasured round warms them for every tool;
// then RAMBAKE_BENCH_ROUNDS rounds (default 3) run du and the scanner, each as its own
// process, alternating their order; each figure is the median. Then the same rounds again with
// a CPU hog (a busy loop) beside them, as when the build or another job holds a core.
// Per run: wall time, CPU seconds of the process and its children (the scanner's find
// processes; from this process's cutime/cstime), peak RSS (the scanner's VmHWM).
// Goals: wall ≤ 1.0× du (≤ 1.2× with the hog), CPU ≤ 1.5× du, ≤ 64 MB, bytes identical.
//
// Mechanisms measured and rejected (1M entries, this 2-CPU machine, load 13–18 from other jobs,
// CPU seconds, du 2.6–3.5 s in the same runs):
// - lstatSync by absolute path on worker threads (the scanner until 2026-12): 2.4× du's CPU on
//   a quiet machine, 141 MB; the kernel resolves every path from / and V8 makes a Stats each.
// - find printing depth and path for every entry: 4.2–4.7 s for find alone (its -printf costs
//   more user time than du's whole walk); kept only for grouped scans (`space`), where the path
//   of directories names the groups.
// - the same reader on a Set of inode numbers and a new 512 KiB batch per 16k links: 73–80 MB.
// - du itself, printing every entry (`du -a -B1 -0`): 5.2–6.0 CPU-seconds against 4.4–4.8 for
//   `du -sB1` (12-07, quiet), 52 MB of paths to read back, and no inode numbers: a second link
//   to a counted inode prints nothing, so a file shared by two recipes cannot be told apart.
// - a maintained npm package with native code: none found that sizes a tree on Linux.
//   fast-folder-size 2.4.0 ships Sysinternals' du for Windows and runs `du -sb` here (apparent
//   sizes, not du -sB1's blocks; one total). get-folder-size 5.0.0 walks with fs.promises
//   lstat (bigint): 51 s wall, 78 CPU-seconds and a 3.5 GiB peak on the 1M-entry tree, where
//   `du -sB1` took 5.6 s and 5.1 CPU-seconds, and apparent sizes too (12-07).
// Chosen: find with -mindepth 1 and three short records (d<blocks>, <blocks>, l<blocks> dev
// ino), 2 processes on subtrees, this thread reading: 4.7–4.8 s CPU, 60 MB (see the table);
// since 12-05 through FIFOs read into one buffer (src/system/fifo-pipe.ts), not spawn's pipes.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import type { BenchRow } from './types.js';

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

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** CPU seconds of this process's waited-for children (and theirs), from /proc/self/stat. */
function childCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100; // cutime + cstime, USER_HZ 100
}

interface Run {
  ms: number;
  /** CPU seconds of the process and its children. */
  cpu: number;
  bytes: number;
  rssKiB?: number;
  /** The scanner's: CPU seconds of the scan itself (without Node's start-up). */
  scanCpu?: number;
}

function runProcess(argv: string[]): { run: Omit<Run, 'bytes'>; stdout: string } {
  const cpu0 = childCpuSeconds();
  const t0 = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', maxBuffer: 1 << 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`);
  return { run: { ms, cpu: childCpuSeconds() - cpu0 }, stdout: r.stdout };
}

const SCAN_CHILD = `
  const [moduleUrl, rssUrl, root, engine, depth] = process.argv.slice(1);
  const { scanTree } = await import(moduleUrl);
  const { peakRssKiB } = await import(rssUrl);
  const { readFileSync } = await import('node:fs');
  const childTicks = () => {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[13]) + Number(f[14]);
  };
  const [cpu0, ticks0] = [process.cpuUsage(), childTicks()];
  const r = await scanTree(root, { engine: engine === 'default' ? undefined : engine, groupDepth: Number(depth) });
  const own = process.cpuUsage(cpu0);
  // The scan's CPU: this thread's and its find processes' (Node's own start-up is not the scan's).
  const scanCpu = (own.user + own.system) / 1e6 + (childTicks() - ticks0) / 100;
  process.stdout.write(JSON.stringify({ bytes: r.bytes, groups: r.groups.size, rssKiB: peakRssKiB(), scanCpu }));`;

export default async function benchDu(): Promise<BenchRow[]> {
  const wanted = Number(process.env.RAMBAKE_BENCH_FILES ?? 1_000_000);
  const rounds = Math.max(1, Number(process.env.RAMBAKE_BENCH_ROUNDS ?? 3));
  const recipes = Math.max(2, Math.round(wanted / PER_RECIPE));
  // Measure what users run (dist/): `npm run bench` builds it first.
  const built = new URL('../dist/system/du.js', import.meta.url);
  if (!existsSync(built)) throw new Error('bench du: run `npm run bench` (it builds dist/ first)');
  const rssUrl = new URL('../dist/system/peak-rss.js', import.meta.url).href;
  const root = await mkdtemp(join(tmpdir(), 'rambake-bench-du-'));
  try {
    const t0 = performance.now();
    await makeTree(root, recipes);
    const createdMs = performance.now() - t0;
    const du = (): Run => {
      const { run, stdout } = runProcess(['du', '-sB1', root]);
      return { ...run, bytes: Number(stdout.split('\t')[0]) };
    };
    const scan = (engine = 'default', depth = 0): Run => {
      const argv = [
        process.execPath,
        '--input-type=module',
        '-e',
        SCAN_CHILD,
        built.href,
        rssUrl,
        root,
        engine,
        String(depth),
      ];
      const { run, stdout } = runProcess(argv);
      const out = JSON.parse(stdout) as { bytes: number; rssKiB: number; scanCpu: number };
      return { ...run, bytes: out.bytes, rssKiB: out.rssKiB, scanCpu: out.scanCpu };
    };
    const alternate = (label: string) => {
      const runs: { du: Run[]; scan: Run[] } = { du: [], scan: [] };
      for (let round = 0; round < rounds; round++) {
        if (round % 2 === 0) {
          runs.du.push(du());
          runs.scan.push(scan());
        } else {
          runs.scan.push(scan());
          runs.du.push(du());
        }
      }
      const each = (list: Run[]) =>
        list.map((r) => `${Math.round(r.ms)} ms/${r.cpu.toFixed(2)} s`).join(', ');
      process.stderr.write(`${label}: du ${each(runs.du)}; scanner ${each(runs.scan)}\n`);
      return runs;
    };
    // Round 0 warms the caches for every tool and is not counted.
    du();
    scan();
    const loadQuiet = loadavg()[0]!.toFixed(2);
    const quiet = alternate('no hog');
    const loadQuietEnd = loadavg()[0]!.toFixed(2);
    const threads = scan('threads');
    const grouped = scan('default', 4);
    const hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    let busy: ReturnType<typeof alternate>;
    const loadHog = loadavg()[0]!.toFixed(2);
    try {
      busy = alternate('CPU hog beside');
    } finally {
      hog.kill();
    }
    const loadHogEnd = loadavg()[0]!.toFixed(2);
    const files = recipes * PER_RECIPE;
    const all = [...quiet.du, ...quiet.scan, ...busy.du, ...busy.scan, threads, grouped];
    const same = all.every((r) => r.bytes === quiet.du[0]!.bytes);
    const m = (list: Run[], key: 'ms' | 'cpu' | 'scanCpu') => median(list.map((r) => r[key] ?? r.cpu));
    const rss = Math.max(...quiet.scan.map((r) => r.rssKiB ?? 0)) / 1024;
    const ratioRow = (
      metric: string,
      value: number,
      ref: number,
      unit: string,
      goal: string,
      limit: number,
      load: string,
    ): BenchRow => ({
      bench: 'du',
      metric,
      value: unit === 's' ? Number(value.toFixed(2)) : Math.round(value),
      unit,
      kind: 'measured',
      reference: unit === 's' ? Number(ref.toFixed(2)) : Math.round(ref),
      refName: 'du -sB1',
      ratio: value / ref,
      goal,
      ok: value <= ref * limit,
      load,
    });
    return [
      {
        bench: 'du',
        metric: `create ~${files} entries (Yocto-shaped)`,
        value: Math.round(createdMs),
        unit: 'ms',
        kind: 'measured',
      },
      ratioRow(
        `scanner wall, median of ${rounds}`,
        m(quiet.scan, 'ms'),
        m(quiet.du, 'ms'),
        'ms',
        '≤ 1.0× du',
        1.0,
        `${loadQuiet}–${loadQuietEnd}`,
      ),
      ratioRow(
        `scanner wall, CPU hog beside, median of ${rounds}`,
        m(busy.scan, 'ms'),
        m(busy.du, 'ms'),
        'ms',
        '≤ 1.2× du',
        1.2,
        `${loadHog}–${loadHogEnd}`,
      ),
      ratioRow(
        `scanner CPU: the scan + its find children (whole process ${m(quiet.scan, 'cpu').toFixed(2)} s)`,
        m(quiet.scan, 'scanCpu'),
        m(quiet.du, 'cpu'),
        's',
        '≤ 1.5× du',
        1.5,
        `${loadQuiet}–${loadQuietEnd}`,
      ),
      {
        bench: 'du',
        metric: 'scanner peak RSS (VmHWM of the scanning process)',
        value: Math.round(rss),
        unit: 'MiB',
        kind: 'measured',
        goal: '≤ 64 MB',
        ok: rss * 1.048576 <= 64,
        load: `${loadQuiet}–${loadQuietEnd}`,
      },
      {
        bench: 'du',
        metric: 'worker-thread engine (no find), one run: wall, CPU',
        value: Math.round(threads.ms),
        unit: 'ms',
        kind: 'measured',
        reference: Math.round(m(quiet.du, 'ms')),
        refName: `du -sB1; CPU ${threads.cpu.toFixed(2)} s vs ${m(quiet.du, 'cpu').toFixed(2)} s`,
        ratio: threads.ms / m(quiet.du, 'ms'),
        goal: 'information',
      },
      {
        bench: 'du',
        metric: 'grouped like `space` (depth 4), one run: wall, peak RSS',
        value: Math.round(grouped.ms),
        unit: 'ms',
        kind: 'measured',
        reference: Math.round(m(quiet.du, 'ms')),
        refName: `du -sB1; ${Math.round((grouped.rssKiB ?? 0) / 1024)} MiB`,
        ratio: grouped.ms / m(quiet.du, 'ms'),
        goal: 'information',
      },
      {
        bench: 'du',
        metric: 'bytes identical to du -sB1 (every run)',
        value: quiet.scan[0]!.bytes,
        unit: 'B',
        kind: 'measured',
        reference: quiet.du[0]!.bytes,
        refName: 'du -sB1',
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
