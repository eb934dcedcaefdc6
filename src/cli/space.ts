import type { Command } from 'commander';
import { EXIT_OK } from '../errors.js';
import { setup } from './common.js';
import { addOptions } from './options.js';

interface SpaceFlags {
  save?: string;
  compare?: string;
}

export function registerSpace(program: Command): void {
  const cmd = program
    .command('space')
    .argument('[pn...]', 'only these recipes in the per-recipe lists')
    .description(
      "where TMPDIR's bytes are: per recipe and subfolder (unique vs shared hard links), stale work dirs, growth against a saved scan",
    );
  addOptions(cmd, 'space').action(async (pns: string[], flags: SpaceFlags, command: Command) => {
    const { out, load } = setup(command, { askBitbake: false });
    const { collectSpace } = await import('../analyze/space-read.js');
    const { renderSpace } = await import('../report/space.js');
    const result = await collectSpace(load, {
      pns,
      ...(flags.save === undefined ? {} : { save: flags.save }),
      ...(flags.compare === undefined ? {} : { compare: flags.compare }),
    });
    if (out.json)
      out.document(result.comparison ? { ...result.report, comparison: result.comparison } : result.report);
    else for (const line of renderSpace(result.report, out.colors, result.comparison)) out.line(line);
    process.exitCode = EXIT_OK;
  });
}
