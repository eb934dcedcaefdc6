// The I/O side of `rambake report`: finds the recorded run (the newest under
// ${TOPDIR}/rambake/runs unless named), reads it with the watch reader, finds the buildstats
// builds that started while it ran (wherever they are: BUILDSTATS_BASE, rambake-keep, the
// run's TMPDIR), runs the churn analysis over them, reads their console logs for BitBake's
// disk-monitor stop, on a shared disk what the run wrote next to TMPDIR, finds a run of the same targets of the other kind (one go / in steps),
// asks the sizing model, then calls the pure assembly. With no run recorded, the newest
// buildstats build stands alone. Whatever cannot be read is named in `skipped`; only a named
// file that is not a timeline, or no run and no buildstats at all, is an error.

import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { loadBuildDir } from '../bitbake/builddir.js';
import type { BuildDir, LoadOptions } from '../bitbake/builddir-types.js';
import { type BuildstatsBuildRef, listBuilds, readBuildstatsBuild } from '../bitbake/buildstats.js';
import { readLines } from '../bitbake/lines.js';
import { NothingYetError, UsageError } from '../errors.js';
import { keptPaths } from '../plan/conf-lines.js';
import { ownUsageOfRun } from '../plan/history-outside.js';
import { planFor } from '../plan/sizing.js';
import { OwnUsage } from '../timeline/run-baseline.js';
import { parseTimeline, readTimeline, type Timeline } from '../timeline/timeline-file.js';
import { recordedRunFrom, runsDir } from '../timeline/timeline-runs.js';
import { churnFor, listConsoleLogs, matchConsoleLogs } from './churn-read.js';
import { assembleReport, commandsOf, type ReportInput, targetsOf } from './report.js';
import type { Report, ReportChurn, ReportSkipped } from './report-types.js';

export interface ReportOptions {
  /** The timeline file; default the newest in `${TOPDIR}/rambake/runs`. */
  run?: string;
  /** Ask the sizing model (host-dependent: RAM, CPUs); default true. */
  plan?: boolean;
  /** Builds the churn analysis looks back over for recurrences (default 5). */
  churnBuilds?: number;
  cwd?: string;
}

/** A build named before the watcher started still belongs to the run when it was seen running. */
const EARLY_MS = 2_000;
/** Recorded runs looked at, newest first, for one of the same targets to compare with. */
const COMPARE_LOOKBACK = 20;
/** BitBake's disk monitor (bitbake/lib/bb/monitordisk.py), as its console log records it. */
const DISKMON_STOP =
  /(No new tasks can be executed|Immediately halt) since the disk space monitor action is "(STOPTASKS|HALT)"!/;

export async function collectReport(load: LoadOptions, options: ReportOptions = {}): Promise<Report> {
  const skipped: ReportSkipped[] = [];
  const cwd = options.cwd ?? load.cwd ?? process.cwd();
  let bd: BuildDir | undefined;
  let bdError: Error | undefined;
  try {
    bd = await loadBuildDir(load);
  } catch (err) {
    if (options.run === undefined) throw err;
    bdError = err as Error;
  }
  const file = options.run === undefined ? await newestRun(bd!) : resolve(cwd, options.run);
  if (file === undefined) return buildstatsOnly(bd!, options, cwd);
  const timeline = await readRunFile(file);
  if (!bd && timeline.header?.buildDir) {
    bd = await loadBuildDir({ ...load, buildDir: timeline.header.buildDir }).catch(() => undefined);
  }
  const input: ReportInput = { file, timeline, builds: [], skipped };
  if (!bd) {
    skipped.push({
      path: timeline.header?.buildDir ?? cwd,
      why: `no build directory (${bdError?.message ?? 'the run names none'}): no buildstats, churn or plan`,
    });
    return assembleReport(input);
  }
  const refs = await listAllBuilds(bd, timeline);
  const matched = buildsOfRun(timeline, refs);
  if (matched.length === 0)
    skipped.push({
      path: [...new Set(refs.map((r) => dirname(r.dir)))].join(', ') || bd.paths.buildstatsBase,
      why: 'no buildstats build started during this run',
    });
  await addBuilds(bd, input, refs, matched, options);
  input.diskmon = await diskmonStops(bd, matched, skipped, timeline);
  input.own = await ownOf(bd, file, timeline, skipped);
  const other = await otherKindRun(bd, file, timeline, skipped);
  if (other) {
    const otherBuilds = buildsOfRun(other.timeline, refs);
    input.other = {
      ...other,
      diskmon: await diskmonStops(bd, otherBuilds, skipped, other.timeline),
      own: await ownOf(bd, other.file, other.timeline, skipped),
    };
  }
  await addPlan(bd, input, options, cwd);
  return assembleReport(input);
}

