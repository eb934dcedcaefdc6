import type { Command } from 'commander';
import { EXIT_OK } from '../errors.js';
import { setup } from './common.js';

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('show the build directory, layers, key variables with where each came from, paths and host')
    .action(async (_opts, cmd: Command) => {
      const { out, load } = setup(cmd);
      const { collectStatus } = await import('../usecases/status.js');
      const { renderStatus } = await import('../report/status.js');
      const report = await collectStatus(load);
      if (out.json) out.document(report);
      else for (const line of renderStatus(report, out.colors)) out.line(line);
      process.exitCode = EXIT_OK;
    });
}
