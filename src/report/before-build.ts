// What `rambake run` says before it starts the command: the doctor errors that would make the
// build fail (one line each, with its fix), the old DEPLOY_DIR it moved aside, and how to go on.

import type { BeforeBuild } from '../doctor/doctor.js';
import { DEPLOY_OUTLIVES } from '../doctor/hazards.js';
import { renderShellCommand } from '../text/shell.js';
import { shortFile } from './status.js';

export interface BeforeBuildContext {
  topdir: string;
  /** The argv after `--`, and `--steps` as given: to print the exact command that goes on. */
  command: readonly string[];
  steps?: string;
  /** `--ignore-doctor`: the errors are printed as warnings and the build starts. */
  ignore: boolean;
}

/** Lines for stderr; `refuse` is true when the build must not start. */
export function renderBeforeBuild(
  b: BeforeBuild,
  ctx: BeforeBuildContext,
): { lines: string[]; refuse: boolean } {
  const lines: string[] = [];
  if (b.moved)
    lines.push(
      `rambake: moved the old DEPLOY_DIR aside, nothing deleted: ${b.moved.from} → ${b.moved.to} (its images and packages are there)`,
    );
  const refuse = b.stoppers.length > 0 && !ctx.ignore;
  const lead = refuse ? 'rambake: doctor error' : 'rambake: doctor error (--ignore-doctor: starting anyway)';
  for (const f of b.stoppers) {
    const where = f.file ? ` (${shortFile(ctx.topdir, f.file, f.line)})` : '';
    lines.push(`${lead}: ${f.id}${where}: ${f.message}; fix: ${f.fix}`);
  }
  if (!refuse) return { lines, refuse };
  if (b.stoppers.some((f) => f.id === DEPLOY_OUTLIVES) && !b.moved)
    lines.push(
      `rambake: to move it aside and build: ${renderShellCommand(['rambake', 'run', '--move-old-deploy', ...(ctx.steps === undefined ? [] : [`--steps=${ctx.steps}`]), '--', ...ctx.command])}`,
    );
  const n = b.stoppers.length;
  lines.push(
    `rambake: the build was not started: ${n === 1 ? 'this error makes' : `these ${n} errors make`} it fail; fix ${n === 1 ? 'it' : 'them'}, or add --ignore-doctor to start it anyway`,
  );
  return { lines, refuse };
}
