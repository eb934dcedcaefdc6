// Runs fuzz cases against the built CLI, each in its own process with a time limit and a memory
// cap, and sorts the outcomes: a documented exit code (0, 1, 2, 3 — README's exit-code table) with
// no stack trace is fine; a time-out is a hang; a signal, another exit code, "unexpected error",
// a stack trace or JSON that does not parse is a crash, and one that ran out of the memory cap
// is counted apart too. Used by fuzz.test.ts (CI, bounded) and scripts/fuzz.mjs (`npm run fuzz`).
//
// The memory cap is the process's address space (`prlimit --as`, util-linux), not only
// --max-old-space-size: V8's heap limit leaves Buffers, strings' external data and native
// allocations unbounded (the unbounded read of /proc/self/pagemap reached 0.9 GB of Buffers
// under a 256 MB heap limit). Past the cap an allocation fails at once, so a case that would
// use more memory shows up as a failure instead of passing on a machine that had the RAM.

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLI } from '../helpers/exec.js';
import { type Case, makeBase, makeCase, SAVED_SCAN } from './cases.js';

export interface FuzzOptions {
  seed: number;
  /** Cases to run (the first `count` of the seed's sequence, or only `only`). */
  count: number;
  only?: number[];
  /** Stop starting cases after this many seconds (the cases started still finish). */
  budgetSeconds?: number;
  /** Per-case time limit: past it the process is killed and the case is a hang. */
  timeoutMs: number;
  /** --max-old-space-size for each rambake process. */
  memoryMb: number;
  /** The address-space cap of each rambake process (`prlimit --as`), in MiB. */
  addressSpaceMb: number;
  jobs: number;
  /** Copy each failing case's tree here (a fixture to be). */
  keep?: string;
  onCase?: (c: Case, o: Outcome) => void;
}

export type Verdict = 'ok' | 'hang' | 'crash';

export interface Outcome {
  verdict: Verdict;
  exitCode: number | null;
  signal: string | null;
  why?: string;
  stderr: string;
  ms: number;
  /** Peak address space and peak resident memory in MiB (absent when the process died by a signal). */
  peak?: { addressMb: number; residentMb: number };
}

export interface FuzzCounts {
  seed: number;
  cases: number;
  byGroup: Record<string, number>;
  exits: Record<string, number>;
  hangs: number;
  crashes: number;
  /** Crashes that ran out of the address-space cap (counted in crashes too). */
  overCap: number;
  /** The cap every case ran under, in MiB. */
  addressSpaceMb: number;
  /** The largest peak address space and resident memory of any case, in MiB. */
  peak: { addressMb: number; residentMb: number };
  failures: { case: Case; outcome: Outcome }[];
  seconds: number;
}

// README "Exit codes and errors": 3 is "nothing to analyse yet" (no TMPDIR, no buildstats, no run).
const DOCUMENTED_EXITS = new Set([0, 1, 2, 3]);
// What node says when an allocation fails: V8's heap or code space, a Buffer (ArrayBuffer),
// glibc's malloc under C++ (`new`), or a system call refused memory.
const OUT_OF_MEMORY =
  /Fatal process OOM|JavaScript heap out of memory|Array buffer allocation failed|std::bad_alloc|Cannot allocate memory|ENOMEM/;
/** The why of a case that hit the cap (fuzz.test.ts counts them). */
export const OVER_CAP = 'over the memory cap';
const STACK = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m;
const CAPTURE = 64 * 1024;
const PEAK_PRELOAD = join(dirname(fileURLToPath(import.meta.url)), 'peak-preload.mjs');
// `rambake-fuzz-peak <VmPeak kB> <VmHWM kB>`, the preload's last stderr line.
const PEAK_LINE = /\n?rambake-fuzz-peak (\d+) (\d+)\n/;

/** Judges one finished process. */
export function judge(
  code: number | null,
  signal: string | null,
  stderr: string,
  stdout: string,
  json: boolean,
): { verdict: Verdict; why?: string } {
  // First: past the cap, node may die by a signal (SIGTRAP, SIGABRT) or exit with a message.
  if (OUT_OF_MEMORY.test(stderr)) return { verdict: 'crash', why: OVER_CAP };
  if (signal) return { verdict: 'crash', why: `killed by ${signal}` };
  if (code === null || !DOCUMENTED_EXITS.has(code)) return { verdict: 'crash', why: `exit ${code}` };
  if (stderr.includes('unexpected error')) return { verdict: 'crash', why: 'unexpected error' };
  if (STACK.test(stderr) || /FATAL ERROR|node:internal/.test(stderr))
    return { verdict: 'crash', why: 'stack trace on stderr' };
  if (json && stdout.trim() !== '' && !stdout.endsWith('…')) {
    try {
      JSON.parse(stdout);
    } catch {
      return { verdict: 'crash', why: '--json output that does not parse' };
    }
  }
  return { verdict: 'ok' };
}

