// `rambake report`, pure: one recorded run (the timeline), the buildstats of the builds it
// covered, the churn analysis and an optional plan → one typed Report. Reading happens in
// report-read.ts; rendering in report/.

import type { BuildstatsTask } from '../bitbake/buildstats.js';
import { splitPF } from '../bitbake/pf.js';
import { OwnUsage, ownFileSystem, ownPeak, baselineBytes as runBaseline } from '../timeline/run-baseline.js';
import type { Timeline } from '../timeline/timeline-file.js';
import type { TimelineSample } from '../timeline/timeline-types.js';
import { recommend } from './report-rules.js';
import { briefRun, commandsOf, describeSteps, stopOf, targetsOf } from './report-steps.js';
import {
  type FillSeries,
  REPORT_SCHEMA_VERSION,
  type RecipeCpu,
  type RecipePeak,
  type Report,
  type ReportChurn,
  type ReportRun,
  type ReportSkipped,
  type ReportUsage,
} from './report-types.js';

export * from './report-steps.js';
export * from './report-types.js';

/** Work dirs drawn on their own in the fill chart; the rest is one `other` band. */
export const FILL_TOP = 8;
/** Rows of the top-recipe tables. */
export const TABLE_TOP = 10;
/** The fill chart and the JSON keep at most this many points (the fullest of each stretch). */
export const MAX_POINTS = 240;

export interface ReportInput {
  /** run: `timeline` is a recorded run; buildstats: no run, `file` is the buildstats build read. */
  source?: 'run' | 'buildstats';
  file: string;
  timeline: Timeline;
  /** Where the builds' buildstats were found. */
  buildstatsBase?: string;
  /** BitBake's disk-monitor errors in the builds' console logs ("No new tasks can be executed…"). */
  diskmon?: string[];
  /**
   * How much of each sample is the run's own (plan/history-outside.ts: on a shared disk, less
   * what the run wrote next to TMPDIR); default: less the baseline only.
   */
  own?: OwnUsage;
  /** An earlier run of the same targets of the other kind (one go / in steps). */
  other?: { file: string; timeline: Timeline; diskmon?: string[]; own?: OwnUsage };
  /** The buildstats builds this run covers, with their tasks. */
  builds: { name: string; tasks: BuildstatsTask[] }[];
  churn?: ReportChurn;
  /** `rambake plan` for this host, when it could be made. */
  plan?: { sizeBytes: number; fits: boolean; verdict: string };
  skipped?: ReportSkipped[];
}

export function assembleReport(input: ReportInput): Report {
  const { timeline } = input;
  const names = workdirNames(timeline);
  const run = describeRun(input);
  const own = input.own ?? baselineOnly(timeline);
  const usage = describeUsage(timeline, own);
  run.stopped = stopOf(timeline, usage, input.diskmon ?? []);
  const steps = describeSteps(timeline, own);
  const topByPeak = Object.entries(timeline.summary.workdirPeaks)
    .filter(([, bytes]) => bytes > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([workdir, bytes]): RecipePeak => ({ workdir, ...names(workdir), bytes }));
  const skipped = [...(input.skipped ?? [])];
  for (const s of timeline.skipped)
    skipped.push({
      path: `${input.file}:${s.lineNo}`,
      why: s.why ? `${s.why}: skipped` : 'not a whole JSON line (torn or foreign): skipped',
    });
  if (!timeline.header && input.source !== 'buildstats')
    skipped.push({ path: input.file, why: 'no header line: run details unknown' });
  const report: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    run,
    usage,
    fill: fillOverTime(timeline.samples, topByPeak.slice(0, FILL_TOP), own, run.fs.sizeBytes),
    topByPeak: topByPeak.slice(0, TABLE_TOP),
    topByCpu: cpuByRecipe(input.builds.flatMap((b) => b.tasks)).slice(0, TABLE_TOP),
    lingering: timeline.summary.lingering,
    heldGiBMin: timeline.summary.heldGiBMin,
    churn: input.churn ?? null,
    sstate: (input.churn?.builds ?? []).map((b) => ({ build: b.name, summary: b.sstate, reuse: b.reuse })),
    recommendations: [],
    skipped,
    steps,
    comparison: null,
  };
  if (input.other) {
    const here = briefRun(input.file, timeline, usage, own, input.diskmon ?? []);
    const other = input.other;
    const otherOwn = other.own ?? baselineOnly(other.timeline);
    const there = briefRun(
      other.file,
      other.timeline,
      describeUsage(other.timeline, otherOwn),
      otherOwn,
      other.diskmon ?? [],
    );
    const [oneGo, stepped] = here.steps.length > 0 ? [there, here] : [here, there];
    report.comparison = {
      oneGo,
      stepped,
      ratio: oneGo.peakBytes > 0 ? Math.round((stepped.peakBytes / oneGo.peakBytes) * 1000) / 1000 : null,
      sizeBytes: run.fs.sizeBytes,
    };
  }
  report.recommendations = recommend(report, topByPeak, input.plan);
  return report;
}

