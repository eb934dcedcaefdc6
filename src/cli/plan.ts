import { type Command, Option } from 'commander';
import { EXIT_FINDINGS, EXIT_OK, UsageError } from '../errors.js';
import { type PredictOptions, predictPeak, reconcileVerdict } from '../plan/predict.js';
import { makePlan } from '../plan/sizing.js';
import type { PlanOptions } from '../plan/sizing-types.js';
import { parseStepsList } from '../plan/steps.js';
import { renderPlan } from '../report/plan.js';
import { renderPrediction } from '../report/predict.js';
import { parseMemSize } from '../system/tmpfs-size.js';
import { setup } from './common.js';
import { OPTIONS } from './options.js';

interface PlanFlags {
  predict?: boolean;
  threads?: string;
  steps?: string;
  ram?: string;
  scope?: string;
  target?: string;
  size?: string;
  path?: string;
}

/** Adds a command's own flags from the option table. */
export function addTableOptions(cmd: Command, name: string): Command {
  for (const spec of OPTIONS.filter((o) => o.scope !== 'global' && o.scope.includes(name)))
    cmd.addOption(new Option(spec.flags, spec.description));
  return cmd;
}

/** `32g`, `32G`, `32GiB`, `32GB` (binary, as tmpfs reads it), `512m`, or bare bytes. */
export function parseSizeFlag(flag: string, value: string): number {
  const normal = value.trim().replace(/i?b$/i, '');
  try {
    const bytes = parseMemSize(normal === '' ? value : normal);
    if (bytes > 0) return bytes;
  } catch {
    // reported below, with the flag's name
  }
  throw new UsageError(`${flag} ${value}: expected a size such as 16g, 512m or 32GiB`);
}

export function planOptions(flags: PlanFlags): PlanOptions {
  const opts: PlanOptions = {};
  if (flags.ram !== undefined) opts.ram = parseSizeFlag('--ram', flags.ram);
  if (flags.size !== undefined) opts.size = parseSizeFlag('--size', flags.size);
  if (flags.scope !== undefined) {
    if (flags.scope !== 'tmpdir' && flags.scope !== 'workdir')
      throw new UsageError(`--scope ${flags.scope}: expected tmpdir or workdir`);
    opts.scope = flags.scope;
  }
  // Published figures are per image: a list of targets has none of its own.
  const targets = splitTargets(flags.target);
  if (targets.length === 1) opts.target = targets[0]!;
  if (flags.path !== undefined) opts.path = flags.path;
  return opts;
}

export function registerPlan(program: Command): void {
  const cmd = program
    .command('plan')
    .description('size a tmpfs for this build and explain every number; exit 1 when it cannot fit');
  addTableOptions(cmd, 'plan').action(async (flags: PlanFlags, command: Command) => {
    const { out, load } = setup(command);
    if ((flags.threads !== undefined || flags.steps !== undefined) && !flags.predict)
      throw new UsageError('--threads and --steps go with --predict');
    const planned = await makePlan(load, planOptions(flags));
    const prediction = flags.predict
      ? await predictPeak(load, predictOptions(flags, planned.tmpfs.size))
      : undefined;
    // One verdict per output: a prediction that gives one is the plan's verdict too.
    const plan = prediction ? reconcileVerdict(planned, prediction) : planned;
    if (out.json) out.document(prediction ? { ...plan, prediction } : plan);
    else {
      for (const line of renderPlan(plan, out.colors)) out.line(line);
      if (prediction) for (const line of ['', ...renderPrediction(prediction, out.colors)]) out.line(line);
    }
    process.exitCode = plan.verdict.fits ? EXIT_OK : EXIT_FINDINGS;
  });
}

/** `--predict [--threads N] [--steps auto|a,b]`: simulate the build against the planned tmpfs size. */
function predictOptions(flags: PlanFlags, tmpfsSize: number): PredictOptions {
  const opts: PredictOptions = { tmpfsSize };
  const targets = splitTargets(flags.target);
  if (targets.length > 0) opts.targets = targets;
  if (flags.threads !== undefined) {
    const n = Number(flags.threads);
    if (!Number.isInteger(n) || n < 1)
      throw new UsageError(`--threads ${flags.threads}: expected a whole number ≥ 1`);
    opts.threads = n;
  }
  if (flags.steps !== undefined)
    opts.steps = flags.steps.trim() === 'auto' ? ['auto'] : parseStepsList(flags.steps);
  return opts;
}

/** `--target "a b"` or `--target a,b`: every target of the build. */
function splitTargets(flag: string | undefined): string[] {
  return (flag ?? '').split(/[\s,]+/).filter((t) => t !== '');
}
