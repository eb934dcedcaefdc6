import { type Command, Option } from 'commander';
import { EXIT_OK } from '../errors.js';
import { proposeSteps } from '../plan/steps.js';
import { renderSteps } from '../report/steps.js';
import { setup } from './common.js';
import { optionsFor } from './options.js';

export function registerSteps(program: Command): void {
  const cmd = program
    .command('steps')
    .argument('<targets...>', 'the images or recipes to build (as after bitbake)')
    .description('propose recipes to build one at a time before TARGET so the tmpfs peak stays small');
  for (const spec of optionsFor('steps').filter((o) => o.scope !== 'global')) {
    cmd.addOption(new Option(spec.flags, spec.description));
  }
  cmd.action(async (targets: string[], _opts, c: Command) => {
    const { out, load } = setup(c, { askBitbake: false });
    const proposal = await proposeSteps(load, targets);
    if (out.json) out.document(proposal);
    else for (const line of renderSteps(proposal, out.colors)) out.line(line);
    process.exitCode = EXIT_OK;
  });
}
