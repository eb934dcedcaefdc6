// Renders `rambake report` as text: aligned sections with human sizes, times as UTC clock
// times with the offset from the run's start (stable in golden files, whatever the zone).

import type { Report, ReportRunBrief, ReportStep, ReportStop } from '../analyze/report-types.js';
import {
  type Colors,
  formatBytes,
  formatCount,
  formatDuration,
  formatPercent,
  plural,
  renderTable,
} from '../text/format.js';
import { renderShellCommand } from '../text/shell.js';

const MAX_SKIPPED = 10;
const indent = (lines: string[]) => lines.map((l) => `  ${l}`);

/** '2025-11-30 14:27:10 UTC (+2m 43s)'; '-' when unknown. */
export function formatWhen(at: number | null, start: number | null): string {
  if (at === null) return '-';
  const clock = `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  return start === null ? clock : `${clock} (+${formatDuration(Math.max(0, (at - start) / 1000))})`;
}

/** The report's title: every target, and how the build ran. */
export function reportTitle(r: Report): string {
  if (r.run.source === 'buildstats')
    return `rambake report: buildstats ${r.run.builds.join(' ')} (no recorded run)`;
  const targets = r.run.targets.length > 0 ? r.run.targets.join(' ') : r.run.file;
  const n = r.run.commands.length;
  return `rambake report: ${targets}${n > 1 ? ` in ${n} steps` : ''}`;
}

/** 'ok', 'stopped by the disk monitor: …', 'failed: …', or '-' when unknown. */
export function formatOutcome(exitCode: number | null, stopped: ReportStop | null): string {
  if (stopped)
    return `${stopped.kind === 'diskmon' ? "stopped by BitBake's disk monitor" : stopped.kind === 'enospc' ? 'ENOSPC' : 'failed'}: ${stopped.message}`;
  return exitCode === null ? '-' : exitCode === 0 ? 'ok' : `exit ${exitCode}`;
}

export function renderReportText(r: Report, c: Colors): string[] {
  const measured =
    r.run.source === 'buildstats'
      ? []
      : [...renderUsage(r, c), '', ...renderSteps(r, c), ...renderComparison(r, c)];
  return [
    ...renderRun(r, c),
    '',
    ...measured,
    ...renderPeaks(r, c),
    '',
    ...(r.run.source === 'buildstats' ? [] : [...renderLingering(r, c), '']),
    ...renderSstate(r, c),
    '',
    ...renderRecommendations(r, c),
    ...renderSkipped(r, c),
  ];
}

function renderRun(r: Report, c: Colors): string[] {
  const run = r.run;
  const fs = run.fs;
  const where =
    fs.fsType === null
      ? 'unknown file system'
      : `${fs.fsType} at ${fs.mountPoint}${fs.sizeBytes !== null ? ` (size=${formatBytes(fs.sizeBytes)})` : ''}`;
  const span =
    run.startedAt !== null && run.endedAt !== null
      ? formatDuration((run.endedAt - run.startedAt) / 1000)
      : '-';
  const out = [c.bold(reportTitle(r))];
  if (run.source === 'buildstats') {
    out.push(
      ...indent(
        renderTable([
          ['buildstats', run.file],
          ['outcome', formatOutcome(null, run.stopped)],
        ]),
      ),
      `  ${c.yellow('no recorded run: CPU, churn and sstate from buildstats only; record one with rambake run -- bitbake <target> for the fill, peaks and lingering dirs')}`,
    );
    return out;
  }
  out.push(
    ...indent(
      renderTable([
        ['run', run.file],
        [
          run.commands.length > 1 ? 'commands' : 'command',
          run.commands.length > 0 ? run.commands.map(renderShellCommand).join(', then ') : '-',
        ],
        ['targets', run.targets.join(' ') || '-'],
        ['started', formatWhen(run.startedAt, null)],
        ['lasted', `${span}, ${run.samples} samples`],
        ['TMPDIR', `${run.tmpdir ?? '-'} on ${where}`],
        ['exit code', run.exitCode === null ? '-' : String(run.exitCode)],
        ['outcome', formatOutcome(run.exitCode, run.stopped)],
        ['buildstats', run.builds.length > 0 ? `${run.builds.join(' ')} in ${run.buildstatsBase}` : '-'],
      ]),
    ),
  );
  if (!run.complete)
    out.push(`  ${c.yellow('no summary line (watcher killed?): figures recomputed from the samples')}`);
  return out;
}

function renderUsage(r: Report, c: Colors): string[] {
  const u = r.usage;
  const start = r.run.startedAt;
  const out = [c.bold('Usage')];
  const rows = [
    ['', 'bytes', 'inodes', 'when'].map(c.dim),
    ['peak', formatBytes(u.peak.bytes), formatCount(u.peak.inodes), formatWhen(u.peak.at, start)],
  ];
  if (u.peak.inodesAt !== null && u.peak.inodesAt !== u.peak.at)
    rows.push(['inode peak', '', '', formatWhen(u.peak.inodesAt, start)]);
  if (u.final)
    rows.push([
      'final',
      formatBytes(u.final.bytes),
      formatCount(u.final.inodes),
      formatWhen(u.final.at, start),
    ]);
  if (u.totalBytes > 0)
    rows.push([
      'file system',
      formatBytes(u.totalBytes),
      formatCount(u.totalInodes),
      `peak ${formatPercent(u.peak.bytes, u.totalBytes)} full`,
    ]);
  out.push(...indent(renderTable(rows, ['left', 'right', 'right'])));
  if (u.baselineBytes > 0)
    out.push(
      `  TMPDIR shares its file system: ${formatBytes(u.baselineBytes)} was there before${u.outsideBytes > 0 ? `, ${formatBytes(u.outsideBytes)} the run wrote beside TMPDIR (sstate, downloads)` : ''}; the run's own peak is ${formatBytes(u.peakRunBytes)}`,
    );
  for (const e of u.enospc) out.push(`  ${c.red(`ENOSPC ${formatWhen(e.at, start)}: ${e.message}`)}`);
  if (r.heldGiBMin > 0)
    out.push(`  held by finished recipes waiting for do_rm_work: ${r.heldGiBMin.toFixed(3)} GiB·min`);
  return out;
}

