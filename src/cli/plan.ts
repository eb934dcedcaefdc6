import type { Command } from 'commander';
import { EXIT_FINDINGS, EXIT_OK, UsageError } from '../errors.js';
import type { PredictOptions } from '../plan/predict.js';
import type { PlanOptions } from '../plan/sizing-types.js';
import { setup } from './common.js';
import { addOptions } from './options.js';

interface PlanFlags {
  predict?: boolean;
  /** Parsed by the option table (options.ts): numbers and choices arrive checked. */
  threads?: number;
  steps?: string;
  ram?: number;
  scope?: 'tmpdir' | 'workdir';
  target?: string;
  size?: number;
  path?: string;
}

export function planOptions(flags: PlanFlags): PlanOptions {
  const opts: PlanOptions = {};
  if (flags.ram !== undefined) opts.ram = flags.ram;
  if (flags.size !== undefined) opts.size = flags.size;
  if (flags.scope !== undefined) opts.scope = flags.scope;
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
  addOptions(cmd, 'plan').action(async (flags: PlanFlags, command: Command) => {
    const { out, load } = setup(command);
    if ((flags.threads !== undefined || flags.steps !== undefined) && !flags.predict)
      throw new UsageError('--threads and --steps go with --predict');
    const { makePlan } = await import('../plan/sizing.js');
    const { predictPeak, reconcileVerdict } = await import('../plan/predict.js');
    const { renderPlan } = await import('../report/plan.js');
    const { renderPrediction } = await import('../report/predict.js');
    const planned = await makePlan(load, planOptions(flags));
    const prediction = flags.predict
      ? await predictPeak(load, await predictOptions(flags, planned.tmpfs.size))
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
async function predictOptions(flags: PlanFlags, tmpfsSize: number): Promise<PredictOptions> {
  const opts: PredictOptions = { tmpfsSize };
  const targets = splitTargets(flags.target);
  if (targets.length > 0) opts.targets = targets;
  if (flags.threads !== undefined) opts.threads = flags.threads;
  if (flags.steps !== undefined)
    opts.steps =
      flags.steps.trim() === 'auto'
        ? ['auto']
        : (await import('../plan/steps.js')).parseStepsList(flags.steps);
  return opts;
}

/** `--target "a b"` or `--target a,b`: every target of the build. */
function splitTargets(flag: string | undefined): string[] {
  return (flag ?? '').split(/[\s,]+/).filter((t) => t !== '');
}
