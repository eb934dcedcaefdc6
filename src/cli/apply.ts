import type { Command } from 'commander';
import type { ConfChoice } from '../apply/apply.js';
import { EXIT_OK } from '../errors.js';
import { setup } from './common.js';
import { addOptions } from './options.js';
import { planOptions } from './plan.js';

interface ApplyFlags {
  dryRun?: boolean;
  conf?: string;
  size?: number;
  path?: string;
  scope?: 'tmpdir' | 'workdir';
  target?: string;
  force?: boolean;
  allowOversizedTmpfs?: boolean;
  unitFile?: string;
}

export function registerApply(program: Command): void {
  const cmd = program
    .command('apply')
    .description("mount the planned tmpfs (or print how) and write rambake's managed block into a conf file");
  addOptions(cmd, 'apply').action(async (flags: ApplyFlags, command: Command) => {
    const { out, load, flags: globals } = setup(command);
    const { runApply } = await import('../apply/apply.js');
    const { renderApply } = await import('../report/apply.js');
    const report = await runApply(load, planOptions(flags), {
      conf: (flags.conf ?? 'auto') as ConfChoice, // one of the option table's choices
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
