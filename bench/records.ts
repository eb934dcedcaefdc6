// Benchmarks of the build-record readers, each against a tool doing the same work in the same run:
// - a 50,000-task buildstats folder in BitBake's real format (every line buildstats.bbclass
//   writes: the 35-line file of a finished task on a kernel with /proc/<pid>/io) through
//   readBuildstatsBuild, against poky's own parser, scripts/lib/buildstats.py
//   BuildStats.from_dir(), from ../shared/real-bitbake's tarball when present (else its last
//   measured figure, marked derived); alternating rounds, medians. Goal: ≥ 5× faster, both in
//   a process that read the folder before and in a new process reading it once, as poky's is
//   timed (one command). Beside them, the same files only opened, read and closed
//   (information: the system calls' floor).
// - a 1 GB console log (RAMBAKE_BENCH_LOG_MB scales it) streamed through readConsoleLog in a
//   child process, so the peak RSS is the reader's own (goal: under 100 MB), against `grep -c`
//   on the task-start pattern and a Python loop with the same regular expression.

import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IO_KEYS, RUSAGE_KEYS } from '../test/fake-bitbake/src/formats.js';
import type { BenchRow } from './types.js';

const TASKS = [
  'do_fetch',
  'do_unpack',
  'do_patch',
  'do_configure',
  'do_compile',
  'do_install',
  'do_package',
  'do_packagedata',
  'do_package_write_ipk',
  'do_populate_sysroot',
];

/** A finished task's file as write_task_data() writes it after the TaskStarted lines. */
function taskFile(pf: string, task: string, started: number, n: number): string {
  let text = `Event: TaskStarted \nStarted: ${started.toFixed(2)} \n${pf}: ${task}\n`;
  text += `Elapsed time: ${((n % 300) / 7).toFixed(2)} seconds\n`;
  text += `utime: ${n % 50}\nstime: ${n % 9}\ncutime: ${n % 4000}\ncstime: ${n % 700}\n`;
  for (const [k, key] of IO_KEYS.entries()) text += `IO ${key}: ${(n * 7919 * (k + 1)) % 98765431}\n`;
  for (const [k, key] of RUSAGE_KEYS.entries())
    text += `rusage ${key}: ${k < 2 ? ((n % 97) / 1000).toFixed(6) : (n * 31 * (k + 1)) % 90000}\n`;
  for (const [k, key] of RUSAGE_KEYS.entries())
    text += `Child rusage ${key}: ${k < 2 ? ((n % 9973) / 100).toFixed(6) : (n * 131 * (k + 1)) % 900000}\n`;
  return `${text}Status: PASSED \nEnded: ${(started + 1.23).toFixed(2)} \n`;
}

function writeBuildstats(dir: string, recipes: number): number {
  let started = 1764512345.12;
  let count = 0;
  for (let r = 0; r < recipes; r++) {
    // poky's parser splits PF into name-version-revision: a version must start with a digit.
    const pf = `recipe${r}-1.${r % 97}.${r % 13}-r0`;
    mkdirSync(join(dir, pf), { recursive: true });
    for (const [i, task] of TASKS.entries()) {
      started += 0.37;
      const name = r % 7 === 0 && task === 'do_package' ? 'do_package_setscene' : task;
      writeFileSync(join(dir, pf, name), taskFile(pf, name, started, r * 10 + i));
      count++;
    }
  }
  writeFileSync(
    join(dir, 'build_stats'),
    'Host Info: Linux bench 6.1.0 #1 SMP x86_64 \nBuild Started: 1764512345.00 \nElapsed time: 20000.00 seconds \nCPU usage: 812.5% \n',
  );
  return count;
}

