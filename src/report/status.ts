// Renders `rambake status` as a compact, aligned text report.

import { normalize, relative } from 'node:path';
import type { PathKey } from '../plan/facts-types.js';
import { type Colors, formatBytes, formatCount, renderTable } from '../text/format.js';
import type { StatusReport } from '../usecases/status.js';

/** `/b/build/tmp` → `${TOPDIR}/tmp`; other paths as they are. */
export function topdirRelative(topdir: string, path: string): string {
  if (path === topdir) return '${TOPDIR}';
  return path.startsWith(`${topdir}/`) ? `\${TOPDIR}/${path.slice(topdir.length + 1)}` : path;
}

/** A file:line for humans: relative to TOPDIR when that is shorter. */
export function shortFile(topdir: string, file: string, line?: number): string {
  const rel = relative(topdir, file);
  const shown = file.startsWith('<') || rel.length >= file.length ? file : rel;
  return line === undefined ? shown : `${shown}:${line}`;
}

export function renderStatus(r: StatusReport, c: Colors): string[] {
  const top = r.buildDir.topdir;
  const out: string[] = [];
  const layout = r.buildDir.layout === 'bitbake-setup' ? 'bitbake-setup layout' : 'classic layout';
  out.push(`${c.bold('Build directory')}  ${top}  ${c.dim(`(${layout})`)}`);
  if (r.buildDir.sharedSiteConf)
    out.push(`  site.conf is shared by every setup: ${r.buildDir.sharedSiteConf}`);
  if (r.buildDir.buildRunning)
    out.push(`  ${c.yellow('a build is running')} (a BitBake server holds bitbake.lock)`);
  if (r.buildDir.eventLog) out.push(`  values from the event log ${shortFile(top, r.buildDir.eventLog)}`);
  out.push('', c.bold(`Layers (${r.layers.length})`));
  out.push(
    ...indent(
      renderTable(
        r.layers.map((l) => [
          l.collection ?? '-',
          l.priority === undefined ? '-' : String(l.priority),
          l.seriesCompat.join(' ') || c.yellow('compat unset'),
          shortFile(top, l.path),
        ]),
        ['left', 'right'],
      ),
    ),
  );
  out.push('', c.bold('Variables'));
  const varRows = Object.entries(r.vars).map(([name, v]) => [
    name,
    v.value === undefined ? c.dim('(unset)') : shortValue(top, v.value),
    v.needsBitBake ? c.yellow('needs BitBake') : v.source,
    [v.file ? shortFile(top, v.file, v.line) : '', v.note ?? ''].filter((s) => s !== '').join(': '),
  ]);
  out.push(...indent(renderTable(varRows)));
  if (r.disagreements.length > 0) {
    out.push('', c.bold("Where BitBake's values differ from rambake's reading of the conf files"));
    for (const d of r.disagreements) {
      const at = d.rambake.file ? ` (${shortFile(top, d.rambake.file, d.rambake.line)})` : '';
      out.push(
        `  ${d.name}: conf files say ${d.rambake.value === undefined ? '(unset)' : `"${shortValue(top, d.rambake.value)}"`}${at}; BitBake uses ${d.bitbake === undefined ? '(unset)' : `"${shortValue(top, d.bitbake)}"`}`,
        c.dim(`    ${d.why}`),
      );
    }
  }
  out.push('', c.bold('Paths'));
  const pathRows = (Object.keys(r.paths) as PathKey[]).map((key) => {
    const p = r.paths[key];
    if (p.unresolved)
      return [p.variable, `${p.path}${c.dim(' (not resolved, see the note)')}`, '', '', '', '', ''];
    return [
      p.variable,
      topdirRelative(top, normalize(p.path)) + (p.exists ? '' : c.dim(' (not yet)')),
      p.mount?.fsType ?? '?',
      p.mount?.mountPoint ?? '?',
      p.fs ? `${formatBytes(p.fs.freeBytes)} free` : '',
      p.fs && p.fs.totalInodes > 0 ? `${formatCount(p.fs.freeInodes)} inodes free` : '',
      p.mount?.options.includes('noexec') ? c.red('noexec') : '',
    ];
  });
  out.push(...indent(renderTable(pathRows, ['left', 'left', 'left', 'left', 'right', 'right'])));
  const h = r.host;
  out.push('', c.bold('Host'));
  out.push(
    `  RAM ${formatBytes(h.memTotal)} (${formatBytes(h.memAvailable)} available)  ` +
      `swap ${h.swapTotal === 0 ? 'none' : `${formatBytes(h.swapTotal)} (${formatBytes(h.swapFree)} free)`}  ` +
      `CPUs ${h.cpusUsable} usable of ${h.cpusOnline}` +
      (h.inotifyMaxUserWatches === undefined ? '' : `  inotify watches ${h.inotifyMaxUserWatches}`),
  );
  out.push(`  rm_work ${r.rmWork ? c.green('on') : 'off'}`);
  for (const w of r.warnings.filter((d) => d.severity === 'warning'))
    out.push(c.yellow(`warning: ${shortFile(top, w.file, w.line)}: ${w.message}`));
  for (const n of r.notes) out.push(c.dim(`note: ${n}`));
  return out;
}

const indent = (lines: string[]) => lines.map((l) => `  ${l}`.trimEnd());

const MAX_VALUE = 72;

/** One line of a value: blanks folded, TOPDIR named, long lists cut (the JSON has them whole). */
function shortValue(topdir: string, value: string): string {
  const folded = value
    .trim()
    .replace(/\s+/g, ' ')
    // Only a whole path segment: `/b/build2` is not `${TOPDIR}2` when TOPDIR is `/b/build`.
    .replace(new RegExp(`${escapeRegExp(topdir)}(?=/|$|[\\s:;"'])`, 'g'), '${TOPDIR}');
  return folded.length > MAX_VALUE ? `${folded.slice(0, MAX_VALUE - 1)}…` : folded;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
