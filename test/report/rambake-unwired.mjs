// Used by the report tests only while src/cli/program.ts does not register `report` yet: the
// built program plus registerReport, with cli.ts's error mapping.
import { CommanderError } from 'commander';
import { buildProgram } from '../../dist/cli/program.js';
import { registerReport } from '../../dist/cli/report.js';

const program = buildProgram();
if (!program.commands.some((c) => c.name() === 'report')) {
  registerReport(program);
  for (const c of program.commands) c.exitOverride();
}
try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exitCode = err.exitCode === 0 ? 0 : 2;
  else {
    process.stderr.write(`rambake: ${err.message}\n`);
    if (err.hint) process.stderr.write(`  hint: ${err.hint}\n`);
    process.exitCode = err.exitCode ?? 1;
  }
}
