// doctor: does rambake's managed block take effect? A plain `TMPDIR = …` in local.conf, a
// distro conf or a class can win over the block (auto.conf is read before local.conf), and
// then the "RAM build" runs on disk. Judged with the best values at hand: BitBake's own
// (bitbake -e or the event log) when it was asked, else rambake's reading of the conf files.

import { linesNotInEffect } from '../apply/block-effect.js';
import type { BuildDir } from '../bitbake/builddir-types.js';
import type { BuildFacts } from '../plan/facts-types.js';
import type { Finding } from './findings.js';

export function checkManagedBlock(bd: BuildDir, facts: BuildFacts): Finding[] {
  const block = facts.managedBlock;
  if (!block) return [];
  const lookup = (name: string) => bd.getVar(name).value;
  const by =
    bd.getVar('TMPDIR').source === 'bitbake'
      ? 'BitBake (bitbake -e)'
      : bd.eventLog
        ? "the last build's event log"
        : "rambake's reading of the conf files";
  return linesNotInEffect(block.lines, lookup).map((lost) => {
    const v = bd.getVar(lost.name);
    return {
      id: 'managed-block-not-in-effect',
      severity: 'error',
      message: `rambake's block in ${block.file} sets ${lost.name}, but ${by} gives "${lost.actual ?? '(unset)'}": "${lost.line}" does not take effect`,
      ...(v.file ? { file: v.file } : { file: block.file }),
      ...(v.line === undefined ? {} : { line: v.line }),
      fix: `run \`rambake apply\` again: it writes a line that loses as ${lost.name}:forcevariable, or names the assignment that wins`,
    };
  });
}
