// `rambake plan --predict` as text: the predicted peak, whether it fits, and per step; or, with
// too little measured, that no prediction is made and why (never "0 B, fits").

import { renderBitbakeCommand } from '../plan/mount-commands.js';
import type { Prediction } from '../plan/predict.js';
import { type Colors, formatBytes, formatDuration, renderTable } from '../text/format.js';

export function renderPrediction(p: Prediction, c: Colors): string[] {
  const out: string[] = [];
  const how = `${p.threads} thread${p.threads === 1 ? '' : 's'}, ${p.scheduler} scheduler`;
  const steps = p.steps.length > 0 ? `, steps ${p.steps.join(' → ')} → ${p.target}` : '';
  const from = p.targetsFrom === 'recorded-run' ? ', the targets of the recorded run' : '';
  const head = `Predicted tmpfs peak for ${c.bold(p.target)} (${how}${steps}${from})`;
  if (!p.predicted || p.peakBytes === undefined || p.seconds === undefined) {
    out.push(`${head}: ${c.yellow('not predicted')}: ${p.unpredictedWhy ?? 'too little measured'}`);
  } else {
    out.push(`${head}: ${c.bold(formatBytes(p.peakBytes))}`);
    if (p.peakRecipes.length > 0) {
      out.push(
        `  at the peak: ${p.peakRecipes.slice(0, 6).join(', ')}${p.peakRecipes.length > 6 ? ', …' : ''}`,
      );
    }
    out.push(`  build time (predicted): ${formatDuration(p.seconds)}`);
    if (p.withoutSteps) {
      out.push(
        `  without steps: ${formatBytes(p.withoutSteps.peakBytes)} in ${formatDuration(p.withoutSteps.seconds)}`,
      );
    }
    if (p.perStep.length > 1) {
      const rows = p.perStep.map((s) => [
        `  ${renderBitbakeCommand(s.targets)}`,
        formatBytes(s.peakBytes),
        formatDuration(s.seconds),
      ]);
      out.push(...renderTable(rows, ['left', 'right', 'right']));
    }
    if (p.tmpfsSize !== undefined && p.fits !== undefined) {
      const verdict = p.fits
        ? c.green(
            `fits the ${formatBytes(p.tmpfsSize)} tmpfs (${formatBytes(p.tmpfsSize - p.peakBytes)} to spare)`,
          )
        : c.red(
            `does not fit the ${formatBytes(p.tmpfsSize)} tmpfs (short by ${formatBytes(p.peakBytes - p.tmpfsSize)})`,
          );
      out.push(`  ${verdict}`);
    }
  }
  const cov = p.coverage;
  out.push(
    c.dim(
      `based on: ${p.sources.graph}; ${cov.timed}/${cov.tasks} tasks timed, ${cov.sized}/${cov.tasks} sized` +
        (p.sources.timeline ? `; ${p.sources.timeline}` : ''),
    ),
  );
  for (const n of p.notes) out.push(c.dim(`note: ${n}`));
  return out;
}
