// Renders doctor findings: one block per finding, most severe first, then a count.

import type { Finding } from '../doctor/findings.js';
import { type Colors, plural } from '../text/format.js';
import { shortFile } from './status.js';

export function renderFindings(topdir: string, findings: Finding[], c: Colors): string[] {
  if (findings.length === 0) return [c.green('No problems found.')];
  const out: string[] = [];
  for (const f of findings) {
    const label =
      f.severity === 'error'
        ? c.red('error  ')
        : f.severity === 'warning'
          ? c.yellow('warning')
          : c.cyan('info   ');
    const where = f.file ? `  ${c.dim(shortFile(topdir, f.file, f.line))}` : '';
    out.push(`${label} ${c.bold(f.id)}${where}`);
    out.push(`        ${f.message}`);
    out.push(`        ${c.dim('fix:')} ${f.fix}`);
  }
  const count = (s: Finding['severity']) => findings.filter((f) => f.severity === s).length;
  out.push(
    '',
    `${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}, ${count('info')} info`,
  );
  return out;
}
