// `npm run bench`: every benchmark prints its figures beside a reference measured in the same run
// (du -sB1, grep -c, poky's parser, node -e 0, …), its goal, whether the figure was measured or
// derived, and the load average it was measured under (2 CPUs shared with other work: a ratio
// from one run means more than an absolute time). Choose some with RAMBAKE_BENCH_ONLY=conf,du.

import { existsSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatBytes, renderTable } from '../src/text/format.js';
import type { Bench, BenchRow } from './types.js';

const NAMES = ['conf', 'startup', 'records', 'du', 'watch', 'peaks', 'predict', 'story', 'real'];
const here = dirname(fileURLToPath(import.meta.url));
const only = process.env.RAMBAKE_BENCH_ONLY?.split(',').filter(Boolean);

export const loadNow = (): string => loadavg()[0]!.toFixed(2);

const machine = `${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? '?'}), ${formatBytes(totalmem())} RAM`;
process.stderr.write(
  `bench on ${machine}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
/** Now as `YYYY-MM-DD HH:MM` (UTC), for the Markdown table's heading. */
const utcMinute = () => new Date().toISOString().slice(0, 16).replace('T', ' ');
const started = utcMinute();
const rows: BenchRow[] = [];
for (const name of NAMES) {
  if (only && !only.includes(name)) continue;
  if (!existsSync(join(here, `${name}.ts`))) continue;
  process.stderr.write(`bench ${name}…\n`);
  const loadBefore = loadNow();
  const mod = (await import(`./${name}.ts`)) as { default: Bench };
  // A bench that fails (a tool missing, a locale BitBake refuses) is one MISSED row: the rows
  // of the others, maybe half an hour of measuring, still print; the exit status says it.
  let got: BenchRow[];
  try {
    got = await mod.default();
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
    process.stderr.write(`bench ${name} failed: ${message}\n`);
    got = [{ bench: name, metric: `did not finish: ${message}`, value: Number.NaN, unit: '', ok: false }];
    process.exitCode = 1;
  }
  const load = `${loadBefore}–${loadNow()}`;
  rows.push(...got.map((r) => ({ ...r, load: r.load ?? load })));
}

const show = (value: number, unit: string) =>
  Number.isNaN(value)
    ? ''
    : unit === 'bytes'
      ? formatBytes(value)
      : `${Number.isInteger(value) ? value : value.toFixed(2)} ${unit}`.trim();
const header = ['bench', 'metric', 'value', 'reference', 'ratio', 'goal', '', 'figure', 'load'];
const cells = rows.map((r) => [
  r.bench,
  r.metric,
  show(r.value, r.unit),
  r.reference === undefined
    ? (r.refName ?? '')
    : `${show(r.reference, r.unit)}${r.refName ? ` ${r.refName}` : ''}`,
  r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×`,
  r.goal ?? '',
  r.ok === undefined ? '' : r.ok ? 'ok' : 'MISSED',
  r.kind ?? 'unstated',
  r.load ?? '',
]);
const table = renderTable([header, ...cells], ['left', 'left', 'right', 'right', 'right']);
const finished = utcMinute();
process.stdout.write(`machine: ${machine}; 1-min load average at the end ${loadNow()}\n`);
for (const line of table) process.stdout.write(`${line.trimEnd()}\n`);
if (process.env.RAMBAKE_BENCH_JSON) process.stdout.write(`${JSON.stringify({ machine, rows })}\n`);
// The README's table is this output, pasted as it is: one run, its machine, times and loads.
if (process.env.RAMBAKE_BENCH_MARKDOWN) {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  process.stdout.write(
    `\nMeasured by \`npm run bench\` on ${machine}, ${started}–${finished.slice(0, 10) === started.slice(0, 10) ? finished.slice(11) : finished} UTC:\n\n`,
  );
  process.stdout.write(`| ${header.map(cell).join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
  for (const row of cells) process.stdout.write(`| ${row.map(cell).join(' | ')} |\n`);
}
