import type { Command } from 'commander';
import { EXIT_OK, UsageError } from '../errors.js';
import { type ConfChoice, runApply } from '../plan/apply.js';
import { renderApply } from '../report/apply.js';
import { setup } from './common.js';
import { addTableOptions, planOptions } from './plan.js';

interface ApplyFlags {
  dryRun?: boolean;
  conf?: string;
  size?: string;
  path?: string;
  scope?: string;
  target?: string;
  force?: boolean;
  allowOversizedTmpfs?: boolean;
  unitFile?: string;
}

const CONF_CHOICES: readonly ConfChoice[] = ['auto', 'local', 'site', 'kas'];

export function confChoice(value: string | undefined): ConfChoice {
  if (value === undefined) return 'auto';
  if ((CONF_CHOICES as readonly string[]).includes(value)) return value as ConfChoice;
  throw new UsageError(`--conf ${value}: expected auto, local, site or kas`);
}

export function registerApply(program: Command): void {
  const cmd = program
    .command('apply')
    .description("mount the planned tmpfs (or print how) and write rambake's managed block into a conf file");
  addTableOptions(cmd, 'apply').action(async (flags: ApplyFlags, command: Command) => {
    const { out, load, flags: globals } = setup(command);
    const report = await runApply(load, planOptions(flags), {
      conf: confChoice(flags.conf),
      dryRun: flags.dryRun === true,
      force: flags.force === true,
      allowOversizedTmpfs: flags.allowOversizedTmpfs === true,
      bitbake: globals.bitbake !== false,
      ...(flags.unitFile === undefined ? {} : { unitFile: flags.unitFile }),
    });
    if (out.json) out.document(report);
    else for (const line of renderApply(report)) out.line(line);
    process.exitCode = EXIT_OK;
  });
}
