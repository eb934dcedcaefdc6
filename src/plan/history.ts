// Measured history for sizing: recorded runs (`${TOPDIR}/rambake/runs/*.jsonl`, see
// watch/timeline-types.ts) and compile memory from buildstats. A run's summary line gives its
// peaks; a watcher killed with -9 leaves none, so the peaks are recomputed from the sample
// lines, and a torn last line (half written) is skipped.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { type BuildstatsTask, listBuilds, readBuildstatsBuild } from '../bitbake/buildstats.js';
import { openCheckedStream } from '../system/read-file.js';
import type { TimelineLine } from '../watch/timeline-types.js';
import type { CompileRss, History, RunPeak } from './sizing-types.js';

/** A run being read line by line; `finishRun` turns it into a RunPeak. */
export interface RunAccumulator {
  run: RunPeak;
  /** From the summary line, which wins over recomputed samples. */
  summary?: { bytes: number; inodes: number; workdirPeaks: Record<string, number> };
}

export function startRun(file: string): RunAccumulator {
  return {
    run: {
      file,
      summarised: false,
      peakBytes: 0,
      peakInodes: 0,
      peakWorkBytes: 0,
      onTmpfs: false,
      workdirPeaks: {},
      samples: 0,
      enospc: false,
      skippedLines: 0,
    },
  };
}

/**
 * Adds one timeline line.
 *   '{"type":"sample","t":1,"fs":{"usedBytes":5,…},"workdirs":{"core2-64-poky-linux/zlib/1.3.1":3}}'
 *     → peakBytes ≥ 5, workdirPeaks['core2-64-poky-linux/zlib/1.3.1'] ≥ 3
 */
export function addTimelineLine(acc: RunAccumulator, text: string): void {
  if (text.trim() === '') return;
  let line: TimelineLine;
  try {
    line = JSON.parse(text) as TimelineLine;
  } catch {
    acc.run.skippedLines++;
    return;
  }
  const run = acc.run;
  switch (line.type) {
    case 'header':
      run.startedAt = line.startedAt;
      run.onTmpfs = line.tmpfs.fsType === 'tmpfs';
      if (run.onTmpfs && line.tmpfs.sizeBytes !== undefined) run.sizeBytes = line.tmpfs.sizeBytes;
      return;
    case 'sample': {
      run.samples++;
      run.firstUsedBytes ??= line.fs.usedBytes;
      run.peakBytes = Math.max(run.peakBytes, line.fs.usedBytes);
      run.peakInodes = Math.max(run.peakInodes, line.fs.usedInodes);
      let sum = 0;
      for (const [dir, bytes] of Object.entries(line.workdirs)) {
        sum += bytes;
        run.workdirPeaks[dir] = Math.max(run.workdirPeaks[dir] ?? 0, bytes);
      }
      run.peakWorkBytes = Math.max(run.peakWorkBytes, sum);
      return;
    }
    case 'enospc':
      run.enospc = true;
      return;
    case 'summary':
      acc.summary = { bytes: line.peak.bytes, inodes: line.peak.inodes, workdirPeaks: line.workdirPeaks };
      return;
  }
}

export function finishRun(acc: RunAccumulator): RunPeak {
  const run = { ...acc.run, workdirPeaks: { ...acc.run.workdirPeaks } };
  if (acc.summary) {
    run.summarised = true;
    run.peakBytes = Math.max(run.peakBytes, acc.summary.bytes);
    run.peakInodes = Math.max(run.peakInodes, acc.summary.inodes);
    for (const [dir, bytes] of Object.entries(acc.summary.workdirPeaks))
      run.workdirPeaks[dir] = Math.max(run.workdirPeaks[dir] ?? 0, bytes);
  }
  return run;
}

/** A whole timeline text at once (tests, small files). */
export function parseTimeline(text: string, file = '<text>'): RunPeak {
  const acc = startRun(file);
  for (const line of text.split('\n')) addTimelineLine(acc, line);
  return finishRun(acc);
}

/** Compile memory per job: the largest process of each do_compile (Child rusage ru_maxrss, KiB). */
export function summariseCompileRss(
  tasks: readonly BuildstatsTask[],
  builds: string[],
): CompileRss | undefined {
  const perTask: { pf: string; bytes: number }[] = [];
  for (const t of tasks) {
    if (t.task !== 'do_compile' || t.setscene || !t.complete) continue;
    const kib = t.childRusage.ru_maxrss ?? t.rusage.ru_maxrss;
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
export function mergeWorkdirPeaks(runs: readonly RunPeak[]): Record<string, number> {
  const peaks: Record<string, number> = {};
  for (const run of runs)
    for (const [dir, bytes] of Object.entries(run.workdirPeaks))
      peaks[dir] = Math.max(peaks[dir] ?? 0, bytes);
  return peaks;
}

// ---- readers ----

/** Streams one timeline file (they grow to megabytes over a long build). */
export async function readRun(file: string): Promise<RunPeak> {
  const acc = startRun(file);
  const lines = createInterface({
    input: (await openCheckedStream(file)).setEncoding('utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) addTimelineLine(acc, line);
  return finishRun(acc);
}

/** Every `*.jsonl` under the runs folder, oldest first; [] when there is none. */
export async function readRuns(runsDir: string): Promise<RunPeak[]> {
  const names = await readdir(runsDir).catch(() => [] as string[]);
  const files = names.filter((n) => n.endsWith('.jsonl')).sort();
  return Promise.all(files.map((n) => readRun(join(runsDir, n))));
}

export function emptyHistory(): History {
  return { runs: [], workdirPeaks: {}, notes: [] };
}

/** Where `rambake run` / `rambake watch` record runs. */
export function runsDir(topdir: string): string {
  return join(topdir, 'rambake', 'runs');
}

/** How many of the newest buildstats builds to read for compile memory. */
const BUILDSTATS_BUILDS = 3;

/** Recorded runs and compile memory of the newest builds (buildstats under BUILDSTATS_BASE or rambake-keep). */
export async function readHistory(bd: BuildDir): Promise<History> {
  const history = emptyHistory();
  history.runs = await readRuns(runsDir(bd.topdir));
  history.workdirPeaks = mergeWorkdirPeaks(history.runs);
  for (const run of history.runs) {
    if (!run.summarised)
      history.notes.push(
        `${run.file}: no summary line (watcher killed?): peaks recomputed from ${run.samples} samples`,
      );
    if (run.skippedLines > 0)
      history.notes.push(`${run.file}: ${run.skippedLines} unreadable line(s) skipped`);
  }
  const bases = [...new Set([bd.paths.buildstatsBase, join(bd.topdir, 'rambake-keep', 'buildstats')])];
  const builds = (await Promise.all(bases.map((b) => listBuilds(b))))
    .flat()
    .sort((a, b) => a.startedAt - b.startedAt)
    .slice(-BUILDSTATS_BUILDS);
  const tasks: BuildstatsTask[] = [];
  for (const ref of builds) tasks.push(...(await readBuildstatsBuild(ref.dir)).tasks);
  const compile = summariseCompileRss(
    tasks,
    builds.map((b) => b.dir),
  );
  if (compile) history.compile = compile;
  return history;
}
