import type { Command } from 'commander';
import { DEFAULT_CHURN_BUILDS } from '../analyze/churn.js';
import { EXIT_FINDINGS, EXIT_NOTHING_YET, EXIT_OK } from '../errors.js';
import { setup } from './common.js';
import { addOptions } from './options.js';

interface ChurnFlags {
  builds?: number;
}

export function registerChurn(program: Command): void {
  const cmd = program
    .command('churn')
    .description(
      'find redundant do_package_setscene restores and setscene churn across the last builds; exit 1 on recurring churn',
    );
  addOptions(cmd, 'churn').action(async (flags: ChurnFlags, command: Command) => {
    const builds = flags.builds ?? DEFAULT_CHURN_BUILDS;
    const { out, load } = setup(command, { askBitbake: false });
    const { collectChurn } = await import('../analyze/churn-read.js');
    const { renderChurn } = await import('../report/churn.js');
    const report = await collectChurn(load, { builds });
    if (out.json) out.document(report);
    else for (const line of renderChurn(report, out.colors)) out.line(line);
    process.exitCode = report.builds.length === 0 ? EXIT_NOTHING_YET : report.churn ? EXIT_FINDINGS : EXIT_OK;
  });
}