/** Runs rambake once in `root`'s build dir; kills it (and counts a hang) past `timeoutMs`. */
export function runCase(
  c: Case,
  root: string,
  opts: Pick<FuzzOptions, 'timeoutMs' | 'memoryMb' | 'addressSpaceMb'>,
): Promise<Outcome> {
  const args = c.args.map((a) => (a === SAVED_SCAN ? join(root, a) : a));
  const argv = [
    `--max-old-space-size=${opts.memoryMb}`,
    '--import',
    pathToFileURL(PEAK_PRELOAD).href,
    CLI,
    ...args,
    '--no-bitbake',
    '-B',
    join(root, 'build'),
  ];
  if (c.json) argv.push('--json');
  const started = Date.now();
  const [command, ...capped] = cappedArgv([process.execPath, ...argv], opts.addressSpaceMb);
  return new Promise((resolve) => {
    // prlimit execs node in its own place: the child's pid is node's, and SIGKILL reaches it.
    const child = spawn(command!, capped, {
      cwd: join(root, 'build'),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: root,
        NO_COLOR: '1',
        LANG: 'C.UTF-8',
        // glibc reserves 64 MiB of address space per thread arena (node has 8-10 threads): 0.5 GiB
        // reserved, not used, and a C++ allocation under the cap fails when a new arena cannot be
        // had. Two arenas keep node's own reservation near 0.8 GiB, so the cap measures rambake.
        MALLOC_ARENA_MAX: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    // Keep the head of each stream only; a flood of output is drained, not held.
    child.stdout.on('data', (b: Buffer) => {
      if (stdout.length < CAPTURE) stdout += b.toString();
      else if (!stdout.endsWith('…')) stdout += '…';
    });
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.length < CAPTURE) stderr += b.toString();
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      const m = PEAK_LINE.exec(stderr);
      if (m) stderr = stderr.replace(PEAK_LINE, '');
      const peak = m
        ? { addressMb: Math.round(Number(m[1]) / 1024), residentMb: Math.round(Number(m[2]) / 1024) }
        : undefined;
      if (timedOut)
        return resolve({
          verdict: 'hang',
          exitCode: null,
          signal,
          why: `no exit within ${opts.timeoutMs} ms`,
          stderr,
          ms,
        });
      const { verdict, why } = judge(code, signal, stderr, stdout, c.json);
      resolve({
        verdict,
        exitCode: code,
        signal,
        ...(why ? { why } : {}),
        stderr,
        ms,
        ...(peak ? { peak } : {}),
      });
    });
  });
}

/**
 * Each case's address-space cap, in MiB. Node reserves 0.6–0.7 GiB of address space before it
 * runs a line (it cannot start under 512 MiB). Measured: the largest of 150 cases (seed 15)
 * peaked at 773 MiB of address space and 69 MiB resident, so a case has 250 MiB to spare and
 * an unbounded read (0.9 GB of /proc/self/pagemap) fails at once.
 */
export const ADDRESS_SPACE_MB = 1024;

/** `argv` run under an address-space cap of `mb` MiB: `prlimit --as=BYTES -- argv…`. */
export function cappedArgv(argv: readonly string[], mb: number): string[] {
  return ['prlimit', `--as=${mb * 1024 * 1024}`, '--', ...argv];
}

