// Runs fuzz cases against the built CLI, each in its own process with a time limit and a memory
// cap, and sorts the outcomes: a documented exit code (0, 1, 2, 3 — README's exit-code table) with
// no stack trace is fine; a time-out is a hang; a signal, another exit code, "unexpected error",
// a stack trace or JSON that does not parse is a crash. Used by fuzz.test.ts (CI, bounded) and
// scripts/fuzz.mjs (`npm run fuzz`, longer).

import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
}

export interface FuzzCounts {
  seed: number;
  cases: number;
  byGroup: Record<string, number>;
  exits: Record<string, number>;
  hangs: number;
  crashes: number;
  failures: { case: Case; outcome: Outcome }[];
  seconds: number;
}

// README "Exit codes and errors": 3 is "nothing to analyse yet" (no TMPDIR, no buildstats, no run).
const DOCUMENTED_EXITS = new Set([0, 1, 2, 3]);
const STACK = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m;
const CAPTURE = 64 * 1024;

/** Judges one finished process. */
export function judge(
  code: number | null,
  signal: string | null,
  stderr: string,
  stdout: string,
  json: boolean,
): { verdict: Verdict; why?: string } {
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
  opts: Pick<FuzzOptions, 'timeoutMs' | 'memoryMb'>,
): Promise<Outcome> {
  const args = c.args.map((a) => (a === SAVED_SCAN ? join(root, a) : a));
  const argv = [
    `--max-old-space-size=${opts.memoryMb}`,
    CLI,
    ...args,
    '--no-bitbake',
    '-B',
    join(root, 'build'),
  ];
  if (c.json) argv.push('--json');
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      cwd: join(root, 'build'),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, NO_COLOR: '1', LANG: 'C.UTF-8' },
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
      resolve({ verdict, exitCode: code, signal, ...(why ? { why } : {}), stderr, ms });
    });
  });
}

/** Runs the cases of `opts.seed` and counts the outcomes. */
export async function fuzz(opts: FuzzOptions): Promise<FuzzCounts> {
  const work = mkdtempSync(join(tmpdir(), 'rambake-fuzz-'));
  const started = Date.now();
  const counts: FuzzCounts = {
    seed: opts.seed,
    cases: 0,
    byGroup: {},
    exits: {},
    hangs: 0,
    crashes: 0,
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
        if (o.verdict !== 'ok') {
          if (o.verdict === 'hang') counts.hangs++;
          else counts.crashes++;
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
  opts: Pick<FuzzOptions, 'timeoutMs' | 'memoryMb'>,
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
  return `fuzz seed ${c.seed}: ${c.cases} cases (${groups}); exits ${exits}; hangs: ${c.hangs}, crashes: ${c.crashes}; ${c.seconds.toFixed(1)} s`;
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
