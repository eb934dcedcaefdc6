#!/usr/bin/env node
// rambake's entry: builds the commander program, runs one command, maps errors to exit codes.
// Only this file and cli/output.ts print.

import { CommanderError } from './cli/commander.js';
import { buildProgram } from './cli/program.js';
import { EXIT_USAGE, RambakeError } from './errors.js';

/** What the file system said, in one line with the path: the user can act on these. */
const SYSTEM_ERRORS: Record<string, { what: string; exitCode: number }> = {
  EACCES: { what: 'permission denied', exitCode: 1 },
  EPERM: { what: 'operation not permitted', exitCode: 1 },
  EROFS: { what: 'read-only file system', exitCode: 1 },
  ENOSPC: { what: 'no space left on device', exitCode: 1 },
  EDQUOT: { what: 'disk quota exceeded', exitCode: 1 },
  ELOOP: { what: 'too many levels of symbolic links (a link loop?)', exitCode: EXIT_USAGE },
  ENAMETOOLONG: { what: 'file name too long', exitCode: EXIT_USAGE },
  ENOTDIR: { what: 'not a directory', exitCode: EXIT_USAGE },
  EISDIR: { what: 'is a directory', exitCode: EXIT_USAGE },
};

function systemError(err: unknown): { text: string; exitCode: number } | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  const known = e?.code === undefined ? undefined : SYSTEM_ERRORS[e.code];
  if (!known) return undefined;
  return { text: `${e?.path ?? e?.syscall ?? 'file system'}: ${known.what}`, exitCode: known.exitCode };
}

// `rambake status | head -1`: the reader went away; what it wanted was written. End quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

const debug = process.argv.includes('--debug') || process.argv.includes('-D');
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
  const sys = systemError(err);
  if (sys) {
    process.stderr.write(`rambake: ${sys.text}\n`);
    if (debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    return sys.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`rambake: unexpected error: ${message}\n`);
  if (debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  else process.stderr.write('  hint: run again with --debug for the stack trace, and report it\n');
  return 1;
}
