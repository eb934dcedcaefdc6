// Rendering for `rambake watch` and `rambake run`: the live view (redrawn in place on a TTY),
// plain timestamped lines otherwise, and the end-of-build summary. Pure: values in, lines out.

import {
  type Colors,
  formatBytes,
  formatCount,
  formatDuration,
  formatPercent,
  renderTable,
} from '../text/format.js';
import type { TimelineEvent, TimelineSummary } from '../timeline/timeline-types.js';
import type { OwnPeak } from '../watch/own-peak.js';
import type { StepResult } from '../watch/run.js';
import type { WatchView } from '../watch/view.js';

const BAR = 30;
/** Warn when the forecast says full within this many seconds. */
const WARN_SECONDS = 15 * 60;

export function fillBar(used: number, total: number, colors: Colors, width = BAR): string {
  const share = total > 0 ? Math.min(1, Math.max(0, used / total)) : 0;
  const full = Math.round(share * width);
  const bar = `${'#'.repeat(full)}${'.'.repeat(width - full)}`;
  const paint = share >= 0.9 ? colors.red : share >= 0.75 ? colors.yellow : colors.green;
  return `[${paint(bar)}]`;
}

/** "tmpfs full in ~4m 00s at current rate: webkitgtk/do_compile writes 120 MiB/s" */
export function warningsOf(view: WatchView): string[] {
  const out: string[] = [];
  if (view.enospc) out.push('TMPDIR file system is FULL (ENOSPC): tasks writing there fail');
  const f = view.forecast;
  if (f?.secondsToFull !== undefined && f.secondsToFull < WARN_SECONDS && !view.enospc) {
    let text = `tmpfs full in ~${formatDuration(f.secondsToFull)} at current rate`;
    if (f.topWriter && view.topWriterTask)
      text += `: ${view.topWriterTask} writes ${formatBytes(f.topWriter.bytesPerSecond)}/s`;
    out.push(text);
  }
  return out;
}

export function renderLiveView(view: WatchView, colors: Colors, now = view.t): string[] {
  const lines: string[] = [];
  const fs = view.fs;
  if (fs) {
    lines.push(
      `${colors.bold('bytes ')} ${fillBar(fs.usedBytes, fs.totalBytes, colors)} ${formatBytes(fs.usedBytes)} of ${formatBytes(fs.totalBytes)} (${formatPercent(fs.usedBytes, fs.totalBytes)})`,
      `${colors.bold('inodes')} ${fillBar(fs.usedInodes, fs.totalInodes, colors)} ${formatCount(fs.usedInodes)} of ${formatCount(fs.totalInodes)} (${formatPercent(fs.usedInodes, fs.totalInodes)})`,
    );
  }
  const f = view.forecast;
  const rate = f ? `${f.bytesPerSecond >= 0 ? '+' : ''}${formatBytes(f.bytesPerSecond)}/s` : 'n/a';
  const eta = f?.secondsToFull === undefined ? 'not filling' : `full in ~${formatDuration(f.secondsToFull)}`;
  lines.push(
    `${view.idle ? 'idle: no build running' : `rate ${rate}, ${eta}`}; waiting for rm_work ${formatBytes(view.waitingBytes)}, held ${view.heldGiBMin.toFixed(2)} GiB·min`,
  );
  const counts = Object.entries(view.counts)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  lines.push(colors.dim(counts === '' ? 'no work dirs yet' : counts));
  const rows = view.top.map((d) => [
    d.workdir,
    d.state,
    formatBytes(d.bytes),
    formatDuration(Math.max(0, (now - d.since) / 1000)),
    d.running.join(' ') || (d.reason ?? ''),
  ]);
  if (rows.length > 0)
    lines.push(
      ...renderTable(
        [['work dir', 'state', 'size', 'age', 'task / why'], ...rows],
        ['left', 'left', 'right', 'right'],
      ),
    );
  for (const w of warningsOf(view)) lines.push(colors.yellow(`! ${w}`));
  return lines;
}

/** One frame: cursor up over the previous frame, each line cleared; written in one go. */
export function frameText(lines: readonly string[], previousLineCount: number): string {
  const up = previousLineCount > 0 ? `\x1b[${previousLineCount}F` : '';
  const body = lines.map((l) => `\x1b[2K${l}\n`).join('');
  // Lines left over from a taller previous frame are cleared too.
  const extra = Math.max(0, previousLineCount - lines.length);
  const clear = extra > 0 ? `${'\x1b[2K\n'.repeat(extra)}\x1b[${extra}F` : '';
  return `${up}${body}${clear}`;
}

const clock = (t: number) => new Date(t).toISOString().slice(11, 19);

