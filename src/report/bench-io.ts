// `rambake bench-io` as text: ops/s per phase on each file system, the speedup, and what it
// means for a build.

import { benchIoSaving } from '../plan/bench-io-saving.js';
import { PHASES } from '../system/bench-io.js';
import type { BenchIoResult, FsFigures } from '../system/bench-io-record.js';
import { type Colors, formatCount, renderTable } from '../text/format.js';

const rate = (f: FsFigures | undefined, phase: string, fsync: boolean) => {
  const p = (fsync ? f?.fsync : f?.noFsync)?.find((x) => x.phase === phase);
  return p ? `${formatCount(Math.round(p.opsPerSecond))}/s` : '-';
};

export function renderBenchIo(r: BenchIoResult, c: Colors): string[] {
  const head = ['phase', `disk (${r.disk.fsType})`, 'with fsync'];
  if (r.tmpfs) head.push('tmpfs', 'with fsync', 'speedup');
  const rows = [head.map((h) => c.bold(h))];
  for (const phase of PHASES) {
    const row = [phase, rate(r.disk, phase, false), rate(r.disk, phase, true)];
    if (r.tmpfs) {
      const s = r.speedup?.phases[phase];
      row.push(rate(r.tmpfs, phase, false), rate(r.tmpfs, phase, true), s ? `×${s.toFixed(1)}` : '-');
    }
    rows.push(row);
  }
  const out = [
    `File-system operations per second (${r.seconds}s in all):`,
    ...renderTable(rows, ['left', 'right', 'right', 'right', 'right', 'right']),
  ];
  const saving = benchIoSaving(r);
  if (r.speedup && saving) {
    out.push(
      '',
      `tmpfs is ×${r.speedup.noFsync.toFixed(1)} faster for this mix (×${r.speedup.fsync.toFixed(1)} with fsync).`,
      `${saving[0]!.toUpperCase()}${saving.slice(1)} (compile time is CPU and is not saved).`,
    );
  }
  if (r.savedTo) out.push(c.dim(`saved to ${r.savedTo}`));
  for (const n of r.notes) out.push(c.dim(`note: ${n}`));
  return out;
}