/** No recorded run: the newest buildstats build alone (CPU, churn, sstate, per recipe). */
async function buildstatsOnly(bd: BuildDir, options: ReportOptions, cwd: string): Promise<Report> {
  const refs = await listAllBuilds(bd);
  const newest = refs[refs.length - 1];
  if (!newest)
    throw new NothingYetError(
      `no recorded run in ${runsDir(bd.topdir)} and no buildstats in ${[bd.paths.buildstatsBase, keptPaths(bd.topdir).buildstats].join(' or ')}`,
      'record one with `rambake run -- bitbake <target>`, or name a timeline: rambake report RUN.jsonl',
    );
  const skipped: ReportSkipped[] = [
    {
      path: runsDir(bd.topdir),
      why: 'no recorded run: no fill chart, peaks or lingering dirs (record one with rambake run -- bitbake <target>)',
    },
  ];
  const input: ReportInput = {
    source: 'buildstats',
    file: newest.dir,
    timeline: parseTimeline(''),
    builds: [],
    skipped,
  };
  await addBuilds(bd, input, refs, [newest], options);
  input.diskmon = await diskmonStops(bd, [newest], skipped);
  await addPlan(bd, input, options, cwd);
  return assembleReport(input);
}

/** The builds' buildstats and churn into `input`. */
async function addBuilds(
  bd: BuildDir,
  input: ReportInput,
  refs: readonly BuildstatsBuildRef[],
  matched: readonly BuildstatsBuildRef[],
  options: ReportOptions,
): Promise<void> {
  const skipped = input.skipped!;
  if (matched.length === 0) return;
  for (const ref of matched) input.builds.push(await readBuild(ref, skipped));
  input.buildstatsBase = dirname(matched[0]!.dir);
  input.churn = await churnOf(bd, refs, matched, options, skipped);
}

async function addPlan(bd: BuildDir, input: ReportInput, options: ReportOptions, cwd: string): Promise<void> {
  if (options.plan === false) return;
  try {
    const plan = await planFor(bd, {}, cwd);
    input.plan = { sizeBytes: plan.tmpfs.size, fits: plan.verdict.fits, verdict: plan.verdict.text };
  } catch (err) {
    input.skipped!.push({ path: bd.topdir, why: `rambake plan failed: ${(err as Error).message}` });
  }
}

/**
 * Every place buildstats of this build can be: BUILDSTATS_BASE as set now, rambake-keep (where
 * apply's block puts them during a RAM build, and where they stay after revert moves
 * BUILDSTATS_BASE back), and the recorded TMPDIR's own. Oldest first.
 */
async function listAllBuilds(bd: BuildDir, timeline?: Timeline): Promise<BuildstatsBuildRef[]> {
  const bases = new Set([bd.paths.buildstatsBase, keptPaths(bd.topdir).buildstats]);
  if (timeline?.header?.tmpdir) bases.add(join(timeline.header.tmpdir, 'buildstats'));
  const seen = new Set<string>();
  const refs: BuildstatsBuildRef[] = [];
  for (const base of bases)
    for (const ref of await listBuilds(base.replace(/\/+$/, ''))) {
      if (seen.has(ref.dir)) continue;
      seen.add(ref.dir);
      refs.push(ref);
    }
  return refs.sort((a, b) => a.startedAt - b.startedAt || (a.dir < b.dir ? -1 : 1));
}

/**
 * The build with its BUILDSTATS_BASE and LOG_DIR where `matched` were found. rambake-keep keeps
 * both side by side, and apply's block moves the console log there with BB_CONSOLELOG, not
 * LOG_DIR: so the log folder beside the buildstats wins whenever it has console logs, during a
 * RAM build as after revert.
 */
