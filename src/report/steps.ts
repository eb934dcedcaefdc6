// `rambake steps TARGET…` as text: whether steps are needed (the plan's verdict), the commands
// to run, then why each step is one.

import { renderBitbakeCommand, renderRunStepsCommand } from '../plan/mount-commands.js';
import type { StepsProposal } from '../plan/steps.js';
import { type Colors, formatBytes, renderTable } from '../text/format.js';

export function renderSteps(p: StepsProposal, c: Colors): string[] {
  const out: string[] = [];
  const all = renderBitbakeCommand(p.targets);
  const name = c.bold(p.target);
  if (p.steps.length === 0) {
    out.push(
      p.needed
        ? `${name}: steps are needed (plan: ${p.why}), but no recipe can be named as a step: no recorded work-dir peak and no known giant among the recipes of the graph; record a build with rambake run -- ${all}`
        : `${name}: no step needed; build it in one go (${all}). Plan: ${p.why}`,
    );
  } else {
    out.push(
      p.needed
        ? `${name} in ${p.steps.length + 1} steps, one bitbake run each (plan: ${p.why}):`
        : `${name} fits in one go (plan: ${p.why}); to lower the peak anyway, ${p.steps.length + 1} steps:`,
    );
    [...p.steps.map((s) => [s]), p.targets].forEach((targets, i) => {
      out.push(`  ${i + 1}. ${renderBitbakeCommand(targets)}`);
    });
    out.push('', 'Why:');
    const rows = p.reasons.map((r) => [
      `  ${r.step}`,
      r.bytes === undefined ? '-' : formatBytes(r.bytes),
      r.text,
    ]);
    out.push(...renderTable(rows, ['left', 'right', 'left']));
    out.push('', `Or let rambake run them: ${renderRunStepsCommand(p.steps, p.targets)}`);
  }
  out.push(c.dim(`task graph: ${p.graph === 'none' ? 'unknown' : p.graph}`));
  for (const n of p.notes) out.push(c.dim(`note: ${n}`));
  return out;
}
