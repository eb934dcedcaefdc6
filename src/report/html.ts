// Renders `rambake report` as one self-contained HTML page: the shell (inline CSS, light and
// dark) comes from templates/report.html, the charts are inline SVG from svg.ts. Every name,
// path and message from the build goes through escapeHtml; nothing else is user data.

import { readFileSync } from 'node:fs';
import type { Report, ReportRunBrief } from '../analyze/report-types.js';
import { formatBytes, formatCount, formatDuration, formatPercent } from '../text/format.js';
import { renderShellCommand } from '../text/shell.js';
import { formatOutcome, formatWhen, reportTitle } from './report-text.js';
import { escapeHtml as e, limitInView, renderAreaChart, renderBarChart } from './svg.js';

/** templates/ beside src/ (or dist/): both are two levels below the package root. */
export function readReportTemplate(): string {
  return readFileSync(new URL('../../templates/report.html', import.meta.url), 'utf8');
}

export function renderHtml(r: Report, template: string): string {
  const title = reportTitle(r);
  const measured = r.run.source === 'run';
  const body = [
    `<h1>${e(title)}</h1>`,
    `<p class="sub">${e(r.run.commands.map(renderShellCommand).join(', then '))} · ${e(formatWhen(r.run.startedAt, null))} · <span class="mono">${e(r.run.file)}</span></p>`,
    measured
      ? cards(r)
      : '<p class="note" id="no-run">No recorded run: CPU, churn and sstate reuse come from buildstats alone; record one with <span class="mono">rambake run -- bitbake TARGET</span> for the fill over time, the peaks and the lingering dirs.</p>',
    measured ? section('Fill over time', fillChart(r)) : '',
    r.comparison ? section('One go vs in steps', comparison(r)) : '',
    measured ? section('Peak work-dir size per recipe', peakChart(r)) : '',
    section('CPU time per recipe', cpuChart(r)),
    section('Recommendations', recommendations(r)),
    measured ? section('Lingering work dirs', lingering(r)) : '',
    section('Sstate reuse', sstate(r)),
    section('Setscene churn', churn(r)),
    r.skipped.length > 0 ? section('Skipped inputs', skipped(r)) : '',
  ].join('\n');
  // A function replacement: a '$&' or "$'" in user data must stay literal text.
  return template.replace('{{title}}', () => e(title)).replace('{{body}}', () => body);
}

function section(title: string, html: string): string {
  const id = title.toLowerCase().replace(/[^a-z]+/g, '-');
  return `<section id="${id}">\n<h2>${e(title)}</h2>\n${html}\n</section>`;
}

function card(k: string, v: string, w = ''): string {
  return `<div class="card"><div class="k">${e(k)}</div><div class="v">${e(v)}</div><div class="w">${e(w)}</div></div>`;
}

function cards(r: Report): string {
  const u = r.usage;
  const start = r.run.startedAt;
  const span =
    start !== null && r.run.endedAt !== null ? formatDuration((r.run.endedAt - start) / 1000) : '-';
  const fs = r.run.fs;
  const list = [
    card('peak', formatBytes(u.peak.bytes), formatWhen(u.peak.at, start)),
    card('final', u.final ? formatBytes(u.final.bytes) : '-', u.final ? formatWhen(u.final.at, start) : ''),
    card('peak inodes', formatCount(u.peak.inodes), u.final ? `final ${formatCount(u.final.inodes)}` : ''),
    fs.ownFs
      ? card(
          'tmpfs size',
          fs.sizeBytes === null ? '-' : formatBytes(fs.sizeBytes),
          `peak ${formatPercent(u.peak.bytes, u.totalBytes)} full`,
        )
      : card(
          'run growth',
          formatBytes(u.peakRunBytes),
          `on ${fs.fsType ?? '?'} shared with ${formatBytes(u.baselineBytes)}`,
        ),
    card('lasted', span, `${r.run.samples} samples`),
    card(
      'exit code',
      r.run.exitCode === null ? '-' : String(r.run.exitCode),
      r.run.stopped
        ? formatOutcome(r.run.exitCode, r.run.stopped)
        : r.run.complete
          ? ''
          : 'watcher killed: recomputed',
    ),
  ];
  return `<div class="cards">${list.join('')}</div>`;
}

