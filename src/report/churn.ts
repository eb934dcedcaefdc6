// Renders `rambake churn` as text: per build the Sstate summary, setscene reuse per task, the
// redundant and legitimate do_package restores, the post-rm_work write setscene tasks; then
// the recurring churn with causes and fixes, and what was skipped.

import type { ChurnBuild, ChurnReport, Restore, WriteSetscene } from '../analyze/churn.js';
import { type Colors, formatBytes, formatDuration, renderTable } from '../text/format.js';

const MAX_SKIPPED = 10;

const secs = (n: number | null) => (n === null ? '-' : formatDuration(n));
const bytes = (n: number | null) => (n === null ? '-' : formatBytes(n));
const indent = (lines: string[]) => lines.map((l) => `  ${l}`);

export function renderChurn(r: ChurnReport, c: Colors): string[] {
  const out: string[] = [];
  if (r.builds.length === 0) {
    out.push(`No builds in ${r.buildstatsBase} (buildstats is off, or nothing was built yet).`);
  } else if (r.requestedBuilds !== undefined && r.builds.length < r.requestedBuilds) {
    out.push(
      c.yellow(
        `${r.builds.length} of the ${r.requestedBuilds} builds asked for are in ${r.buildstatsBase}: the older buildstats folders are gone (TMPDIR emptied, or BUILDSTATS_BASE moved)`,
      ),
      '',
    );
  }
  for (const b of r.builds) out.push(...renderBuild(b, c), '');
  out.push(c.bold('Recurring churn (do_package_setscene redundant in 2 or more builds)'));
  if (r.recurring.length === 0) out.push('  none');
  else {
    const rows = [['PF', 'builds', 'time', 'written'].map(c.dim)];
    for (const x of r.recurring)
      rows.push([x.pf, x.builds.join(' '), formatDuration(x.elapsed), formatBytes(x.wchar)]);
    out.push(...indent(renderTable(rows, ['left', 'left', 'right', 'right'])));
    out.push(...renderCauses(r, c));
  }
  if (r.skipped.length > 0) {
    out.push('', c.bold(`Skipped (${r.skipped.length})`));
    for (const s of r.skipped.slice(0, MAX_SKIPPED)) out.push(`  ${s.path}: ${s.why}`);
    if (r.skipped.length > MAX_SKIPPED)
      out.push(`  … and ${r.skipped.length - MAX_SKIPPED} more (--json lists all)`);
  }
  return out;
}

function renderBuild(b: ChurnBuild, c: Colors): string[] {
  const state = b.finished === false ? `  ${c.yellow('unfinished: restores may yet be used')}` : '';
  const out = [`${c.bold(`Build ${b.name}`)}  ${c.dim(b.started)}${state}`];
  const t = b.tasks;
  out.push(
    `  tasks run: ${t.real} real, ${t.setscene} setscene${t.unfinished > 0 ? `, ${t.unfinished} unfinished` : ''}`,
  );
  const s = b.sstate;
  if (s)
    out.push(
      `  Sstate summary: wanted ${s.wanted}, local ${s.local}, mirrors ${s.mirrors}, missed ${s.missed}, current ${s.current} (${s.matchPercent}% match, ${s.completePercent}% complete)`,
    );
  else out.push(`  Sstate summary: ${c.dim('unknown (no console log)')}`);
  if (b.reuse.length > 0) {
    const rows = [['task', 'setscene', 'real', 'reused'].map(c.dim)];
    for (const x of b.reuse) {
      const total = x.setscene + x.real;
      rows.push([x.task, String(x.setscene), String(x.real), `${Math.round((x.setscene / total) * 100)}%`]);
    }
    out.push(...indent(renderTable(rows, ['left', 'right', 'right', 'right'])));
  }
  out.push(...restoreTable('redundant do_package_setscene', b.redundant, c, c.yellow));
  out.push(...restoreTable('legitimate do_package_setscene', b.legitimate, c, (x) => x));
  if (b.writeSetsceneAfterRmWork.length > 0) {
    out.push(
      `  ${b.writeSetsceneAfterRmWork.length} write setscene task(s) after the previous build's rm_work:`,
    );
    out.push(...indent(indent(writeTable(b.writeSetsceneAfterRmWork, c))));
  }
  return out;
}

function restoreTable(title: string, list: Restore[], c: Colors, mark: (s: string) => string): string[] {
  if (list.length === 0) return [`  ${title}: none`];
  const time = list.reduce((n, x) => n + (x.elapsed ?? 0), 0);
  const written = list.reduce((n, x) => n + (x.wchar ?? 0), 0);
  const rows = [['PF', 'time', 'written', 'rm_work', 'packages-split', 'consumers'].map(c.dim)];
  for (const x of list) {
    const split = x.packagesSplitLeft === undefined ? '-' : x.packagesSplitLeft ? 'left' : 'gone';
    rows.push([
      x.pf,
      secs(x.elapsed),
      bytes(x.wchar),
      x.rmWorkRan ? 'ran' : 'no',
      split,
      x.consumers.join(' ') || '-',
    ]);
  }
  return [
    `  ${mark(`${title}: ${list.length}`)} (${formatDuration(time)}, ${formatBytes(written)} written)`,
    ...indent(indent(renderTable(rows, ['left', 'right', 'right']))),
  ];
}

function writeTable(list: WriteSetscene[], c: Colors): string[] {
  const rows = [['PF', 'task', 'time', 'written'].map(c.dim)];
  for (const x of list) rows.push([x.pf, x.task, secs(x.elapsed), bytes(x.wchar)]);
  return renderTable(rows, ['left', 'left', 'right', 'right']);
}

function renderCauses(r: ChurnReport, c: Colors): string[] {
  const out = ['', c.bold('Likely causes')];
  for (const x of r.recurring) {
    // The newest build's cause has the most evidence (WORKDIR, stamps and SSTATE_DIR as they are now).
    const newest = [...r.builds].reverse().find((b) => b.redundant.some((y) => y.pf === x.pf));
    const cause = newest?.redundant.find((y) => y.pf === x.pf)?.cause;
    if (!cause) continue;
    out.push(`  ${x.pf}: ${cause.kind}: ${cause.detail}`, `    fix: ${cause.fix}`);
  }
  return out;
}
