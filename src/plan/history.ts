// What was measured on this build, for plan, steps and the prediction alike: the recorded runs
// under `${TOPDIR}/rambake/runs/` (read by the one timeline reader, timeline/timeline-runs.ts),
// compile memory of the newest buildstats builds, the task times of the builds the newest run
// covered (or, without a run, of the newest build that ran the targets asked about), and the
// footprint each task left on TMPDIR. Reading only; the maths is in footprint.ts.

import type { BuildDir } from '../bitbake/builddir-types.js';
import {
  type BuildstatsBuild,
  type BuildstatsBuildRef,
  type BuildstatsTask,
  listBuilds,
  readBuildstatsBuild,
} from '../bitbake/buildstats.js';
import { splitPF } from '../bitbake/pf.js';
import { type RecordedRun, readRecordedRuns, runsDir } from '../timeline/timeline-runs.js';
import { buildstatsBases, consoleLogRoots } from './conf-lines.js';
import { recordedFootprint } from './history-outside.js';
import { buildTargetsFromEventLogs } from './history-targets.js';
import type { CompileRss, History, TaskTimes } from './sizing-types.js';

export { runsDir };

/** Compile memory per job: the largest process of each do_compile (Child rusage ru_maxrss, KiB). */
export function summariseCompileRss(
  tasks: readonly BuildstatsTask[],
  builds: string[],
): CompileRss | undefined {
  const perTask: { pf: string; bytes: number }[] = [];
  for (const t of tasks) {
    if (t.task !== 'do_compile' || t.setscene || !t.complete) continue;
    const kib = t.childRuMaxrss ?? t.ruMaxrss;
    if (kib !== undefined && kib > 0) perTask.push({ pf: t.pf, bytes: kib * 1024 });
  }
  if (perTask.length === 0) return undefined;
  const sorted = perTask.map((p) => p.bytes).sort((a, b) => a - b);
  const byPf = new Map<string, number>();
  for (const p of perTask) byPf.set(p.pf, Math.max(byPf.get(p.pf) ?? 0, p.bytes));
  return {
    builds,
    tasks: perTask.length,
    p90Bytes: percentile(sorted, 0.9),
    maxBytes: sorted[sorted.length - 1]!,
    heaviest: [...byPf.entries()]
      .map(([pf, bytes]) => ({ pf, bytes }))
      .sort((a, b) => b.bytes - a.bytes || (a.pf < b.pf ? -1 : 1))
      .slice(0, 5),
  };
}

/** Nearest-rank percentile of an ascending list. */
export function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? 0;
}

/** The pn of a work-dir key `<arch>/<pn>/<pv>`. */
export function workdirPn(key: string): string {
  return key.split('/')[1] ?? key;
}

/** Merges runs: the largest peak per work dir over every run. */
export function mergeWorkdirPeaks(runs: readonly RecordedRun[]): Record<string, number> {
  const peaks: Record<string, number> = {};
  for (const run of runs)
    for (const [dir, bytes] of Object.entries(run.workdirPeaks))
      peaks[dir] = Math.max(peaks[dir] ?? 0, bytes);
  return peaks;
}

/** Per recipe: the largest work-dir peak of any of its work dirs. */
export function recipeWorkdirPeaks(workdirPeaks: Record<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [dir, bytes] of Object.entries(workdirPeaks)) {
    const pn = workdirPn(dir);
    out.set(pn, Math.max(out.get(pn) ?? 0, bytes));
  }
  return out;
}

export function emptyTimes(): TaskTimes {
  return { seconds: new Map(), spans: [], builds: [] };
}

export function emptyHistory(): History {
  return { runs: [], workdirPeaks: {}, times: emptyTimes(), notes: [] };
}

/** Pure: task times and spans of some buildstats builds, oldest first (a later build wins). */
export function taskTimesOf(builds: readonly BuildstatsBuild[]): TaskTimes {
  const out = emptyTimes();
  for (const build of builds) {
    out.builds.push(build.name);
    for (const t of build.tasks) {
      const pn = splitPF(t.pf).pn;
      const task = t.setscene ? `${t.task}_setscene` : t.task;
      if (t.elapsed !== undefined) out.seconds.set(`${pn}:${task}`, t.elapsed);
      if (t.started !== undefined && t.ended !== undefined) {
        const wchar = t.wchar;
        out.spans.push({
          pn,
          task,
          start: t.started * 1000,
          end: t.ended * 1000,
          ...(wchar !== undefined ? { wchar } : {}),
        });
      }
    }
  }
  return out;
}

