// The commander program: global options from the option table, one module per command.

import { Command, Option } from 'commander';
import { registerDoctor } from './doctor.js';
import { OPTIONS } from './options.js';
import { registerStatus } from './status.js';

export function buildProgram(): Command {
  const program = new Command('rambake')
    .description('Run BitBake/Yocto builds in RAM that still fit.')
    .version(VERSION)
    .showHelpAfterError('(run rambake --help for usage)')
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => write(`rambake: ${text.replace(/^error: /, '')}`),
    });
  for (const spec of OPTIONS.filter((o) => o.scope === 'global')) {
    program.addOption(new Option(spec.flags, spec.description));
  }
  registerStatus(program);
  registerDoctor(program);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

const VERSION = '0.1.0';