/** pn and pv of a work-dir key, from the timeline's own events when it has them. */
function workdirNames(timeline: Timeline): (workdir: string) => { pn: string; pv: string } {
  const known = new Map<string, { pn: string; pv: string }>();
  for (const e of timeline.events)
    if (e.type === 'workdir-state' || e.type === 'workdir-appear')
      known.set(e.workdir, { pn: e.pn, pv: e.pv });
  for (const l of timeline.summary.lingering) known.set(l.workdir, { pn: l.pn, pv: l.pv });
  return (workdir) => known.get(workdir) ?? splitWorkdirKey(workdir);
}

/**
 * `<arch>/<pn>/<pv>` → pn and pv; a pn never holds '/' in BitBake, but the key is untrusted.
 *   'core2-64-poky-linux/zlib/1.3.1' → { pn: 'zlib', pv: '1.3.1' }
 */
export function splitWorkdirKey(key: string): { pn: string; pv: string } {
  const parts = key.split('/');
  if (parts[0] === 'work-shared') return { pn: parts.slice(2).join('/') || key, pv: '' };
  if (parts.length < 3) return { pn: key, pv: '' };
  return { pn: parts.slice(1, -1).join('/'), pv: parts[parts.length - 1]! };
}

function describeRun(input: ReportInput): ReportRun {
  const { header, summary, samples, events } = input.timeline;
  const times = [...samples.map((s) => s.t), ...events.map((e) => e.t)];
  const command = header?.command ?? null;
  const targets = targetsOf(input.timeline);
  const ownFs = ownFileSystem(header);
  const started = header ? Date.parse(header.startedAt) : Number.NaN;
  return {
    source: input.source ?? 'run',
    file: input.file,
    startedAt: Number.isFinite(started) ? started : times.length > 0 ? Math.min(...times) : null,
    endedAt: times.length > 0 ? Math.max(...times) : null,
    command,
    commands: commandsOf(input.timeline),
    target: targets.at(-1) ?? null,
    targets,
    buildDir: header?.buildDir ?? null,
    tmpdir: header?.tmpdir ?? null,
    fs: {
      mountPoint: header?.tmpfs.mountPoint ?? null,
      fsType: header?.tmpfs.fsType ?? null,
      sizeBytes: ownFs ? (header?.tmpfs.sizeBytes ?? null) : null,
      nrInodes: ownFs ? (header?.tmpfs.nrInodes ?? null) : null,
      ownFs,
    },
    exitCode: summary.exitCode ?? null,
    complete: !input.timeline.recomputed,
    samples: samples.length,
    builds: input.builds.map((b) => b.name),
    buildstatsBase: input.buildstatsBase ?? null,
    stopped: null,
  };
}

/** On a disk shared with other files, `used` counts them too: what was there at the first sample is not the run's. */
function baselineOnly(timeline: Timeline): OwnUsage {
  return new OwnUsage(runBaseline(ownFileSystem(timeline.header), timeline.samples[0]));
}

function describeUsage(timeline: Timeline, own: OwnUsage): ReportUsage {
  const { samples, summary, events } = timeline;
  const last = samples[samples.length - 1];
  const peakAt = samples.length > 0 ? summary.peak.at : null;
  // A killed watcher's summary is recomputed from the samples; with no sample, the summary's.
  const peakRunBytes =
    samples.length > 0 ? ownPeak(own, samples).bytes : own.of(summary.peak.at ?? 0, summary.peak.bytes);
  return {
    peak: {
      bytes: summary.peak.bytes,
      inodes: summary.peak.inodes,
      at: peakAt,
      inodesAt: samples.length > 0 ? (summary.peak.inodesAt ?? null) : null,
    },
    final: last ? { bytes: last.fs.usedBytes, inodes: last.fs.usedInodes, at: last.t } : null,
    totalBytes: last?.fs.totalBytes ?? 0,
    totalInodes: last?.fs.totalInodes ?? 0,
    baselineBytes: own.baselineBytes,
    outsideBytes: own.outsideBytes,
    peakRunBytes,
    enospc: events.flatMap((e) => (e.type === 'enospc' ? [{ at: e.t, message: e.message }] : [])),
  };
}