function fillChart(r: Report): string {
  const f = r.fill;
  if (f.points.length === 0) return '<p class="muted">No samples in this run.</p>';
  const cls = (kind: string, i: number) =>
    kind === 'other' ? 'other' : kind === 'non-work' ? 'nonwork' : `c${i % 10}`;
  const series = f.series.map((s, i) => ({ label: s.label, cls: cls(s.kind, i) }));
  const peakPoint = f.points.reduce((a, b) => (b.used > a.used ? b : a));
  const svg = renderAreaChart({
    title: 'TMPDIR fill over time, stacked by work dir',
    times: f.points.map((p) => p.t),
    series,
    values: f.points.map((p) => p.values),
    ...(f.sizeBytes === null
      ? {}
      : { limit: { bytes: f.sizeBytes, label: `tmpfs size ${formatBytes(f.sizeBytes)}` } }),
    mark: { t: peakPoint.t, bytes: peakPoint.used, label: `peak ${formatBytes(peakPoint.used)}` },
    phases: r.steps.map((s) => ({ t: s.startedAt, label: `step ${s.index + 1}` })),
  });
  const top = Math.max(...f.points.map((p) => p.values.reduce((a, b) => a + b, 0)), peakPoint.used);
  const size =
    f.sizeBytes === null
      ? []
      : [
          limitInView(f.sizeBytes, top)
            ? '<li><span class="sw limit"></span>tmpfs size</li>'
            : `<li><span class="sw limit"></span>tmpfs size ${e(formatBytes(f.sizeBytes))}: above the scale</li>`,
        ];
  const legend = series.map((s) => `<li><span class="sw ${s.cls}"></span>${e(s.label)}</li>`).concat(size);
  const note =
    r.usage.baselineBytes > 0
      ? `<p class="note">TMPDIR shares its file system: the ${e(formatBytes(r.usage.baselineBytes))} there before the run${r.usage.outsideBytes > 0 ? ` and the ${e(formatBytes(r.usage.outsideBytes))} it wrote beside TMPDIR (sstate, downloads)` : ''} are left out.</p>`
      : '';
  return `<figure id="chart-fill">${svg}<ul class="legend">${legend.join('')}</ul>${note}</figure>`;
}

/** The same targets in one go and in steps: a bar per run and per step, and a table. */
function comparison(r: Report): string {
  const cmp = r.comparison!;
  const bar = (label: string, bytes: number, title: string) => ({
    label,
    value: bytes,
    text: formatBytes(bytes),
    title: `${title}: ${formatBytes(bytes)}`,
  });
  const bars = [
    bar('one go', cmp.oneGo.peakBytes, cmp.oneGo.file),
    bar('in steps', cmp.stepped.peakBytes, cmp.stepped.file),
    ...cmp.stepped.steps.map((s) =>
      bar(`step ${s.index + 1}: ${s.targets.join(' ')}`, s.peakBytes, renderShellCommand(s.command)),
    ),
  ];
  const row = (name: string, b: ReportRunBrief) => [
    e(name),
    e(formatBytes(b.peakBytes)),
    e(formatOutcome(b.exitCode, b.stopped)),
    `<span class="mono">${e(b.file)}</span>`,
  ];
  const rows = [
    row('one go', cmp.oneGo),
    row('in steps', cmp.stepped),
    ...cmp.stepped.steps.map((s) => [
      e(`step ${s.index + 1}`),
      e(s.peakAt === null ? '-' : formatBytes(s.peakBytes)),
      e(s.endedAt === null ? 'did not end' : formatOutcome(s.exitCode, null)),
      `<span class="mono">${e(renderShellCommand(s.command))}</span>`,
    ]),
  ];
  const size = cmp.sizeBytes === null ? '' : ` on a ${formatBytes(cmp.sizeBytes)} tmpfs`;
  const ratio =
    cmp.ratio === null
      ? ''
      : `<p class="note">In steps the peak was ${Math.round(cmp.ratio * 100)}% of the one-go peak${e(size)}.</p>`;
  return `<figure id="chart-compare">${renderBarChart(bars, 'Peak in one go and in steps', 'bar')}</figure>${ratio}${table(['run', 'peak', 'outcome', 'timeline / command'], rows, [1])}`;
}

function peakChart(r: Report): string {
  if (r.topByPeak.length === 0) return '<p class="muted">No work dirs measured.</p>';
  const bars = r.topByPeak.map((p) => ({
    label: p.pn,
    value: p.bytes,
    text: formatBytes(p.bytes),
    title: `${p.workdir}: ${formatBytes(p.bytes)}`,
  }));
  return `<figure id="chart-peak">${renderBarChart(bars, 'Peak work-dir size per recipe')}</figure>`;
}

