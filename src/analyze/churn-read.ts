// The I/O side of `rambake churn`: lists the last N buildstats folders, matches each with its
// cooker console log by start time, reads both as far as they are valid, gathers the newest
// build's side evidence from WORKDIR, stamps and SSTATE_DIR, then calls the pure analysis.

import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { assertReadable, loadBuildDir } from '../bitbake/builddir.js';
import type { BuildDir, LoadOptions } from '../bitbake/builddir-types.js';
import { buildNameToEpochMs, listBuilds, readBuildstatsBuild } from '../bitbake/buildstats.js';
import { readConsoleLog } from '../bitbake/consolelog.js';
import { splitPF } from '../bitbake/pf.js';
import { readRecipeStamps } from '../bitbake/stamps.js';
import { parseTid, pnFromTid } from '../bitbake/tid.js';
import { RefusedFileError } from '../errors.js';
import { buildstatsBases, consoleLogRoots } from '../plan/conf-lines.js';
import { readText } from '../system/read-file.js';
import {
  analyzeChurn,
  type ChurnBuildInput,
  type ChurnReport,
  DEFAULT_CHURN_BUILDS,
  PACKAGE_CONSUMERS,
  type PfEvidence,
  type Skipped,
} from './churn.js';

export interface ChurnOptions {
  /** How many of the newest builds to analyse (default DEFAULT_CHURN_BUILDS). */
  builds?: number;
}

export interface ConsoleLogRef {
  path: string;
  /** Epoch ms from the `<DATETIME>.log` name (UTC, like BUILDNAME). */
  startedAt: number;
}

/**
 * Pairs each build with the newest console log named no later than the build: BitBake names
 * the log when the cooker reads its configuration and BUILDNAME when the build starts, both
 * from the same UTC clock, so the log's name never sorts after its build's. A log named before
 * the previous build started belonged to an earlier command, and is not used.
 */
export function matchConsoleLogs(
  builds: { startedAt: number }[],
  logs: ConsoleLogRef[],
): (ConsoleLogRef | undefined)[] {
  const sorted = [...logs].sort((a, b) => a.startedAt - b.startedAt);
  const used = new Set<ConsoleLogRef>();
  let previousStart = Number.NEGATIVE_INFINITY;
  return builds.map((b) => {
    const candidates = sorted.filter((l) => l.startedAt <= b.startedAt);
    const log = candidates[candidates.length - 1];
    const earlier = previousStart;
    previousStart = b.startedAt;
    if (!log || used.has(log) || log.startedAt < earlier) return undefined;
    used.add(log);
    return log;
  });
}

/** `${LOG_DIR}/cooker/<MACHINE>/<DATETIME>.log` for every machine folder. */
export async function listConsoleLogs(logDir: string): Promise<ConsoleLogRef[]> {
  const cooker = join(logDir, 'cooker');
  const machines = await readdir(cooker, { withFileTypes: true }).catch(() => []);
  const logs: ConsoleLogRef[] = [];
  for (const m of machines.filter((e) => e.isDirectory())) {
    const names = await readdir(join(cooker, m.name)).catch(() => [] as string[]);
    for (const name of names.filter((n) => /^\d{14}\.log$/.test(n)))
      logs.push({ path: join(cooker, m.name, name), startedAt: buildNameToEpochMs(name.slice(0, 14)) });
  }
  return logs;
}

export async function collectChurn(load: LoadOptions, options: ChurnOptions = {}): Promise<ChurnReport> {
  const bd = await loadBuildDir(load);
  assertReadable(bd);
  return churnFor(bd, options);
}

/** Churn over a build already loaded (the report reuses the BuildDir it has). */
export async function churnFor(bd: BuildDir, options: ChurnOptions = {}): Promise<ChurnReport> {
  const count = Math.max(1, options.builds ?? DEFAULT_CHURN_BUILDS);
  // A RAM build writes buildstats and console logs to rambake-keep (apply's block), and they
  // stay there after revert: every place is read, builds in time order.
  const refs = (await Promise.all(buildstatsBases(bd).map((b) => listBuilds(b))))
    .flat()
    .sort((a, b) => a.startedAt - b.startedAt || (a.dir < b.dir ? -1 : 1));
  const first = Math.max(0, refs.length - count);
  const window = refs.slice(first);
  // The context should match logs too: a log is paired only when newer than the build before.
  const found = (await Promise.all(consoleLogRoots(bd).map((d) => listConsoleLogs(d)))).flat();
  const logs = matchConsoleLogs(refs, found).slice(first);
  const skipped: Skipped[] = [];
  // Older builds are history only: which PFs their do_rm_work cleaned (one stat per PF).
  const inputs: ChurnBuildInput[] = [];
  for (const ref of refs.slice(0, first)) inputs.push(await readRmWorkHistory(ref));
  for (const [i, ref] of window.entries()) inputs.push(await readBuildInput(ref, logs[i]?.path, skipped));
  const last = inputs[inputs.length - 1];
  const evidence = last ? await readEvidence(bd, last) : new Map<string, PfEvidence>();
  const report = analyzeChurn(inputs, bd.paths.buildstatsBase, evidence);
  report.requestedBuilds = count;
  report.skipped = skipped;
  return report;
}

