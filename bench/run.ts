// `npm run bench`: every benchmark prints its figures beside a reference measured in the same run
// (du -sB1, wc -l, …) and its goal. Choose some with RAMBAKE_BENCH_ONLY=conf,du.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatBytes, renderTable } from '../src/report/format.js';
import type { Bench, BenchRow } from './types.js';

const NAMES = ['conf', 'records', 'du', 'watch', 'peaks', 'predict', 'real'];
const here = dirname(fileURLToPath(import.meta.url));
const only = process.env.RAMBAKE_BENCH_ONLY?.split(',').filter(Boolean);

const rows: BenchRow[] = [];
for (const name of NAMES) {
  if (only && !only.includes(name)) continue;
  if (!existsSync(join(here, `${name}.ts`))) continue;
  process.stderr.write(`bench ${name}…\n`);
  const mod = (await import(`./${name}.ts`)) as { default: Bench };
  rows.push(...(await mod.default()));
}

const show = (value: number, unit: string) =>
  unit === 'bytes' ? formatBytes(value) : `${Number.isInteger(value) ? value : value.toFixed(2)} ${unit}`;
const table = renderTable(
  [
    ['bench', 'metric', 'value', 'reference', 'ratio', 'goal', ''],
    ...rows.map((r) => [
      r.bench,
      r.metric,
      show(r.value, r.unit),
      r.reference === undefined ? '' : show(r.reference, r.unit),
      r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×`,
      r.goal ?? '',
      r.ok === undefined ? '' : r.ok ? 'ok' : 'MISSED',
    ]),
  ],
  ['left', 'left', 'right', 'right', 'right'],
);
for (const line of table) process.stdout.write(`${line.trimEnd()}\n`);
if (process.env.RAMBAKE_BENCH_JSON) process.stdout.write(`${JSON.stringify(rows)}\n`);
