// The commander program: global options from the option table, one module per command.

import { Command, Option } from 'commander';
import { registerApply } from './apply.js';
import { registerBenchIo } from './bench-io.js';
import { registerChurn } from './churn.js';
import { registerCiRamdisk } from './ci-ramdisk.js';
import { registerDoctor } from './doctor.js';
import { OPTIONS } from './options.js';
import { registerPlan } from './plan.js';
import { registerReport } from './report.js';
import { registerRevert } from './revert.js';
import { registerRun } from './run.js';
import { registerSpace } from './space.js';
import { registerStatus } from './status.js';
import { registerSteps } from './steps.js';
import { registerWatch } from './watch.js';

const VERSION = '0.1.0';

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
  // In the order a user meets them: read the build, plan and apply, build under watch, analyse.
  registerStatus(program);
  registerDoctor(program);
  registerPlan(program);
  registerApply(program);
  registerRevert(program);
  registerWatch(program);
  registerRun(program);
  registerChurn(program);
  registerSpace(program);
  registerReport(program);
  registerSteps(program);
  registerBenchIo(program);
  registerCiRamdisk(program);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}