function cpuChart(r: Report): string {
  if (r.topByCpu.length === 0) return '<p class="muted">No buildstats for this run.</p>';
  const bars = r.topByCpu.map((x) => ({
    label: x.pn,
    value: x.cpuSeconds,
    text: formatDuration(x.cpuSeconds),
    title: `${x.pf}: ${formatDuration(x.cpuSeconds)} CPU, ${formatDuration(x.elapsed)} wall, ${x.tasks} tasks`,
  }));
  return `<figure id="chart-cpu">${renderBarChart(bars, 'CPU time per recipe', 'bar2')}</figure>`;
}

function table(head: string[], rows: string[][], numeric: number[] = []): string {
  const th = head.map((h, i) => `<th${numeric.includes(i) ? ' class="n"' : ''}>${e(h)}</th>`).join('');
  const trs = rows.map(
    (row) =>
      `<tr>${row.map((c, i) => `<td${numeric.includes(i) ? ' class="n"' : ''}>${c}</td>`).join('')}</tr>`,
  );
  return `<table><thead><tr>${th}</tr></thead><tbody>${trs.join('\n')}</tbody></table>`;
}

function recommendations(r: Report): string {
  if (r.recommendations.length === 0) return '<p class="muted">Nothing to change.</p>';
  const items = r.recommendations.map(
    (x) => `<li class="${x.severity}">${e(x.text)}<span class="rule">[${e(x.rule)}]</span></li>`,
  );
  return `<ul class="recs">${items.join('\n')}</ul>`;
}

function lingering(r: Report): string {
  if (r.lingering.length === 0) return '<p class="muted">Every work dir was cleaned.</p>';
  const rows = r.lingering.map((l) => [
    `<span class="mono">${e(l.workdir)}</span>`,
    e(l.state),
    e(formatBytes(l.bytes)),
    e(l.reason),
  ]);
  return table(['work dir', 'state', 'size', 'why'], rows, [2]);
}

function sstate(r: Report): string {
  if (r.sstate.length === 0) return '<p class="muted">No buildstats or console log for this run.</p>';
  return r.sstate
    .map((s) => {
      const m = s.summary;
      const line = m
        ? `Sstate summary: wanted ${m.wanted}, local ${m.local}, mirrors ${m.mirrors}, missed ${m.missed}, current ${m.current} (${m.matchPercent}% match, ${m.completePercent}% complete)`
        : 'Sstate summary unknown (no console log).';
      const rows = s.reuse.map((x) => [
        `<span class="mono">${e(x.task)}</span>`,
        String(x.setscene),
        String(x.real),
        e(formatPercent(x.setscene, x.setscene + x.real)),
      ]);
      return `<h3 class="mono">${e(s.build)}</h3><p>${e(line)}</p>${rows.length > 0 ? table(['task', 'setscene', 'real', 'reused'], rows, [1, 2, 3]) : ''}`;
    })
    .join('\n');
}

function churn(r: Report): string {
  const c = r.churn;
  if (!c) return '<p class="muted">No churn analysis (no buildstats for this run).</p>';
  const rows = c.builds.flatMap((b) =>
    [
      ...b.redundant.map((x) => ({ x, kind: 'redundant' })),
      ...b.legitimate.map((x) => ({ x, kind: 'legitimate' })),
    ].map(({ x, kind }) => [
      e(b.name),
      `<span class="mono">${e(x.pf)}</span>`,
      kind === 'redundant' ? '<span class="warn">redundant</span>' : 'legitimate',
      x.elapsed === null ? '-' : e(formatDuration(x.elapsed)),
      e(x.cause ? `${x.cause.kind}: ${x.cause.detail}` : x.consumers.join(' ')),
    ]),
  );
  const restores =
    rows.length > 0
      ? table(['build', 'PF', 'do_package_setscene', 'time', 'cause / consumers'], rows, [3])
      : '<p class="muted">No do_package_setscene in this run.</p>';
  const rec =
    c.recurring.length > 0
      ? table(
          ['recurring in', 'PF', 'builds', 'time'],
          c.recurring.map((x) => [
            String(x.builds.length),
            `<span class="mono">${e(x.pf)}</span>`,
            e(x.builds.join(' ')),
            e(formatDuration(x.elapsed)),
          ]),
          [0, 3],
        )
      : `<p class="muted">No recurring churn over the last ${c.analysed === 1 ? 'build' : `${c.analysed} builds`}.</p>`;
  return `${restores}\n${rec}`;
}

function skipped(r: Report): string {
  const rows = r.skipped.map((s) => [`<span class="mono">${e(s.path)}</span>`, e(s.why)]);
  return table(['input', 'why'], rows);
}