function renderPeaks(r: Report, c: Colors): string[] {
  const out: string[] = [];
  // Without a recorded run there were no samples, so no work-dir peaks.
  if (r.run.source !== 'buildstats') {
    out.push(c.bold('Top recipes by peak work-dir size'));
    if (r.topByPeak.length === 0) out.push('  none measured');
    else {
      const rows = [['recipe', 'version', 'peak', 'work dir'].map(c.dim)];
      for (const p of r.topByPeak) rows.push([p.pn, p.pv, formatBytes(p.bytes), p.workdir]);
      out.push(...indent(renderTable(rows, ['left', 'left', 'right'])));
    }
    out.push('');
  }
  out.push(c.bold('Top recipes by CPU time (buildstats)'));
  if (r.topByCpu.length === 0) out.push('  no buildstats for this run');
  else {
    const rows = [['recipe', 'CPU', 'wall', 'tasks'].map(c.dim)];
    for (const x of r.topByCpu)
      rows.push([x.pf, formatDuration(x.cpuSeconds), formatDuration(x.elapsed), String(x.tasks)]);
    out.push(...indent(renderTable(rows, ['left', 'right', 'right', 'right'])));
  }
  return out;
}

/** A run in steps: each step's command, outcome and the run's own peak while it ran. */
function renderSteps(r: Report, c: Colors): string[] {
  if (r.steps.length === 0 || r.comparison) return [];
  return [c.bold(`Steps (${r.steps.length})`), ...indent(stepRows(r.steps, c)), ''];
}

function stepRows(steps: readonly ReportStep[], c: Colors): string[] {
  const rows = [['step', 'peak', 'outcome', 'command'].map(c.dim)];
  for (const s of steps)
    rows.push([
      String(s.index + 1),
      s.peakAt === null ? '-' : formatBytes(s.peakBytes),
      s.endedAt === null ? 'did not end' : formatOutcome(s.exitCode, null),
      renderShellCommand(s.command),
    ]);
  return renderTable(rows, ['right', 'right']);
}

