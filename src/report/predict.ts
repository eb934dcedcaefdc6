// `rambake plan --predict` as text: the predicted peak, whether it fits, and per step; or, with
// too little measured, that no prediction is made and why (never "0 B, fits").

import { renderBitbakeCommand } from '../plan/mount-commands.js';
import type { Prediction } from '../plan/predict.js';
import { type Calibration, ROUGH_ERROR, ROUGH_UNEXPLAINED } from '../plan/predict-calibration.js';
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
  if (p.calibration) out.push(renderCalibration(p.calibration, c));
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

/** The prediction's own error: the recorded run replayed against what it measured, and what the history rests on. */
export function renderCalibration(cal: Calibration, c: Colors): string {
  const pct = `${cal.error >= 0 ? '+' : '−'}${Math.abs(cal.error * 100).toFixed(1)} %`;
  const how = `${cal.threads} thread${cal.threads === 1 ? '' : 's'}, ${cal.steps.length > 0 ? `steps ${cal.steps.join(', ')}` : 'in one go'}`;
  const where =
    cal.history === 'tmpfs'
      ? 'recorded on a tmpfs of its own'
      : `recorded on a disk shared with other files (${formatBytes(cal.baselineBytes)} there before` +
        (cal.outsideBytes > 0
          ? ` and ${formatBytes(cal.outsideBytes)} of sstate and downloads left out)`
          : ' left out)');
  const other =
    cal.unexplainedBytes !== undefined &&
    Math.abs(cal.unexplainedBytes) > ROUGH_UNEXPLAINED * cal.recordedPeakBytes
      ? `; the disk grew ${formatBytes(cal.unexplainedBytes)} more than TMPDIR holds now (other writers on it, or TMPDIR changed since): the prediction may be high by that much, record on a tmpfs or a quiet disk`
      : '';
  const text = `how sure: replaying the recorded run (${how}) gives ${formatBytes(cal.replayedPeakBytes)} against ${formatBytes(cal.recordedPeakBytes)} measured: ${pct}; ${where}${other}`;
  return `  ${cal.rough ? c.yellow(`${text}; rough: off by more than ${ROUGH_ERROR * 100} %`) : text}`;
}
