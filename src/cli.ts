#!/usr/bin/env node
// rambake's entry: builds the commander program, runs one command, maps errors to exit codes.
// Only this file and cli/output.ts print.

import { CommanderError } from 'commander';
import { buildProgram } from './cli/program.js';
import { EXIT_USAGE, RambakeError } from './errors.js';

const debug = process.argv.includes('--debug');
const program = await buildProgram();

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = reportError(err);
}

function reportError(err: unknown): number {
  if (err instanceof CommanderError) {
    // --help and --version end here with code 0; usage errors were already printed by commander.
    return err.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  if (err instanceof RambakeError) {
    process.stderr.write(`rambake: ${err.message}\n`);
    if (err.hint) process.stderr.write(`  hint: ${err.hint}\n`);
    if (debug && err.stack) process.stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`rambake: unexpected error: ${message}\n`);
  if (debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  else process.stderr.write('  hint: run again with --debug for the stack trace, and report it\n');
  return 1;
}