/** Throws unless prlimit (util-linux) is here: without it the memory cap would not be real. */
export function assertPrlimit(): void {
  const r = spawnSync('prlimit', ['--version'], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(
      "prlimit (util-linux) not found: the fuzzer caps each case's address space with it (apt-get install util-linux)",
    );
}

/** Runs the cases of `opts.seed` and counts the outcomes. */
export async function fuzz(opts: FuzzOptions): Promise<FuzzCounts> {
  assertPrlimit();
  const work = mkdtempSync(join(tmpdir(), 'rambake-fuzz-'));
  const started = Date.now();
  const counts: FuzzCounts = {
    seed: opts.seed,
    cases: 0,
    byGroup: {},
    exits: {},
    hangs: 0,
    crashes: 0,
    overCap: 0,
    addressSpaceMb: opts.addressSpaceMb,
    peak: { addressMb: 0, residentMb: 0 },
    failures: [],
    seconds: 0,
  };
  try {
    const base = join(work, 'base');
    makeBase(base);
    await saveScan(base, opts);
    const indexes = opts.only ?? Array.from({ length: opts.count }, (_, i) => i);
    let next = 0;
    const worker = async () => {
      for (;;) {
        if (opts.budgetSeconds !== undefined && Date.now() - started > opts.budgetSeconds * 1000) return;
        const index = indexes[next++];
        if (index === undefined) return;
        const root = join(work, `case-${index}`);
        const c = makeCase(opts.seed, index, base, root);
        const o = await runCase(c, root, opts);
        counts.cases++;
        counts.byGroup[c.group] = (counts.byGroup[c.group] ?? 0) + 1;
        const key =
          o.exitCode === null ? (o.verdict === 'hang' ? 'hang' : `signal ${o.signal}`) : String(o.exitCode);
        counts.exits[key] = (counts.exits[key] ?? 0) + 1;
        counts.peak.addressMb = Math.max(counts.peak.addressMb, o.peak?.addressMb ?? 0);
        counts.peak.residentMb = Math.max(counts.peak.residentMb, o.peak?.residentMb ?? 0);
        if (o.verdict !== 'ok') {
          if (o.verdict === 'hang') counts.hangs++;
          else counts.crashes++;
          if (o.why === OVER_CAP) counts.overCap++;
          counts.failures.push({ case: c, outcome: o });
          if (opts.keep) keepCase(opts.keep, c, o, root);
        }
        opts.onCase?.(c, o);
        rmSync(root, { recursive: true, force: true });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.jobs) }, worker));
  } finally {
    rmSync(work, { recursive: true, force: true });
    counts.seconds = (Date.now() - started) / 1000;
  }
  return counts;
}

/** The saved scan `space --compare` reads: written once by the CLI itself on the base tree. */
export async function saveScan(
  base: string,
  opts: Pick<FuzzOptions, 'timeoutMs' | 'memoryMb' | 'addressSpaceMb'>,
): Promise<void> {
  const c: Case = {
    index: -1,
    seed: 0,
    group: 'records',
    mutations: [],
    args: ['space', '--save', SAVED_SCAN],
    json: false,
  };
  const o = await runCase(c, base, opts);
  if (o.exitCode !== 0) throw new Error(`space --save on the base tree failed: ${o.stderr}`);
}

function keepCase(dir: string, c: Case, o: Outcome, root: string): void {
  const to = join(dir, `fuzz-${c.seed.toString(16)}`);
  mkdirSync(dir, { recursive: true });
  rmSync(to, { recursive: true, force: true });
  cpSync(root, to, { recursive: true, verbatimSymlinks: true });
  writeFileSync(
    join(to, 'case.json'),
    `${JSON.stringify({ ...c, outcome: { ...o, stderr: o.stderr.slice(0, 2000) } }, null, 2)}\n`,
  );
}

/** The one summary line both the test and the script print. */
export function summary(c: FuzzCounts): string {
  const exits = Object.entries(c.exits)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
  const groups = Object.entries(c.byGroup)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return `fuzz seed ${c.seed}: ${c.cases} cases (${groups}); exits ${exits}; hangs: ${c.hangs}, crashes: ${c.crashes} (over the ${c.addressSpaceMb} MiB memory cap: ${c.overCap}); largest peak ${c.peak.addressMb} MiB address space, ${c.peak.residentMb} MiB resident; ${c.seconds.toFixed(1)} s`;
}

/** One failing case, with what reproduces it. */
export function describeFailure(f: { case: Case; outcome: Outcome }, seed: number): string {
  const { case: c, outcome: o } = f;
  return [
    `case ${c.index} (npm run fuzz -- --seed ${seed} --case ${c.index}): ${o.verdict}, ${o.why ?? ''}`,
    `  rambake ${c.args.join(' ')}${c.json ? ' --json' : ''}`,
    ...c.mutations.map((m) => `  ${m}`),
    ...o.stderr
      .split('\n')
      .slice(0, 6)
      .filter((l) => l !== '')
      .map((l) => `  | ${l}`),
  ].join('\n');
}