/** One go vs in steps: the same targets, the two peaks and each step's. */
function renderComparison(r: Report, c: Colors): string[] {
  const cmp = r.comparison;
  if (!cmp) return [];
  const row = (name: string, b: ReportRunBrief) => [
    name,
    formatBytes(b.peakBytes),
    formatOutcome(b.exitCode, b.stopped),
    b.file,
  ];
  const out = [c.bold(`One go vs in steps: ${cmp.stepped.targets.join(' ')}`)];
  out.push(
    ...indent(
      renderTable(
        [
          ['run', 'peak', 'outcome', 'timeline'].map(c.dim),
          row('one go', cmp.oneGo),
          row('in steps', cmp.stepped),
        ],
        ['left', 'right'],
      ),
    ),
    ...indent(indent(stepRows(cmp.stepped.steps, c))),
  );
  const size = cmp.sizeBytes === null ? '' : ` (tmpfs size ${formatBytes(cmp.sizeBytes)})`;
  if (cmp.ratio !== null)
    out.push(`  in steps the peak was ${Math.round(cmp.ratio * 100)}% of the one-go peak${size}`);
  return [...out, ''];
}

function renderLingering(r: Report, c: Colors): string[] {
  const total = r.lingering.reduce((n, l) => n + l.bytes, 0);
  const out = [c.bold(`Lingering work dirs at the end: ${r.lingering.length} (${formatBytes(total)})`)];
  if (r.lingering.length === 0) return [...out, '  none'];
  const rows = [['work dir', 'state', 'size', 'why'].map(c.dim)];
  for (const l of r.lingering) rows.push([l.workdir, l.state, formatBytes(l.bytes), l.reason]);
  return [...out, ...indent(renderTable(rows, ['left', 'left', 'right']))];
}

function renderSstate(r: Report, c: Colors): string[] {
  const out = [c.bold('Sstate reuse and churn')];
  if (r.sstate.length === 0) return [...out, '  no buildstats or console log for this run'];
  for (const s of r.sstate) {
    const m = s.summary;
    out.push(
      m
        ? `  ${s.build}: wanted ${m.wanted}, local ${m.local}, mirrors ${m.mirrors}, missed ${m.missed}, current ${m.current} (${m.matchPercent}% match, ${m.completePercent}% complete)`
        : `  ${s.build}: Sstate summary unknown (no console log)`,
    );
    if (s.reuse.length > 0) {
      const rows = [['task', 'setscene', 'real', 'reused'].map(c.dim)];
      for (const x of s.reuse)
        rows.push([
          x.task,
          String(x.setscene),
          String(x.real),
          formatPercent(x.setscene, x.setscene + x.real),
        ]);
      out.push(...indent(indent(renderTable(rows, ['left', 'right', 'right', 'right']))));
    }
  }
  for (const b of r.churn?.builds ?? []) {
    const redundant = b.redundant.map((x) => x.pf).join(' ');
    out.push(`  ${b.name}: redundant do_package_setscene: ${redundant || 'none'}`);
    if (b.writeSetsceneAfterRmWork.length > 0)
      out.push(
        `  ${b.name}: ${b.writeSetsceneAfterRmWork.length} write setscene task(s) after the previous build's rm_work`,
      );
  }
  const rec = r.churn?.recurring ?? [];
  out.push(
    `  recurring churn (over the last ${plural(r.churn?.analysed ?? 0, 'build')}): ${rec.map((x) => x.pf).join(' ') || 'none'}`,
  );
  return out;
}

function renderRecommendations(r: Report, c: Colors): string[] {
  const out = [c.bold('Recommendations')];
  if (r.recommendations.length === 0) return [...out, '  none'];
  for (const x of r.recommendations) {
    const mark = x.severity === 'warn' ? c.yellow('!') : '-';
    out.push(`  ${mark} ${x.text} ${c.dim(`[${x.rule}]`)}`);
  }
  return out;
}

function renderSkipped(r: Report, c: Colors): string[] {
  if (r.skipped.length === 0) return [];
  const out = ['', c.bold(`Skipped (${r.skipped.length})`)];
  for (const s of r.skipped.slice(0, MAX_SKIPPED)) out.push(`  ${s.path}: ${s.why}`);
  if (r.skipped.length > MAX_SKIPPED)
    out.push(`  … and ${r.skipped.length - MAX_SKIPPED} more (--json lists all)`);
  return out;
}
