// What every command does with the global flags: load options for the BuildDir model, output.

import type { Command } from 'commander';
import type { LoadOptions } from '../bitbake/builddir-types.js';
import { type GlobalFlags, makeOutput, type Output } from './output.js';

export function globalFlags(cmd: Command): GlobalFlags {
  return cmd.optsWithGlobals() as GlobalFlags;
}

export function loadOptions(flags: GlobalFlags): LoadOptions {
  return {
    ...(flags.buildDir === undefined ? {} : { buildDir: flags.buildDir }),
    ...(flags.bitbake === false ? { sources: { getvar: false, eventlog: false } } : {}),
  };
}

export function setup(cmd: Command): { flags: GlobalFlags; out: Output; load: LoadOptions } {
  const flags = globalFlags(cmd);
  return { flags, out: makeOutput(flags), load: loadOptions(flags) };
}