function sumWorkdirs(s: TimelineSample): number {
  let sum = 0;
  for (const b of Object.values(s.workdirs)) sum += b;
  return sum;
}

/**
 * Each sample split into the top work dirs, `other` work dirs, and the rest of what the
 * file system holds above the baseline (sstate-control, sysroots-components, deploy, logs…).
 */
export function fillOverTime(
  samples: readonly TimelineSample[],
  top: readonly RecipePeak[],
  own: OwnUsage,
  sizeBytes: number | null,
): Report['fill'] {
  const labels = new Map<string, number>();
  for (const r of top) labels.set(r.pn, (labels.get(r.pn) ?? 0) + 1);
  const series: FillSeries[] = [
    ...top.map((r) => ({
      key: r.workdir,
      label: r.workdir.startsWith('work-shared/')
        ? `work-shared/${r.pn}`
        : (labels.get(r.pn) ?? 0) > 1
          ? `${r.pn} ${r.pv}`
          : r.pn,
      kind: 'workdir' as const,
    })),
    { key: 'other', label: 'other work dirs', kind: 'other' },
    { key: 'non-work', label: 'rest of TMPDIR', kind: 'non-work' },
  ];
  const points = downsample(samples, MAX_POINTS).map((s) => {
    const values = top.map((r) => s.workdirs[r.workdir] ?? 0);
    const shown = values.reduce((a, b) => a + b, 0);
    const all = sumWorkdirs(s);
    const used = own.of(s.t, s.fs.usedBytes);
    values.push(Math.max(0, all - shown), Math.max(0, used - all));
    return { t: s.t, used, values };
  });
  return { series, points, sizeBytes };
}

/** At most `max` samples: the fullest of each equal stretch, and always the last one. */
export function downsample<T extends TimelineSample>(samples: readonly T[], max: number): T[] {
  if (samples.length <= max) return [...samples];
  const out: T[] = [];
  for (let i = 0; i < max - 1; i++) {
    const from = Math.floor((i * samples.length) / (max - 1));
    const to = Math.max(from + 1, Math.floor(((i + 1) * samples.length) / (max - 1)));
    let best = samples[from]!;
    for (let j = from + 1; j < to && j < samples.length; j++)
      if (samples[j]!.fs.usedBytes > best.fs.usedBytes) best = samples[j]!;
    out.push(best);
  }
  const last = samples[samples.length - 1]!;
  if (out[out.length - 1] !== last) out.push(last);
  return out;
}

/**
 * CPU seconds of one buildstats task: the /proc stat ticks (utime, stime, cutime, cstime at
 * USER_HZ 100), or, when a task file has none, getrusage of the task and its children.
 */
export function taskCpuSeconds(t: BuildstatsTask): number {
  const ticks = [t.utime, t.stime, t.cutime, t.cstime];
  if (ticks.some((x) => x !== undefined)) return ticks.reduce<number>((a, b) => a + (b ?? 0), 0) / 100;
  return (t.ruUtime ?? 0) + (t.ruStime ?? 0) + (t.childRuUtime ?? 0) + (t.childRuStime ?? 0);
}

/** CPU time per recipe (PF), most first. */
export function cpuByRecipe(tasks: readonly BuildstatsTask[]): RecipeCpu[] {
  const byPf = new Map<string, RecipeCpu>();
  for (const t of tasks) {
    if (t.pf === '') continue;
    const row = byPf.get(t.pf) ?? { pn: splitPF(t.pf).pn, pf: t.pf, cpuSeconds: 0, elapsed: 0, tasks: 0 };
    row.cpuSeconds += taskCpuSeconds(t);
    row.elapsed += t.elapsed ?? 0;
    row.tasks++;
    byPf.set(t.pf, row);
  }
  const round = (n: number) => Math.round(n * 100) / 100;
  return [...byPf.values()]
    .map((r) => ({ ...r, cpuSeconds: round(r.cpuSeconds), elapsed: round(r.elapsed) }))
    .filter((r) => r.cpuSeconds > 0 || r.elapsed > 0)
    .sort((a, b) => b.cpuSeconds - a.cpuSeconds || b.elapsed - a.elapsed || (a.pf < b.pf ? -1 : 1));
}
