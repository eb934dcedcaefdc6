// Renders a RamPlan as text: the figures with a short why each, every reason in full, the
// verdict, and the conf lines `rambake apply` writes. JSON is the RamPlan itself.

import type { RamPlan } from '../plan/sizing-types.js';
import { type Colors, formatBytes, formatCount, plural, renderTable } from '../text/format.js';
import { quoteShellWord } from '../text/shell.js';

export function renderPlan(plan: RamPlan, c: Colors): string[] {
  const out: string[] = [];
  const basis =
    plan.sources.need === 'recorded-run'
      ? `measured: ${plan.sources.runs} recorded run(s), ${plan.sources.buildstats} buildstats build(s)`
      : plan.sources.need === 'tmpdir-tmpfs'
        ? 'measured: a build that completed on the tmpfs TMPDIR is on now'
        : `published figures for ${plan.sources.published}`;
  out.push(`${c.bold('RAM plan')}  ${plan.topdir}  ${c.dim(`(scope ${plan.tmpfs.scope}; ${basis})`)}`);
  out.push('');
  const reserve = plan.reserve;
  const rows: string[][] = [
    ['tmpfs', plan.tmpfs.path, ''],
    ['size', formatBytes(plan.tmpfs.size), `needed ${formatBytes(plan.need.bytes)}`],
    ['nr_inodes', formatCount(plan.tmpfs.nrInodes), ''],
    [
      'compile reserve',
      formatBytes(reserve.bytes),
      `${plural(reserve.jobs, 'job')} × ${formatBytes(reserve.perJobBytes)} (${reserve.from})`,
    ],
    [
      'BB_NUMBER_THREADS',
      String(plan.threads.bbNumberThreads),
      plan.threads.lowered ? c.yellow('lowered') : 'unchanged',
    ],
    ['PARALLEL_MAKE', plan.threads.parallelMake, plan.threads.lowered ? c.yellow('lowered') : 'unchanged'],
    ['swap', plan.swapHelps ? c.yellow('holds part of the tmpfs') : 'not needed', ''],
    ['mount source', plan.mount.source, 'unique, so BB_DISKMON tells it from other tmpfs'],
  ];
  out.push(...indent(renderTable(rows)).map((l) => l.trimEnd()));
  if (plan.placeOnDisk.length > 0) {
    out.push('', c.bold('On disk (too big for RAM)'));
    out.push(...indent(renderTable(plan.placeOnDisk.map((g) => [g.pn, formatBytes(g.bytes), g.reason]))));
  }
  out.push('', c.bold('Why'));
  for (const r of plan.reasons) out.push(`  ${c.cyan(r.topic.padEnd(15))} ${r.text}`);
  out.push('', `${c.bold('Uncertainty')}  ${plan.uncertainty}`);
  const verdict = plan.verdict.fits ? c.green(plan.verdict.text) : c.red(plan.verdict.text);
  out.push(`${c.bold('Verdict')}  ${verdict}`);
  out.push('', c.bold('Mount (as root; `rambake apply` does it)'));
  out.push(
    `  mount -t tmpfs -o ${plan.mount.options.join(',')} ${plan.mount.source} ${quoteShellWord(plan.tmpfs.path)}`,
  );
  out.push('', c.bold('Conf lines (the block `rambake apply` writes, by default into conf/auto.conf)'));
  out.push(...indent(plan.conf));
  return out;
}

function indent(lines: string[]): string[] {
  return lines.map((l) => `  ${l}`);
}
