import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { EXIT_OK, UsageError } from '../errors.js';
import { type CiOs, type CiRamdiskOptions, makeCiRamdisk } from '../plan/ci-ramdisk.js';
import { globalFlags } from './common.js';
import { makeOutput } from './output.js';
import { addTableOptions, parseSizeFlag } from './plan.js';

interface CiFlags {
  os?: string;
  size?: string;
  path?: string;
  copyFrom?: string;
  cpus?: string;
}

/** Flags → options; every missing or malformed flag is a usage error naming it. */
export function ciRamdiskOptions(flags: CiFlags, defaultCpus = availableParallelism()): CiRamdiskOptions {
  const os = flags.os ?? 'linux';
  if (os !== 'linux' && os !== 'freebsd') throw new UsageError(`--os ${os}: expected linux or freebsd`);
  if (flags.size === undefined) throw new UsageError('--size is required (e.g. --size 20g)');
  if (flags.path === undefined) throw new UsageError('--path is required: where the RAM disk is mounted');
  let cpus = defaultCpus;
  if (flags.cpus !== undefined) {
    cpus = Number(flags.cpus);
    if (!Number.isInteger(cpus) || cpus < 1)
      throw new UsageError(`--cpus ${flags.cpus}: expected a whole number ≥ 1`);
  }
  return {
    os: os as CiOs,
    size: parseSizeFlag('--size', flags.size),
    path: flags.path,
    ...(flags.copyFrom === undefined ? {} : { copyFrom: flags.copyFrom }),
    cpus,
  };
}

export function registerCiRamdisk(program: Command): void {
  const cmd = program
    .command('ci-ramdisk')
    .description('print a script that puts a CI working tree on a RAM disk (Linux tmpfs or FreeBSD md)');
  addTableOptions(cmd, 'ci-ramdisk').action(async (flags: CiFlags, command: Command) => {
    const out = makeOutput(globalFlags(command));
    const result = await makeCiRamdisk(ciRamdiskOptions(flags));
    if (out.json) out.document(result);
    else out.line(result.script.replace(/\n$/, ''));
    process.exitCode = EXIT_OK;
  });
}
