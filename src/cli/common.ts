// What every command does with the global flags: load options for the BuildDir model, output.

import type { Command } from 'commander';
import type { LoadOptions } from '../bitbake/builddir-types.js';
import { type GlobalFlags, makeOutput, type Output } from './output.js';

export function globalFlags(cmd: Command): GlobalFlags {
  return cmd.optsWithGlobals() as GlobalFlags;
}

/**
 * `askBitbake: false` is for commands that only need paths (watch, run, space, churn, report,
 * steps): BitBake's own answers cost a bitbake-getvar process per variable (seconds each on a real
 * build), while a build's event log, free to read, is still used.
 */
export function loadOptions(flags: GlobalFlags, askBitbake = true): LoadOptions {
  const sources =
    flags.bitbake === false
      ? { sources: { getvar: false, eventlog: false } }
      : askBitbake
        ? {}
        : { sources: { getvar: false, eventlog: true } };
  return { ...(flags.buildDir === undefined ? {} : { buildDir: flags.buildDir }), ...sources };
}

export function setup(
  cmd: Command,
  opts: { askBitbake?: boolean } = {},
): { flags: GlobalFlags; out: Output; load: LoadOptions } {
  const flags = globalFlags(cmd);
  return { flags, out: makeOutput(flags), load: loadOptions(flags, opts.askBitbake ?? true) };
}