/** The non-TTY line per sample. */
export function renderSampleLine(view: WatchView): string {
  const fs = view.fs;
  const fill = fs
    ? `${formatBytes(fs.usedBytes)}/${formatBytes(fs.totalBytes)} (${formatPercent(fs.usedBytes, fs.totalBytes)}), inodes ${formatCount(fs.usedInodes)}/${formatCount(fs.totalInodes)}`
    : 'TMPDIR not found';
  const eta = view.forecast?.secondsToFull;
  const active = view.counts.active ?? 0;
  const waiting = view.counts['waiting-rm-work'] ?? 0;
  const idle = view.idle ? '; idle' : '';
  return `${clock(view.t)} ${fill}${idle}; ${active} active, ${waiting} waiting rm_work (${formatBytes(view.waitingBytes)})${eta === undefined ? '' : `; full in ~${formatDuration(eta)}`}${warningsOf(
    view,
  )
    .map((w) => `; ${w}`)
    .join('')}`;
}

/** The non-TTY line per event worth a line (state changes, builds, ENOSPC); undefined to stay quiet. */
export function renderEventLine(e: TimelineEvent): string | undefined {
  switch (e.type) {
    case 'workdir-state':
      return `${clock(e.t)} ${e.workdir}: ${e.state}${e.reason ? ` (${e.reason})` : ''}`;
    case 'build-start':
      return `${clock(e.t)} build started${e.log ? ` (${e.log})` : ''}`;
    case 'build-end':
      return `${clock(e.t)} build ended${e.exitCode === undefined ? '' : ` (exit ${e.exitCode})`}`;
    case 'enospc':
      return `${clock(e.t)} ENOSPC: ${e.message}`;
    default:
      return undefined;
  }
}

export function renderRunSummary(
  s: Omit<TimelineSummary, 'type'> & { ownPeak?: OwnPeak },
  colors: Colors,
  timelinePath?: string,
  steps?: readonly StepResult[],
): string[] {
  const lines = [colors.bold('End of build')];
  const when = (t: number | null | undefined) => (t ? ` at ${new Date(t).toISOString()}` : '');
  if (s.baselineBytes === undefined)
    lines.push(`peak: ${formatBytes(s.peak.bytes)}${when(s.peak.at)}; ${formatCount(s.peak.inodes)} inodes`);
  // A shared disk: its used bytes count other files too; the run's own peak is TMPDIR's growth.
  else {
    const own = s.ownPeak ?? {
      bytes: Math.max(0, s.peak.bytes - s.baselineBytes),
      at: s.peak.at,
      outsideBytes: 0,
    };
    const beside =
      own.outsideBytes > 0
        ? ` and the ${formatBytes(own.outsideBytes)} of sstate and downloads the run wrote beside TMPDIR`
        : '';
    lines.push(
      `peak: ${formatBytes(own.bytes)} of TMPDIR's own${when(own.at)} (TMPDIR shares its disk: what the disk held before${beside} left out; ${formatBytes(s.peak.bytes)} used at the fullest)`,
    );
  }
  if (s.topAtPeak && s.topAtPeak.length > 0) {
    lines.push('top work dirs at the peak:');
    lines.push(
      ...renderTable(
        s.topAtPeak.map((d) => [`  ${d.workdir}`, formatBytes(d.bytes)]),
        ['left', 'right'],
      ),
    );
  }
  lines.push(`RAM held by finished recipes waiting for rm_work: ${s.heldGiBMin.toFixed(3)} GiB·min`);
  if (s.lingering.length === 0) lines.push('lingering: none');
  else {
    const total = s.lingering.reduce((n, l) => n + l.bytes, 0);
    lines.push(`lingering: ${s.lingering.length} dirs, ${formatBytes(total)}`);
    lines.push(
      ...renderTable(
        s.lingering.map((l) => [`  ${l.workdir}`, l.state, formatBytes(l.bytes), l.reason]),
        ['left', 'left', 'right'],
      ),
    );
  }
  if (steps && steps.length > 1) {
    lines.push('steps:');
    lines.push(
      ...renderTable(
        steps.map((st) => [
          `  ${st.command.join(' ')}`,
          st.exitCode === 0 ? 'ok' : colors.red(`exit ${st.exitCode}`),
          st.peak ? `peak ${formatBytes(st.peak.bytes)}` : 'no sample',
        ]),
        ['left', 'left', 'right'],
      ),
    );
    const failed = steps.find((st) => st.exitCode !== 0);
    if (failed) lines.push(colors.red(`stopped at the first failure: ${failed.command.join(' ')}`));
  }
  if (s.exitCode !== undefined) lines.push(`exit code: ${s.exitCode}`);
  if (timelinePath) lines.push(colors.dim(`timeline: ${timelinePath}`));
  return lines;
}