function buildDirFor(bd: BuildDir, base: string): BuildDir {
  const logDir = join(dirname(base), 'log');
  const beside = existsSync(join(logDir, 'cooker'));
  if (base === bd.paths.buildstatsBase.replace(/\/+$/, '') && !beside) return bd;
  return {
    ...bd,
    paths: { ...bd.paths, buildstatsBase: base, logDir: beside ? logDir : bd.paths.logDir },
  };
}

/**
 * Disk-monitor stops (one line each, as BitBake wrote it) in the console logs the run's
 * watcher followed (its build-start lines name them) and those of `builds`. A build the monitor
 * stops before its first task may leave no buildstats build to match: its log still says why.
 */
async function diskmonStops(
  bd: BuildDir,
  builds: readonly BuildstatsBuildRef[],
  skipped: ReportSkipped[],
  timeline?: Timeline,
): Promise<string[]> {
  const found: string[] = [];
  const followed = (timeline?.events ?? []).flatMap((e) =>
    e.type === 'build-start' && e.log ? [e.log] : [],
  );
  for (const log of new Set([...followed, ...(await consoleLogsOf(bd, builds))])) {
    try {
      await readLines(log, (line) => {
        const m = DISKMON_STOP.exec(line);
        if (m) found.push(m[0]);
        return m === null;
      });
    } catch (err) {
      // A log that went with its tmpfs (TMPDIR/log after revert) is not a damaged input.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        skipped.push({ path: log, why: `unreadable: ${(err as Error).message}` });
    }
  }
  return found;
}

/** The console logs BitBake named for these builds (BB_CONSOLELOG: `<DATETIME>.log`, at or before BUILDNAME). */
async function consoleLogsOf(bd: BuildDir, builds: readonly BuildstatsBuildRef[]): Promise<string[]> {
  const byBase = new Map<string, BuildstatsBuildRef[]>();
  for (const b of builds) byBase.set(dirname(b.dir), [...(byBase.get(dirname(b.dir)) ?? []), b]);
  const out: string[] = [];
  for (const [base, list] of byBase) {
    const logs = await listConsoleLogs(buildDirFor(bd, base).paths.logDir);
    for (const log of matchConsoleLogs(list, logs)) if (log) out.push(log.path);
  }
  return out;
}

/**
 * The newest earlier-or-later run of the same targets of the other kind: a run in steps when
 * this one ran in one go, and the other way round.
 */
async function otherKindRun(
  bd: BuildDir,
  file: string,
  timeline: Timeline,
  skipped: ReportSkipped[],
): Promise<{ file: string; timeline: Timeline } | undefined> {
  const targets = targetsOf(timeline);
  if (targets.length === 0) return undefined;
  const stepped = commandsOf(timeline).length > 1;
  const dir = runsDir(bd.topdir);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.jsonl')).sort();
  const here = resolve(file);
  for (const name of names.reverse().slice(0, COMPARE_LOOKBACK)) {
    const path = join(dir, name);
    if (path === here) continue;
    try {
      const other = await readTimeline(path);
      if (commandsOf(other).length > 1 === stepped) continue;
      if (!sameTargets(targetsOf(other), targets)) continue;
      return { file: path, timeline: other };
    } catch (err) {
      skipped.push({ path, why: `not compared: ${(err as Error).message}` });
    }
  }
  return undefined;
}

const sameTargets = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

/** What a run on a shared disk wrote next to TMPDIR (sstate, downloads): not part of its peak. */
async function ownOf(
  bd: BuildDir,
  file: string,
  timeline: Timeline,
  skipped: ReportSkipped[],
): Promise<OwnUsage> {
  const run = recordedRunFrom(timeline, file);
  try {
    return await ownUsageOfRun(bd, run);
  } catch (err) {
    skipped.push({
      path: file,
      why: `sstate and downloads written during the run not measured: ${(err as Error).message}`,
    });
    return new OwnUsage(run.baselineBytes);
  }
}

/** The newest recorded run, or undefined when there is none. */
async function newestRun(bd: BuildDir): Promise<string | undefined> {
  const dir = runsDir(bd.topdir);
  // Names are the UTC start time (`20251130-142627.jsonl`): the last one sorts newest.
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.jsonl')).sort();
  const last = names[names.length - 1];
  return last === undefined ? undefined : join(dir, last);
}

