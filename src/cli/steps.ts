import type { Command } from 'commander';
import { EXIT_OK } from '../errors.js';
import { setup } from './common.js';
import { addOptions } from './options.js';

export function registerSteps(program: Command): void {
  const cmd = program
    .command('steps')
    .argument('<targets...>', 'the images or recipes to build (as after bitbake)')
    .description('propose recipes to build one at a time before the targets so the tmpfs peak stays small');
  addOptions(cmd, 'steps').action(async (targets: string[], _opts, c: Command) => {
    const { out, load } = setup(c, { askBitbake: false });
    const { proposeSteps } = await import('../plan/steps.js');
    const { renderSteps } = await import('../report/steps.js');
    const proposal = await proposeSteps(load, targets);
    if (out.json) out.document(proposal);
    else for (const line of renderSteps(proposal, out.colors)) out.line(line);
    process.exitCode = EXIT_OK;
  });
}
