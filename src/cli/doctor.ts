import type { Command } from 'commander';
import { EXIT_FINDINGS, EXIT_OK } from '../errors.js';
import { setup } from './common.js';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check the build and the host for what breaks or bloats a RAM build; exit 1 on any error')
    .action(async (_opts, cmd: Command) => {
      const { out, load } = setup(cmd);
      const { runDoctor } = await import('../doctor/doctor.js');
      const { hasErrors } = await import('../doctor/findings.js');
      const { renderFindings } = await import('../report/doctor.js');
      const report = await runDoctor(load);
      if (out.json) out.document(report);
      else for (const line of renderFindings(report.topdir, report.findings, out.colors)) out.line(line);
      process.exitCode = hasErrors(report.findings) ? EXIT_FINDINGS : EXIT_OK;
    });
}
