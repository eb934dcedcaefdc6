// Used by the watch tests only while src/cli/program.ts does not register watch/run yet:
// the built program plus registerWatch/registerRun, with cli.ts's error mapping.
import { CommanderError } from 'commander';
import { buildProgram } from '../../dist/cli/program.js';
import { registerRun } from '../../dist/cli/run.js';
import { registerWatch } from '../../dist/cli/watch.js';

const program = buildProgram();
if (!program.commands.some((c) => c.name() === 'watch')) {
  registerWatch(program);
  registerRun(program);
  for (const c of program.commands) c.exitOverride();
}
try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exitCode = err.exitCode === 0 ? 0 : 2;
  else {
    console.error('rambake:', err.stack ?? err);
    process.exitCode = err.exitCode ?? 1;
  }
}