/** A build before the window: the PFs whose `do_rm_work` task file says it finished. */
async function readRmWorkHistory(ref: {
  name: string;
  dir: string;
  startedAt: number;
}): Promise<ChurnBuildInput> {
  const pfs = await readdir(ref.dir, { withFileTypes: true }).catch(() => []);
  const rmWorkRan: string[] = [];
  for (const pf of pfs.filter((e) => e.isDirectory())) {
    // Bounded and non-blocking: a FIFO or a link to a device is refused (one line, exit 2).
    const text = await readText(join(ref.dir, pf.name, 'do_rm_work'), 'record').catch((err: unknown) => {
      if (err instanceof RefusedFileError) throw err;
      return undefined;
    });
    if (text !== undefined && /^Status: PASSED/m.test(text)) rmWorkRan.push(pf.name);
  }
  return {
    name: ref.name,
    startedAt: ref.startedAt,
    tasks: [],
    failedSetscene: [],
    contextOnly: true,
    rmWorkRan,
  };
}

async function readBuildInput(
  ref: { name: string; dir: string; startedAt: number },
  logPath: string | undefined,
  skipped: Skipped[],
): Promise<ChurnBuildInput> {
  const input: ChurnBuildInput = { name: ref.name, startedAt: ref.startedAt, tasks: [], failedSetscene: [] };
  try {
    const build = await readBuildstatsBuild(ref.dir);
    input.tasks = build.tasks;
    for (const u of build.unreadable) skipped.push({ path: u.path, why: `unreadable: ${u.error}` });
    for (const t of build.tasks) {
      const file = join(ref.dir, t.pf, `${t.task}${t.setscene ? '_setscene' : ''}`);
      if (t.skipped.length > 0)
        skipped.push({
          path: file,
          why: `${t.skipped.length} line(s) not in buildstats format (binary or torn)`,
        });
      if (!t.complete)
        skipped.push({ path: file, why: 'task did not finish (still running, or a setscene that failed)' });
    }
  } catch (err) {
    skipped.push({ path: ref.dir, why: `unreadable: ${(err as Error).message}` });
  }
  if (logPath === undefined) {
    skipped.push({ path: ref.dir, why: 'no console log matches this build: no Sstate summary' });
    return input;
  }
  input.consoleLog = logPath;
  let finished = false;
  try {
    // Only the kinds used: the reader then decodes only the lines that can hold them (4× faster).
    const kinds = ['sstate-summary', 'setscene-failed', 'tasks-summary'] as const;
    const result = await readConsoleLog(
      logPath,
      (e) => {
        if (e.kind === 'sstate-summary') {
          const { kind: _k, lineNo: _l, progress: _p, ...summary } = e;
          input.sstate = summary;
        } else if (e.kind === 'setscene-failed') {
          const tid = parseTid(e.tid);
          if (tid) input.failedSetscene.push({ pn: pnFromTid(tid), task: tid.task });
        } else if (e.kind === 'tasks-summary') finished = true;
      },
      { kinds },
    );
    if (result.skippedLongLines > 0)
      skipped.push({ path: logPath, why: `${result.skippedLongLines} over-long line(s) skipped` });
    input.finished = finished;
    if (!finished)
      skipped.push({ path: logPath, why: 'no Tasks Summary: the build is running or was stopped' });
  } catch (err) {
    skipped.push({ path: logPath, why: `unreadable: ${(err as Error).message}` });
  }
  return input;
}

/**
 * What the file system says now about the PFs the newest build restored: `packages-split/`
 * left in WORKDIR, and consumers whose stamp is current while SSTATE_DIR has no object at
 * the stamp's hash (the unihash of its `.sigdata` file when there is one).
 */
async function readEvidence(bd: BuildDir, last: ChurnBuildInput): Promise<Map<string, PfEvidence>> {
  const evidence = new Map<string, PfEvidence>();
  const pfs = new Set(last.tasks.filter((t) => t.setscene && t.task === 'do_package').map((t) => t.pf));
  const arches = await readdir(bd.paths.baseWorkdir).catch(() => [] as string[]);
  for (const pf of pfs) {
    const { pn, pv } = splitPF(pf);
    const ev: PfEvidence = {};
    for (const arch of arches) {
      const workdir = join(bd.paths.baseWorkdir, arch, pn, pv);
      if (!existsSync(workdir)) continue;
      ev.packagesSplitLeft = existsSync(join(workdir, 'packages-split'));
      const missing = await missingConsumerObjects(bd, join(bd.paths.stampsDir, arch, pn), pv);
      if (missing) ev.missingObjects = missing;
      break;
    }
    evidence.set(pf, ev);
  }
  return evidence;
}

async function missingConsumerObjects(bd: BuildDir, stampDir: string, pv: string) {
  if (!existsSync(bd.paths.sstateDir)) return undefined;
  const stamps = await readRecipeStamps(stampDir, pv);
  const missing: string[] = [];
  for (const task of PACKAGE_CONSUMERS) {
    const stamp = stamps.find((s) => s.task === task && s.pv === pv && !s.sigdata && s.hash);
    if (!stamp?.hash) continue;
    const sig = stamps.find((s) => s.task === task && s.pv === pv && s.sigdata && s.hash);
    const hash = sig?.hash ?? stamp.hash;
    const suffix = `${hash}_${task.slice('do_'.length)}.tar`;
    let found = false;
    for (const base of [bd.paths.sstateDir, join(bd.paths.sstateDir, 'universal')]) {
      const names = await readdir(join(base, hash.slice(0, 2), hash.slice(2, 4))).catch(() => [] as string[]);
      if (names.some((n) => n.includes(suffix))) found = true;
    }
    if (!found) missing.push(task);
  }
  return missing;
}
