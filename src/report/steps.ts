// `rambake steps TARGET` as text: the commands to run, then why each step is one.

import { renderBitbakeCommand, renderRunStepsCommand } from '../plan/mount-commands.js';
import type { StepsProposal } from '../plan/steps.js';
import { stepCommands } from '../plan/steps.js';
import { type Colors, formatBytes, renderTable } from './format.js';

export function renderSteps(p: StepsProposal, c: Colors): string[] {
  const out: string[] = [];
  if (p.steps.length === 0) {
    out.push(`${c.bold(p.target)}: no step needed; build it in one go (${renderBitbakeCommand(p.target)}).`);
  } else {
    out.push(`${c.bold(p.target)} in ${p.steps.length + 1} steps, one bitbake run each:`);
    stepCommands(p.steps, p.target).forEach((cmd, i) => {
      out.push(`  ${i + 1}. ${renderBitbakeCommand(cmd[1]!)}`);
    });
    out.push('', 'Why:');
    const rows = p.reasons.map((r) => [
      `  ${r.step}`,
      r.bytes === undefined ? '-' : formatBytes(r.bytes),
      r.text,
    ]);
    out.push(...renderTable(rows, ['left', 'right', 'left']));
    out.push('', `Or let rambake run them: ${renderRunStepsCommand(p.steps, p.target)}`);
  }
  out.push(c.dim(`task graph: ${p.graph === 'none' ? 'unknown' : p.graph}`));
  for (const n of p.notes) out.push(c.dim(`note: ${n}`));
  return out;
}