/** How many of the newest buildstats builds to read for compile memory. */
const COMPILE_BUILDS = 3;

export interface HistoryOptions {
  /** Without a recorded run, task times come from the newest build that ran one of these. */
  targets?: readonly string[];
}

/** Recorded runs and buildstats (under BUILDSTATS_BASE and rambake-keep) of one build dir. */
export async function readHistory(bd: BuildDir, opts: HistoryOptions = {}): Promise<History> {
  const history = emptyHistory();
  history.runs = await readRecordedRuns(bd.topdir);
  const run = history.runs.at(-1);
  if (run) history.run = run;
  history.workdirPeaks = mergeWorkdirPeaks(history.runs);
  for (const r of history.runs) {
    if (!r.summarised)
      history.notes.push(
        `${r.file}: no summary line (watcher killed?): peaks recomputed from ${r.samples.length} samples`,
      );
    if (r.skippedLines > 0) history.notes.push(`${r.file}: ${r.skippedLines} unreadable line(s) skipped`);
  }
  const bases = buildstatsBases(bd);
  const refs = (await Promise.all(bases.map((b) => listBuilds(b))))
    .flat()
    .sort((a, b) => a.startedAt - b.startedAt);
  const cache = new Map<string, Promise<BuildstatsBuild>>();
  const read = (ref: BuildstatsBuildRef) => {
    const have = cache.get(ref.dir);
    if (have) return have;
    const p = readBuildstatsBuild(ref.dir);
    cache.set(ref.dir, p);
    return p;
  };

  const newest = refs.slice(-COMPILE_BUILDS);
  const compile = summariseCompileRss(
    (await Promise.all(newest.map(read))).flatMap((b) => b.tasks),
    newest.map((b) => b.dir),
  );
  if (compile) history.compile = compile;
  const last = refs.at(-1);
  if (last) {
    const stats = (await read(last)).buildStats;
    const completed = stats?.elapsed !== undefined && stats.failedAt.length === 0;
    history.newestBuild = { name: last.name, dir: last.dir, completed };
  }

  if (run) {
    // BUILDNAME has one-second resolution: allow a second of slack at the start.
    const end = run.endedAt || Number.POSITIVE_INFINITY;
    const covered = refs.filter((b) => b.startedAt >= run.startedAt - 1000 && b.startedAt <= end);
    history.times = taskTimesOf(await Promise.all(covered.map(read)));
    if (covered.length === 0) history.notes.push(`no buildstats for the recorded run ${run.file}`);
    // BitBake's own task times carry what each task wrote; the watcher's events are the fallback.
    const spans = history.times.spans.length > 0 ? history.times.spans : run.spans;
    if (run.samples.length >= 2) history.footprint = await recordedFootprint(bd, run, spans);
    else history.notes.push(`the recorded run ${run.file} has no usage samples`);
    const command = run.header?.steps?.at(-1) ?? run.header?.command;
    if (run.targets.length > 0)
      history.builtTargets = { targets: run.targets, from: run.file, ...(command ? { command } : {}) };
  } else {
    history.notes.push(
      `no recorded run under ${runsDir(bd.topdir)} (record one with rambake run -- bitbake TARGET)`,
    );
    const build = await newestBuildOf(refs, read, opts.targets ?? []);
    if (build) {
      history.times = taskTimesOf([build]);
      const logDirs = consoleLogRoots(bd);
      const found = await buildTargetsFromEventLogs(logDirs, build.name);
      if (found) history.builtTargets = found;
    }
  }
  return history;
}

/** The newest build that ran a task of one of the targets; the newest build when none is named. */
async function newestBuildOf(
  refs: readonly BuildstatsBuildRef[],
  read: (ref: BuildstatsBuildRef) => Promise<BuildstatsBuild>,
  targets: readonly string[],
): Promise<BuildstatsBuild | undefined> {
  for (const ref of [...refs].reverse()) {
    const build = await read(ref);
    if (targets.length === 0 || build.tasks.some((t) => targets.includes(splitPF(t.pf).pn))) return build;
  }
  return undefined;
}
