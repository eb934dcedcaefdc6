import { type Command, Option } from 'commander';
import { DEFAULT_CHURN_BUILDS } from '../analyze/churn.js';
import { collectChurn } from '../analyze/churn-read.js';
import { EXIT_FINDINGS, EXIT_OK, UsageError } from '../errors.js';
import { renderChurn } from '../report/churn.js';
import { setup } from './common.js';
import { OPTIONS } from './options.js';

interface ChurnFlags {
  builds?: string;
}

export function registerChurn(program: Command): void {
  const cmd = program
    .command('churn')
    .description(
      'find redundant do_package_setscene restores and setscene churn across the last builds; exit 1 on recurring churn',
    );
  for (const spec of OPTIONS.filter((o) => o.scope !== 'global' && o.scope.includes('churn'))) {
    const option = new Option(spec.flags, spec.description);
    // Shown in --help as (default: "5").
    if (spec.defaultValue !== undefined) option.default(spec.defaultValue);
    cmd.addOption(option);
  }
  cmd.action(async (flags: ChurnFlags, command: Command) => {
    const builds = flags.builds === undefined ? DEFAULT_CHURN_BUILDS : Number(flags.builds);
    if (!Number.isInteger(builds) || builds < 1)
      throw new UsageError(`--builds ${flags.builds}: expected a whole number of builds, 1 or more`);
    const { out, load } = setup(command, { askBitbake: false });
    const report = await collectChurn(load, { builds });
    if (out.json) out.document(report);
    else for (const line of renderChurn(report, out.colors)) out.line(line);
    process.exitCode = report.churn ? EXIT_FINDINGS : EXIT_OK;
  });
}
