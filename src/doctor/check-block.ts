// doctor: does rambake's managed block take effect? A plain `TMPDIR = …` in local.conf, a
// distro conf, an `:append` (applied even over :forcevariable) or a class can win over the block
// (auto.conf is read before local.conf), and then the "RAM build" runs on disk. Judged with the
// best values at hand: BitBake's own (bitbake -e or the event log) when it was asked, else
// rambake's reading of the conf files. The line named is the one that decides the value, found
// by replaying the conf statements read (with BitBake's OVERRIDES when BitBake gave them).

import {
  describeWinner,
  inBlockStatements,
  linesNotInEffect,
  replayStatements,
  rereadAgrees,
  winnerOf,
} from '../apply/block-effect.js';
import type { BuildDir } from '../bitbake/builddir-types.js';
import type { BuildFacts } from '../plan/facts-types.js';
import type { Finding } from './findings.js';

export function checkManagedBlock(bd: BuildDir, facts: BuildFacts): Finding[] {
  const block = facts.managedBlock;
  if (!block) return [];
  const lookup = (name: string) => bd.getVar(name).value;
  const source = bd.getVar('TMPDIR').source;
  const by =
    source === 'bitbake'
      ? 'BitBake (bitbake -e)'
      : source === 'eventlog'
        ? "the last build's event log"
        : "rambake's reading of the conf files";
  const lost = linesNotInEffect(block.lines, lookup);
  if (lost.length === 0) return [];
  const fromBitbake = source === 'bitbake' || source === 'eventlog';
  const data = replayStatements(bd.topdir, bd.statements, fromBitbake ? lookup('OVERRIDES') : undefined);
  const isBlock = inBlockStatements(bd.statements, block.file, block.lines);
  return lost.map((l) => {
    const words = /^\S+\s*\+=|^[^=\s]*:append\b/.test(l.line);
    // Named only when the replay gives the very value judged: else a class or Python set it.
    const w = rereadAgrees(data, l.name, l.actual, lookup)
      ? winnerOf(data, l.name, words ? 'words' : 'value', isBlock)
      : undefined;
    return {
      id: 'managed-block-not-in-effect',
      severity: 'error',
      message: `rambake's block in ${block.file} sets ${l.name}, but ${by} gives "${l.actual ?? '(unset)'}": "${l.line}" does not take effect${w ? ` (${describeWinner(w, l.name)})` : ''}`,
      ...(w ? { file: w.loc.file, line: w.loc.line } : { file: block.file }),
      fix: w
        ? `change or remove the line named (an :append or :remove outside the block, or a stronger override, wins even over :forcevariable), or run \`rambake apply\` again: it writes a line that loses to a plain assignment as ${l.name}:forcevariable`
        : `run \`rambake apply\` again: it writes a line that loses as ${l.name}:forcevariable, or names the assignment that wins`,
    };
  });
}
