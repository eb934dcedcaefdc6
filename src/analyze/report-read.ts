// The I/O side of `rambake report`: finds the recorded run (the newest under
// ${TOPDIR}/rambake/runs unless named), reads it with the watch reader, finds the buildstats
// builds that started while it ran, runs the churn analysis over them, asks the sizing model,
// then calls the pure assembly. Whatever cannot be read is named in `skipped`, never fatal
// unless there is no run at all.

import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadBuildDir } from '../bitbake/builddir.js';
import type { BuildDir, LoadOptions } from '../bitbake/builddir-types.js';
import { type BuildstatsBuildRef, listBuilds, readBuildstatsBuild } from '../bitbake/buildstats.js';
import { UsageError } from '../errors.js';
import { planFor } from '../plan/sizing.js';
import { readTimeline, type Timeline } from '../watch/timeline-file.js';
import { churnFor } from './churn-read.js';
import { assembleReport, type ReportInput } from './report.js';
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
  const refs = await listBuilds(bd.paths.buildstatsBase);
  const matched = buildsOfRun(timeline, refs);
  if (matched.length === 0)
    skipped.push({ path: bd.paths.buildstatsBase, why: 'no buildstats build started during this run' });
  for (const ref of matched) input.builds.push(await readBuild(ref, skipped));
  if (matched.length > 0) input.churn = await churnOf(bd, refs, matched, options, skipped);
  if (options.plan !== false) {
    try {
      const plan = await planFor(bd, {}, cwd);
      input.plan = { sizeBytes: plan.tmpfs.size, fits: plan.verdict.fits, verdict: plan.verdict.text };
    } catch (err) {
      skipped.push({ path: bd.topdir, why: `rambake plan failed: ${(err as Error).message}` });
    }
  }
  return assembleReport(input);
}

async function newestRun(bd: BuildDir): Promise<string> {
  const dir = join(bd.topdir, 'rambake', 'runs');
  // Names are the UTC start time (`20251130-142627.jsonl`): the last one sorts newest.
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.jsonl')).sort();
  const last = names[names.length - 1];
  if (last === undefined)
    throw new UsageError(
      `no recorded run in ${dir}`,
      'record one with `rambake run -- bitbake <target>`, or name a timeline: rambake report RUN.jsonl',
    );
  return join(dir, last);
}

async function readRunFile(file: string): Promise<Timeline> {
  const st = await stat(file).catch(() => undefined);
  if (!st?.isFile()) throw new UsageError(`${file}: no such timeline file`, 'rambake report [RUN.jsonl]');
  return readTimeline(file);
}

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
  const first = refs.findIndex((r) => r.name === matched[0]!.name);
  const count = Math.max(options.churnBuilds ?? 5, refs.length - first);
  try {
    const churn = await churnFor(bd, { builds: count });
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
    skipped.push({ path: bd.paths.buildstatsBase, why: `churn analysis failed: ${(err as Error).message}` });
    return undefined;
  }
}
