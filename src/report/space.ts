// Renders `rambake space`: TMPDIR's top level, recipes by size with unique and shared bytes and
// their biggest subfolders, stale work dirs, and the growth against a saved scan.

import type { RecipeSpace, SpaceReport, Usage } from '../analyze/space.js';
import type { SpaceComparison } from '../analyze/space-compare.js';
import { type Colors, formatBytes, formatCount, renderTable } from '../text/format.js';

const MAX_RECIPES = 25;
const MAX_FOLDERS = 4;

const indent = (lines: string[]) => lines.map((l) => `  ${l}`);
const signed = (n: number) => (n > 0 ? `+${formatBytes(n)}` : formatBytes(n));

export function renderSpace(r: SpaceReport, c: Colors, comparison?: SpaceComparison): string[] {
  const t = r.tmpdir;
  const out = [
    `${c.bold('TMPDIR')}  ${t.path}  ${formatBytes(t.bytes)}, ${formatCount(t.tmpfsInodes)} inodes on a tmpfs (${formatCount(t.inodes)} distinct + ${formatCount(t.tmpfsInodes - t.inodes)} extra hard links; ${formatCount(t.files)} files, ${formatCount(t.dirs)} folders)`,
  ];
  out.push(
    ...indent(
      usageTable(
        r.top.map((x) => [x.name, x]),
        c,
        'folder',
      ),
    ),
  );
  const shown = r.recipes.slice(0, MAX_RECIPES);
  const what = r.filter.length > 0 ? `recipes ${r.filter.join(' ')}` : 'work dirs';
  out.push('', c.bold(`${what} (${r.recipes.length}), biggest first`));
  if (r.recipes.length === 0) out.push('  none');
  else {
    const rows = [['recipe', 'PV', 'arch', 'bytes', 'unique', 'shared', 'biggest subfolders'].map(c.dim)];
    for (const x of shown)
      rows.push([
        x.pn,
        x.pv,
        x.arch,
        formatBytes(x.bytes),
        formatBytes(x.uniqueBytes),
        formatBytes(x.sharedBytes),
        biggestFolders(x),
      ]);
    out.push(...indent(renderTable(rows, ['left', 'left', 'left', 'right', 'right', 'right'])));
    if (r.recipes.length > shown.length)
      out.push(`  … ${r.recipes.length - shown.length} more (--json lists all)`);
  }
  out.push('  unique: only linked inside the work dir (freed by removing it); shared: also linked elsewhere');
  if (r.stale.length > 0) {
    const freed = r.stale.reduce((n, s) => n + s.uniqueBytes, 0);
    out.push('', c.bold(`Stale work dirs (${r.stale.length}, ${formatBytes(freed)} unique)`));
    const rows = r.stale.map((s) => [s.workdir, formatBytes(s.uniqueBytes), s.why]);
    out.push(...indent(renderTable(rows, ['left', 'right'])));
  }
  if (r.errors.length > 0)
    out.push(
      '',
      c.yellow(
        `${r.errors.length} entries could not be read (first: ${r.errors[0]!.path}: ${r.errors[0]!.code})`,
      ),
    );
  if (comparison) out.push('', ...renderComparison(comparison, c));
  return out;
}

function usageTable(entries: [string, Usage][], c: Colors, first: string): string[] {
  const rows = [[first, 'bytes', 'unique', 'files'].map(c.dim)];
  for (const [name, u] of entries)
    rows.push([name, formatBytes(u.bytes), formatBytes(u.uniqueBytes), formatCount(u.files)]);
  return renderTable(rows, ['left', 'right', 'right', 'right']);
}

function biggestFolders(r: RecipeSpace): string {
  return Object.entries(r.folders)
    .filter(([, u]) => u.bytes > 0)
    .sort(([, a], [, b]) => b.bytes - a.bytes)
    .slice(0, MAX_FOLDERS)
    .map(([k, u]) => `${k} ${formatBytes(u.bytes)}`)
    .join(', ');
}

export function renderComparison(x: SpaceComparison, c: Colors): string[] {
  const out = [
    c.bold(`Growth since ${x.before.scannedAt}`),
    `  TMPDIR ${formatBytes(x.total.before)} → ${formatBytes(x.total.after)} (${signed(x.total.growth)})`,
  ];
  const top = x.top.filter((t) => t.growth !== 0);
  if (top.length > 0) {
    const rows = top.map((t) => [t.name, formatBytes(t.before), formatBytes(t.after), signed(t.growth)]);
    out.push(
      ...indent(
        renderTable(
          [['folder', 'before', 'after', 'growth'].map(c.dim), ...rows],
          ['left', 'right', 'right', 'right'],
        ),
      ),
    );
  }
  if (x.recipes.length === 0) {
    out.push('  no recipe changed size');
    return out;
  }
  const rows = [['recipe', 'PV', 'before', 'after', 'growth', 'subfolders'].map(c.dim)];
  for (const r of x.recipes.slice(0, MAX_RECIPES)) {
    const pv =
      r.pvBefore.join(',') === r.pvAfter.join(',')
        ? r.pvAfter.join(',')
        : `${r.pvBefore.join(',') || '-'} → ${r.pvAfter.join(',') || '-'}`;
    const folders = r.folders
      .slice(0, MAX_FOLDERS)
      .map((f) => `${f.folder} ${signed(f.growth)}`)
      .join(', ');
    rows.push([
      `${r.arch}/${r.pn}`,
      pv,
      formatBytes(r.before),
      formatBytes(r.after),
      signed(r.growth),
      folders,
    ]);
  }
  out.push(...indent(renderTable(rows, ['left', 'left', 'right', 'right', 'right'])));
  return out;
}
