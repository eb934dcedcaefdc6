import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { EXIT_OK, RambakeError } from '../errors.js';
import { setup } from './common.js';
import { addOptions } from './options.js';

interface ReportFlags {
  html?: string;
  plan?: boolean;
}

export function registerReport(program: Command): void {
  const cmd = program
    .command('report')
    .description(
      'report on a recorded run (default: the newest; with none, the newest buildstats build): peak and final usage, fill by recipe, lingering dirs, churn, sstate reuse, CPU per recipe, one go vs in steps, recommendations; --html writes one self-contained page',
    )
    .argument('[run]', 'a timeline file (RUN.jsonl); default: the newest in ${TOPDIR}/rambake/runs');
  addOptions(cmd, 'report').action(async (run: string | undefined, flags: ReportFlags, command: Command) => {
    const { out, load } = setup(command);
    const { collectReport } = await import('../analyze/report-read.js');
    const { readReportTemplate, renderHtml } = await import('../report/html.js');
    const { renderReportText } = await import('../report/report-text.js');
    const report = await collectReport(load, {
      ...(run === undefined ? {} : { run }),
      plan: flags.plan !== false,
    });
    if (flags.html !== undefined) {
      try {
        writeFileSync(flags.html, renderHtml(report, readReportTemplate()));
      } catch (err) {
        throw new RambakeError(`cannot write ${flags.html}: ${(err as Error).message}`, { cause: err });
      }
    }
    if (out.json) out.document(report);
    else {
      for (const line of renderReportText(report, out.colors)) out.line(line);
      if (flags.html !== undefined) out.line(`\nHTML report: ${flags.html}`);
    }
    process.exitCode = EXIT_OK;
  });
}
