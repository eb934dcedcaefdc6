// Start-up of the CLI, against `node -e 0` in the same run: `rambake --version` (no command
// module loaded), `rambake --help` (every command's definition, none of their work) and
// `rambake status --json --no-bitbake` on the example build folder (the conf files read by
// rambake alone). Rounds alternate the four; each figure is the median.
// Goals (issue #14): --version ≤ 1.5×, status --no-bitbake ≤ 2× `node -e 0`; --help is held to
// status's goal (the issue asks for no heavy module on its path and sets no figure).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './types.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/bin/rambake.js', import.meta.url));
const ROUNDS = 9;

function ms(argv: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const took = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${argv.join(' ')}: ${r.stderr.toString().split('\n')[0]}`);
  return took;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

export default async function benchStartup(): Promise<BenchRow[]> {
  if (!existsSync(CLI)) throw new Error('bench startup: run `npm run bench` (it builds dist/ first)');
  const runs = {
    node: () => ms(['-e', '0']),
    version: () => ms([CLI, '--version']),
    help: () => ms([CLI, '--help']),
    status: () => ms([CLI, '-B', 'examples/build', '--no-bitbake', 'status', '--json']),
  };
  type Name = keyof typeof runs;
  const times: Record<Name, number[]> = { node: [], version: [], help: [], status: [] };
  const names = Object.keys(runs) as Name[];
  for (const name of names) runs[name](); // warm the file cache
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) times[name].push(runs[name]());
  }
  const node = median(times.node);
  const row = (metric: string, name: Name, limit: number): BenchRow => {
    const value = median(times[name]);
    return {
      bench: 'startup',
      metric: `${metric}, median of ${ROUNDS}`,
      value: Math.round(value),
      unit: 'ms',
      kind: 'measured',
      reference: Math.round(node),
      refName: 'node -e 0',
      ratio: value / node,
      goal: `≤ ${limit}× node -e 0`,
      ok: value <= node * limit,
    };
  };
  return [
    row('rambake --version', 'version', 1.5),
    row('rambake --help', 'help', 2),
    row('rambake status --json --no-bitbake (example build)', 'status', 2),
  ];
}