// About 1 MiB of lines in the proportions of a real log: mostly task notes, some plain output.
function consoleBlock(seed: number): string {
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < 1024 * 1024; i++) {
    const n = seed * 100000 + i;
    const tid = `mc:arm:virtual:native:/home/u/poky/meta/recipes-core/r${n % 900}/r${n % 900}_1.${n % 7}.bb`;
    const line =
      i % 5 === 0
        ? `NOTE: Running task ${n} of 9421 (${tid}:do_compile)`
        : i % 5 === 1
          ? `NOTE: recipe r${n % 900}-1.${n % 7}-r0: task do_compile: Succeeded`
          : i % 5 === 2
            ? `NOTE: Running setscene task ${n} of 4000 (${tid}:do_populate_sysroot_setscene)`
            : i % 5 === 3
              ? `WARNING: r${n % 900}-1.0-r0 do_package_qa: QA Issue: file /usr/lib/x has no GNU_HASH [ldflags]`
              : `| checking for stdint.h... yes (iteration ${n})`;
    lines.push(line);
    bytes += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

function writeConsoleLog(file: string, megabytes: number): number {
  const fd = openSync(file, 'w');
  let bytes = 0;
  try {
    for (let mb = 0; mb < megabytes; mb++) {
      // One 4 MiB line per 256 MiB: the reader must skip it, not buffer it.
      if (mb % 256 === 128) bytes += writeSync(fd, `${'z'.repeat(4 * 1024 * 1024)}\n`);
      bytes += writeSync(fd, consoleBlock(mb % 8));
    }
    bytes += writeSync(
      fd,
      'Initialising tasks...Sstate summary: Wanted 1 Local 1 Mirrors 0 Missed 0 Current 0 (100% match, 100% complete)\n',
    );
  } finally {
    closeSync(fd);
  }
  return bytes;
}

// The child runs the built modules when `npm run bench` built dist/, else the sources through tsx.
function childArgs(file: string, kinds: string[] | undefined): string[] {
  const built = existsSync(fileURLToPath(new URL('../dist/bitbake/consolelog.js', import.meta.url)));
  const moduleUrl = (rel: string) =>
    new URL(built ? `../dist/${rel}.js` : `../src/${rel}.ts`, import.meta.url).href;
  const module = moduleUrl('bitbake/consolelog');
  const rssModule = moduleUrl('system/peak-rss');
  const script = `
    const { readConsoleLog } = await import(${JSON.stringify(module)});
    const { peakRssKiB } = await import(${JSON.stringify(rssModule)});
    const counts = {};
    const t0 = performance.now();
    const r = await readConsoleLog(${JSON.stringify(file)}, (e) => { counts[e.kind] = (counts[e.kind] ?? 0) + 1; },
      ${JSON.stringify(kinds === undefined ? {} : { kinds })});
    const ms = performance.now() - t0;
    process.stdout.write(JSON.stringify({ ms, lines: r.lines, skipped: r.skippedLongLines, bytes: r.bytes, counts,
      maxRssKiB: peakRssKiB() }));`;
  const loader = built ? [] : ['--import', 'tsx'];
  return [...loader, '--input-type=module', '-e', script];
}

const runtimeNote = () =>
  existsSync(fileURLToPath(new URL('../dist/bitbake/consolelog.js', import.meta.url)))
    ? 'built dist/'
    : 'source via tsx, whose loader alone adds ~30 MiB: run `npm run bench`';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHARED = join(ROOT, '..', 'shared', 'real-bitbake');
/** poky's from_dir() on this fixture, measured here on 2026-12-03 (load ≈ 2): the reference without the tarball. */
const POKY_LAST_MS = 4440;
const ROUNDS = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

function wallMs(argv: string[]): { ms: number; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 << 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0 && !(argv[0] === 'grep' && r.status === 1)) throw new Error(`${argv[0]}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

/** scripts/lib/buildstats.py out of the tarball (it imports only the standard library). */
function pokyParser(dir: string): string | undefined {
  const tarball = existsSync(SHARED) ? readdirSync(SHARED).find((f) => f.endsWith('.tar.xz')) : undefined;
  if (tarball === undefined || spawnSync('python3', ['-c', '0']).status !== 0) return undefined;
  const r = spawnSync('tar', ['-xJf', join(SHARED, tarball), '-C', dir, 'scripts/lib/buildstats.py']);
  return r.status === 0 ? join(dir, 'scripts', 'lib') : undefined;
}

async function benchBuildstats(dir: string): Promise<BenchRow[]> {
  const buildDir = join(dir, 'buildstats', '20251130142627');
  const written = writeBuildstats(buildDir, 5000);
  const lib = pokyParser(dir);
  const python = `import sys, time\nsys.path.insert(0, sys.argv[1])\nfrom buildstats import BuildStats\nt0 = time.perf_counter()\nbs = BuildStats.from_dir(sys.argv[2])\nprint((time.perf_counter() - t0) * 1000, sum(len(r.tasks) for r in bs.values()))`;
  const ours: number[] = [];
  const fresh: number[] = [];
  const theirs: number[] = [];
  const floor: number[] = [];
  const oneThread: number[] = [];
  // Measure what users run (dist/, which `npm run bench` builds first), not the TypeScript
  // source through tsx (1,287 ms there against 954 ms built, 12-04).
  const built = new URL('../dist/bitbake/buildstats.js', import.meta.url);
  const { readBuildstatsBuild } = (await import(built.href)) as typeof import('../src/bitbake/buildstats.js');
  const runOurs = async () => {
    for (const worker of [true, false]) {
      const t0 = performance.now();
      const build = await readBuildstatsBuild(buildDir, { worker });
      (worker ? ours : oneThread).push(performance.now() - t0);
      if (build.tasks.length !== written)
        throw new Error(`read ${build.tasks.length} of ${written} task files`);
    }
  };
  // What one command feels: a new process reads the folder once, its parser's code not yet
  // optimised and its heap still small. Timed like poky's, from after the import to the result.
  const freshScript = `const { readBuildstatsBuild } = await import(${JSON.stringify(built.href)});
    const t0 = performance.now();
    const build = await readBuildstatsBuild(${JSON.stringify(buildDir)});
    process.stdout.write(JSON.stringify({ ms: performance.now() - t0, tasks: build.tasks.length }));`;
  const runFresh = () => {
    const { stdout } = wallMs([process.execPath, '--input-type=module', '-e', freshScript]);
    const { ms, tasks } = JSON.parse(stdout) as { ms: number; tasks: number };
    if (tasks !== written) throw new Error(`a new process read ${tasks} of ${written} task files`);
    fresh.push(ms);
  };
  const runTheirs = () => {
    if (lib === undefined) return;
    const [ms, tasks] = wallMs(['python3', '-c', python, lib, buildDir]).stdout.trim().split(' ').map(Number);
    if (tasks !== written) throw new Error(`poky read ${tasks} of ${written} task files`);
    theirs.push(ms!);
  };
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      await runOurs();
      runFresh();
      runTheirs();
      floor.push(readOnly(buildDir, written));
    } else {
      floor.push(readOnly(buildDir, written));
      runTheirs();
      runFresh();
      await runOurs();
    }
  }
  const reference = lib === undefined ? POKY_LAST_MS : median(theirs);
  const refName = lib === undefined ? 'poky (last measured)' : 'poky BuildStats.from_dir()';
  // Goal rows (≤ 0.2×: 5× faster) and information rows share one shape.
  const row = (metric: string, times: number[], goal = false): BenchRow => ({
    bench: 'records',
    metric,
    value: Math.round(median(times)),
    unit: 'ms',
    kind: 'measured',
    reference: Math.round(reference),
    refName: goal && lib === undefined ? `${refName}: no tarball here` : refName,
    ratio: median(times) / reference,
    goal: goal ? '≤ 0.2× poky (5× faster)' : 'information',
    ...(goal ? { ok: median(times) * 5 <= reference } : {}),
  });
  return [
    row(
      `buildstats folder, ${written} task files in the real 35-line format, read in a process that read it before (the parser optimised), median of ${ROUNDS}`,
      ours,
      true,
    ),
    row(
      `the same folder read once by a new process (what one command feels: the parser not yet optimised, the heap still growing), median of ${ROUNDS}`,
      fresh,
      true,
    ),
    row(
      `the same folder read without the worker thread (one thread reads and parses), median of ${ROUNDS}`,
      oneThread,
    ),
    row(
      `the same ${written} files only opened, read and closed (no parse), one thread, median of ${ROUNDS}: what the system calls cost here`,
      floor,
    ),
  ];
}

/** Opens, reads and closes every task file as the reader does, and parses nothing: its floor. */
function readOnly(buildDir: string, expected: number): number {
  const buf = Buffer.allocUnsafe(64 * 1024);
  const t0 = performance.now();
  let files = 0;
  for (const pf of readdirSync(buildDir, { withFileTypes: true })) {
    if (!pf.isDirectory()) continue;
    for (const task of readdirSync(join(buildDir, pf.name))) {
      const fd = openSync(join(buildDir, pf.name, task), 'r');
      readSync(fd, buf, 0, buf.length, 0);
      closeSync(fd);
      files++;
    }
  }
  const ms = performance.now() - t0;
  if (files !== expected) throw new Error(`read ${files} of ${expected} task files`);
  return ms;
}

// Task starts: the form src/bitbake/console-task-run.ts reads (the expression it replaced), after NOTE:.
const GREP_PATTERN = 'NOTE: Running ((setscene|noexec) )?task [0-9]+ of [0-9]+ \\(.+\\)$';
const PYTHON_COUNT = `import re, sys\nrx = re.compile(r'NOTE: Running (?:(setscene|noexec) )?task (\\d+) of (\\d+) \\((.+)\\)$')\nn = 0\nwith open(sys.argv[1], encoding='utf-8', errors='replace') as f:\n    for line in f:\n        if rx.search(line.rstrip('\\n')): n += 1\nprint(n)`;

async function benchConsoleLog(dir: string): Promise<BenchRow[]> {
  const megabytes = Number(process.env.RAMBAKE_BENCH_LOG_MB ?? 1024);
  const log = join(dir, 'console.log');
  const bytes = writeConsoleLog(log, megabytes);
  const mib = bytes / 1024 / 1024;
  const times = {
    rambake: [] as number[],
    full: [] as number[],
    grep: [] as number[],
    python: [] as number[],
  };
  const counts = {
    rambake: new Set<number>(),
    full: new Set<number>(),
    grep: new Set<number>(),
    python: new Set<number>(),
  };
  let rssMiB = 0;
  let skipped = 0;
  const ours = (kinds: string[] | undefined) => {
    const { ms, stdout } = wallMs([process.execPath, ...childArgs(log, kinds)]);
    const result = JSON.parse(stdout) as {
      bytes: number;
      skipped: number;
      maxRssKiB: number;
      counts: Record<string, number>;
    };
    if (result.bytes !== bytes) throw new Error(`streamed ${result.bytes} of ${bytes} bytes`);
    rssMiB = Math.max(rssMiB, result.maxRssKiB / 1024);
    skipped = result.skipped;
    return { ms, count: result.counts['task-run'] ?? -1 };
  };
  const tools = {
    // The same work as grep -c: the task starts, as rambake's churn reads only what it uses.
    rambake: () => ours(['task-run']),
    // Every line to its event: what the watcher reads.
    full: () => ours(undefined),
    grep: () => {
      const { ms, stdout } = wallMs(['grep', '-c', '-E', GREP_PATTERN, log]);
      return { ms, count: Number(stdout.trim()) };
    },
    python: () => {
      const { ms, stdout } = wallMs(['python3', '-c', PYTHON_COUNT, log]);
      return { ms, count: Number(stdout.trim()) };
    },
  };
  type Tool = keyof typeof tools;
  const order: Tool[] = ['rambake', 'full', 'grep', 'python'];
  for (let round = 0; round < ROUNDS; round++) {
    for (const tool of round % 2 === 0 ? order : [...order].reverse()) {
      const { ms, count } = tools[tool]();
      times[tool].push(ms);
      counts[tool].add(count);
    }
  }
  const speed = (tool: Tool) => mib / (median(times[tool]) / 1000);
  const faster: Tool = speed('grep') >= speed('python') ? 'grep' : 'python';
  const agree =
    [...counts.rambake].length === 1 &&
    [...counts.full].length === 1 &&
    [...counts.rambake][0] === [...counts.full][0] &&
    [...counts.rambake][0] === [...counts.grep][0] &&
    [...counts.grep][0] === [...counts.python][0];
  return [
    {
      bench: 'records',
      metric: `console log ${megabytes} MiB, task starts counted (readConsoleLog kinds task-run), MiB/s (${skipped} overlong lines skipped; counts ${agree ? 'equal' : 'DIFFER'})`,
      value: Math.round(speed('rambake')),
      unit: 'MiB/s',
      kind: 'measured',
      reference: Math.round(speed(faster)),
      refName: `${faster === 'grep' ? 'grep -c -E' : 'python3 re loop'} (${faster === 'grep' ? 'python' : 'grep'} ${Math.round(speed(faster === 'grep' ? 'python' : 'grep'))} MiB/s)`,
      ratio: speed('rambake') / speed(faster),
      goal: '≥ 1.0× the faster',
      ok: agree && speed('rambake') >= speed(faster),
    },
    {
      bench: 'records',
      metric: `console log ${megabytes} MiB, every line to its event (what the watcher reads), MiB/s`,
      value: Math.round(speed('full')),
      unit: 'MiB/s',
      kind: 'measured',
      reference: Math.round(speed('python')),
      refName: 'python3 re loop (one expression per line)',
      ratio: speed('full') / speed('python'),
      goal: '≥ 1.0× python',
      ok: agree && speed('full') >= speed('python'),
    },
    {
      bench: 'records',
      metric: `console log, peak RSS of the reading process (${runtimeNote()})`,
      value: Math.round(rssMiB),
      unit: 'MiB',
      kind: 'measured',
      goal: '< 100 MiB',
      ok: rssMiB < 100,
    },
  ];
}

export default async function benchRecords(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rambake-bench-records-'));
  try {
    return [...(await benchBuildstats(dir)), ...(await benchConsoleLog(dir))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
