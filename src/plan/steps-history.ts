// What the last recorded run says about each task, for `steps` and `plan --predict`: the
// timeline under ${TOPDIR}/rambake/runs/ (fs usage samples, task events, work-dir peaks) and
// the buildstats of the builds it covered (task times). Reading only; the maths is in
// analyze/footprint.ts.

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Footprint, measureFootprint, type TaskSpan, type UsageSample } from '../analyze/footprint.js';
import { listBuilds, readBuildstatsBuild } from '../bitbake/buildstats.js';
import { splitPF } from '../bitbake/pf.js';
import { readText } from '../system/read-file.js';
import type { TimelineHeader, TimelineLine } from '../watch/timeline-types.js';

export interface RecordedRun {
  file: string;
  header?: TimelineHeader;
  samples: UsageSample[];
  /** From the timeline's task events (empty when the watcher did not see them). */
  spans: TaskSpan[];
  /** Peak bytes per work dir key `<arch>/<pn>/<pv>`, from the summary or the samples. */
  workdirPeaks: Record<string, number>;
  startedAt: number;
  endedAt: number;
}

export function runsDirOf(topdir: string): string {
  return join(topdir, 'rambake', 'runs');
}

/** The newest `*.jsonl` timeline (by modification time), or undefined. */
export async function findNewestRun(topdir: string): Promise<string | undefined> {
  const dir = runsDirOf(topdir);
  const names = await readdir(dir).catch(() => [] as string[]);
  let best: { file: string; mtime: number } | undefined;
  for (const name of names.filter((n) => n.endsWith('.jsonl'))) {
    const file = join(dir, name);
    const s = await stat(file).catch(() => undefined);
    if (s && (!best || s.mtimeMs > best.mtime)) best = { file, mtime: s.mtimeMs };
  }
  return best?.file;
}

/** Parses timeline text; a torn or foreign line is skipped (a watcher killed mid-write). */
export function parseRecordedRun(text: string, file: string): RecordedRun {
  const run: RecordedRun = { file, samples: [], spans: [], workdirPeaks: {}, startedAt: 0, endedAt: 0 };
  const open = new Map<string, { t: number; pn: string; task: string }>();
  let summaryPeaks: Record<string, number> | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let v: TimelineLine;
    try {
      v = JSON.parse(line) as TimelineLine;
    } catch {
      continue;
    }
    if (v.type === 'header') {
      run.header = v;
      run.startedAt = Date.parse(v.startedAt) || 0;
    } else if (v.type === 'sample') {
      run.samples.push({ t: v.t, used: v.fs.usedBytes });
      for (const [k, b] of Object.entries(v.workdirs ?? {})) {
        run.workdirPeaks[k] = Math.max(run.workdirPeaks[k] ?? 0, b);
      }
    } else if (v.type === 'task-start' || v.type === 'task-end') {
      const task = v.setscene ? `${v.task}_setscene` : v.task;
      const key = `${v.pn}:${task}`;
      if (v.type === 'task-start') open.set(key, { t: v.t, pn: v.pn, task });
      else {
        const s = open.get(key);
        open.delete(key);
        run.spans.push({ pn: v.pn, task, start: s?.t ?? v.t, end: v.t });
      }
    } else if (v.type === 'summary') summaryPeaks = v.workdirPeaks;
    if ('t' in v && typeof v.t === 'number') run.endedAt = Math.max(run.endedAt, v.t);
  }
  if (summaryPeaks) run.workdirPeaks = { ...run.workdirPeaks, ...summaryPeaks };
  if (run.startedAt === 0) run.startedAt = run.samples[0]?.t ?? 0;
  return run;
}

export async function readRecordedRun(file: string): Promise<RecordedRun> {
  // A timeline that vanished since it was listed reads as an empty run.
  return parseRecordedRun((await readText(file, 'index')) ?? '', file);
}

export interface TaskTimes {
  /** Seconds per `<pn>:<do_x>` (setscene as `do_x_setscene`), newest build wins. */
  seconds: Map<string, number>;
  /** Start, end and bytes written of each task: what the footprint is measured with. */
  spans: TaskSpan[];
  builds: string[];
}

/** Buildstats of the builds that started within [from, to] (epoch ms); all builds when unbounded. */
export async function readTaskTimes(buildstatsBase: string, from = 0, to = Infinity): Promise<TaskTimes> {
  const refs = (await listBuilds(buildstatsBase)).filter(
    // BUILDNAME has one-second resolution: allow a second of slack at the start.
    (b) => b.startedAt >= from - 1000 && b.startedAt <= to,
  );
  const out: TaskTimes = { seconds: new Map(), spans: [], builds: [] };
  for (const ref of refs) {
    const build = await readBuildstatsBuild(ref.dir);
    out.builds.push(build.name);
    for (const t of build.tasks) {
      const pn = splitPF(t.pf).pn;
      const task = t.setscene ? `${t.task}_setscene` : t.task;
      if (t.elapsed !== undefined) out.seconds.set(`${pn}:${task}`, t.elapsed);
      if (t.started !== undefined && t.ended !== undefined) {
        const wchar = t.io.wchar;
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

export interface History {
  run?: RecordedRun;
  times: TaskTimes;
  footprint?: Footprint;
  notes: string[];
}

/** The newest recorded run with its buildstats, and the footprint measured from both. */
export async function readHistoryFor(topdir: string, buildstatsBase: string): Promise<History> {
  const notes: string[] = [];
  const file = await findNewestRun(topdir);
  if (!file) {
    notes.push(`no recorded run under ${runsDirOf(topdir)} (record one with rambake run -- bitbake TARGET)`);
    return { times: await readTaskTimes(buildstatsBase), notes };
  }
  const run = await readRecordedRun(file);
  const times = await readTaskTimes(buildstatsBase, run.startedAt, run.endedAt || Infinity);
  if (times.builds.length === 0) notes.push(`no buildstats for the recorded run ${file}`);
  // BitBake's own task times carry what each task wrote; the watcher's events are the fallback.
  const spans = times.spans.length > 0 ? times.spans : run.spans;
  const footprint = run.samples.length >= 2 ? measureFootprint(run.samples, spans) : undefined;
  if (!footprint) notes.push(`the recorded run ${file} has no usage samples`);
  return { run, times, ...(footprint ? { footprint } : {}), notes };
}
