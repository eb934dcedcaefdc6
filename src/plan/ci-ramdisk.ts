// `rambake ci-ramdisk`: a ready shell script that puts a CI job's working tree on a RAM disk,
// a Linux tmpfs or a FreeBSD swap-backed memory disk (mdconfig + newfs -U, as PostgreSQL's CI
// does), plus job counts. The script text lives in templates/; user values only ever enter it
// through `shQuote`, in the variable assignments at its top.

import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { UsageError } from '../errors.js';
import { tmpfsSizeOption } from './sizing-budget.js';

export const CI_RAMDISK_SCHEMA_VERSION = 1;
export type CiOs = 'linux' | 'freebsd';

export interface CiRamdiskOptions {
  os: CiOs;
  /** Bytes. */
  size: number;
  path: string;
  copyFrom?: string;
  cpus: number;
}

export interface CiRamdisk {
  schemaVersion: number;
  os: CiOs;
  script: string;
  jobs: { build: number; test: number };
}

/**
 * The one function that puts a value into shell text: single quotes, each `'` closed, escaped
 * and reopened. Nothing inside single quotes is special to sh ($, `, \, ", blanks).
 *   it's $(x) → 'it'\''s $(x)'
 */
export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** tmpfs nr_inodes for a CI disk: 64k per GiB (see sizing-need.ts), at least 400k. */
export function ciInodes(size: number): number {
  return Math.max(400 * 1024, Math.ceil((size / 2 ** 30) * 65_536));
}

/** Build jobs = CPUs; test jobs up to twice that, since tests no longer wait on the disk. */
export function ciJobs(cpus: number): { build: number; test: number } {
  const build = Math.max(1, Math.floor(cpus));
  return { build, test: 2 * build };
}

/** Pure: template text + options → script. */
export function renderCiRamdisk(template: string, opts: CiRamdiskOptions): CiRamdisk {
  for (const [flag, value] of [
    ['--path', opts.path],
    ['--copy-from', opts.copyFrom],
  ] as const) {
    if (value !== undefined && !isAbsolute(value))
      throw new UsageError(`${flag} must be an absolute path: ${value}`);
    if (value?.includes('\n')) throw new UsageError(`${flag} must not contain a newline`);
  }
  if (!(opts.size > 0)) throw new UsageError('--size must be more than 0');
  const jobs = ciJobs(opts.cpus);
  const values: Record<string, string> = {
    RAMDISK_DIR: opts.path,
    RAMDISK_SIZE: tmpfsSizeOption(opts.size),
    RAMDISK_INODES: String(ciInodes(opts.size)),
    COPY_FROM: opts.copyFrom ?? '',
    BUILD_JOBS: String(jobs.build),
    TEST_JOBS: String(jobs.test),
  };
  // `RAMDISK_DIR=@RAMDISK_DIR@` → `RAMDISK_DIR='/mnt/ram disk'`
  const script = template.replace(/@([A-Z_]+)@/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : shQuote(value);
  });
  return { schemaVersion: CI_RAMDISK_SCHEMA_VERSION, os: opts.os, script, jobs };
}

export function templatePath(os: CiOs): URL {
  // src/plan/ and dist/plan/ are both two levels below the package root, beside templates/.
  return new URL(`../../templates/ci-ramdisk-${os}.sh`, import.meta.url);
}

export async function makeCiRamdisk(opts: CiRamdiskOptions): Promise<CiRamdisk> {
  return renderCiRamdisk(await readFile(templatePath(opts.os), 'utf8'), opts);
}