/**
 * A timeline, as far as it is whole. A file with no timeline line at all is not a timeline:
 * one line naming it and its first line, exit 2.
 */
async function readRunFile(file: string): Promise<Timeline> {
  const st = await stat(file).catch(() => undefined);
  if (!st) throw new UsageError(`${file}: no such timeline file`, 'rambake report [RUN.jsonl]');
  if (!st.isFile()) throw new UsageError(`${file}: not a timeline file (not a regular file)`);
  const timeline = await readTimeline(file);
  const first = timeline.skipped[0];
  const whole =
    timeline.header || timeline.samples.length > 0 || timeline.events.length > 0 || !timeline.recomputed;
  if (!whole && first)
    throw new UsageError(
      `${file}:${first.lineNo}: not a rambake timeline (${first.why ?? 'not a JSON line'}): ${excerpt(first.text)}`,
    );
  return timeline;
}

const excerpt = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);

/**
 * Buildstats builds that started while the run was recorded (BUILDNAME is UTC at build
 * start, to the second); when none did but the run saw tasks (a watcher started mid-build),
 * the last build that started before it.
 */
export function buildsOfRun(timeline: Timeline, refs: readonly BuildstatsBuildRef[]): BuildstatsBuildRef[] {
  const times = [...timeline.samples.map((s) => s.t), ...timeline.events.map((e) => e.t)];
  const started = timeline.header ? Date.parse(timeline.header.startedAt) : Math.min(...times);
  if (!Number.isFinite(started)) return [];
  const ended = times.length > 0 ? Math.max(...times) : started;
  const within = refs.filter((r) => r.startedAt >= started - EARLY_MS && r.startedAt <= ended);
  if (within.length > 0) return within;
  const sawTasks = timeline.events.some((e) => e.type === 'task-start' || e.type === 'task-end');
  const before = refs.filter((r) => r.startedAt < started);
  return sawTasks && before.length > 0 ? [before[before.length - 1]!] : [];
}

async function readBuild(ref: BuildstatsBuildRef, skipped: ReportSkipped[]) {
  try {
    const build = await readBuildstatsBuild(ref.dir);
    for (const u of build.unreadable) skipped.push({ path: u.path, why: `unreadable: ${u.error}` });
    for (const t of build.tasks) {
      const path = join(ref.dir, t.pf, `${t.task}${t.setscene ? '_setscene' : ''}`);
      if (t.skipped.length > 0)
        skipped.push({ path, why: `${t.skipped.length} line(s) not in buildstats format (binary or torn)` });
      else if (!t.complete) skipped.push({ path, why: 'task did not finish: no CPU figures' });
    }
    return { name: ref.name, tasks: build.tasks };
  } catch (err) {
    skipped.push({ path: ref.dir, why: `unreadable: ${(err as Error).message}` });
    return { name: ref.name, tasks: [] };
  }
}

async function churnOf(
  bd: BuildDir,
  refs: readonly BuildstatsBuildRef[],
  matched: readonly BuildstatsBuildRef[],
  options: ReportOptions,
  skipped: ReportSkipped[],
): Promise<ReportChurn | undefined> {
  // Look back far enough to reach this run's first build, and over a few builds before it
  // so churn that recurs across builds is seen.
  const base = dirname(matched[0]!.dir);
  const here = refs.filter((r) => dirname(r.dir) === base);
  const first = here.findIndex((r) => r.name === matched[0]!.name);
  const count = Math.max(options.churnBuilds ?? 5, here.length - first);
  try {
    const churn = await churnFor(buildDirFor(bd, base), { builds: count });
    const names = new Set(matched.map((m) => m.name));
    const builds = churn.builds.filter((b) => names.has(b.name));
    const logs = new Set(builds.flatMap((b) => (b.consoleLog ? [b.consoleLog] : [])));
    const dirs = matched.map((m) => m.dir);
    for (const s of churn.skipped)
      if (logs.has(s.path) || (dirs.includes(s.path) && s.why.includes('console log'))) skipped.push(s);
    return {
      analysed: churn.builds.length,
      builds,
      recurring: churn.recurring.filter((x) => x.builds.some((b) => names.has(b))),
    };
  } catch (err) {
    skipped.push({ path: base, why: `churn analysis failed: ${(err as Error).message}` });
    return undefined;
  }
}
