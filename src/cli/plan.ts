import { type Command, Option } from 'commander';
import { EXIT_FINDINGS, EXIT_OK, UsageError } from '../errors.js';
import { makePlan } from '../plan/sizing.js';
import type { PlanOptions } from '../plan/sizing-types.js';
import { renderPlan } from '../report/plan.js';
import { parseMemSize } from '../system/tmpfs-size.js';
import { setup } from './common.js';
import { OPTIONS } from './options.js';

interface PlanFlags {
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
  if (flags.target !== undefined) opts.target = flags.target;
  if (flags.path !== undefined) opts.path = flags.path;
  return opts;
}

export function registerPlan(program: Command): void {
  const cmd = program
    .command('plan')
    .description('size a tmpfs for this build and explain every number; exit 1 when it cannot fit');
  addTableOptions(cmd, 'plan').action(async (flags: PlanFlags, command: Command) => {
    const { out, load } = setup(command);
    const plan = await makePlan(load, planOptions(flags));
    if (out.json) out.document(plan);
    else for (const line of renderPlan(plan, out.colors)) out.line(line);
    process.exitCode = plan.verdict.fits ? EXIT_OK : EXIT_FINDINGS;
  });
}
