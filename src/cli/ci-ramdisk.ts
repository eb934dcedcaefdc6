import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { EXIT_OK, UsageError } from '../errors.js';
import type { CiOs, CiRamdiskOptions } from '../usecases/ci-ramdisk.js';
import { globalFlags } from './common.js';
import { addOptions } from './options.js';
import { makeOutput } from './output.js';

interface CiFlags {
  os?: string;
  size?: number;
  path?: string;
  copyFrom?: string;
  cpus?: number;
}

/** Flags → options; every missing or malformed flag is a usage error naming it. */
export function ciRamdiskOptions(flags: CiFlags, defaultCpus = availableParallelism()): CiRamdiskOptions {
  // --os and --cpus were checked by their choices and parser in the option table.
  const os = flags.os ?? 'linux';
  if (flags.size === undefined) throw new UsageError('--size is required (e.g. --size 20g)');
  if (flags.path === undefined) throw new UsageError('--path is required: where the RAM disk is mounted');
  const cpus = flags.cpus ?? defaultCpus;
  return {
    os: os as CiOs,
    size: flags.size,
    path: flags.path,
    ...(flags.copyFrom === undefined ? {} : { copyFrom: flags.copyFrom }),
    cpus,
  };
}

export function registerCiRamdisk(program: Command): void {
  const cmd = program
    .command('ci-ramdisk')
    .description('print a script that puts a CI working tree on a RAM disk (Linux tmpfs or FreeBSD md)');
  addOptions(cmd, 'ci-ramdisk').action(async (flags: CiFlags, command: Command) => {
    const out = makeOutput(globalFlags(command));
    const { makeCiRamdisk } = await import('../usecases/ci-ramdisk.js');
    const result = await makeCiRamdisk(ciRamdiskOptions(flags));
    if (out.json) out.document(result);
    else out.line(result.script.replace(/\n$/, ''));
    process.exitCode = EXIT_OK;
  });
}
