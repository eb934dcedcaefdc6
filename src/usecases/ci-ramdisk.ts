// `rambake ci-ramdisk`: a ready shell script that puts a CI job's working tree on a RAM disk,
// a Linux tmpfs or a FreeBSD swap-backed memory disk (mdconfig + newfs -U, as PostgreSQL's CI
// does), plus job counts. The script text lives in templates/; user values only ever enter it
// through `quoteShellWord`, in the variable assignments at its top.

import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { tmpfsSizeOption } from '../plan/sizing-budget.js';
import { quoteShellWord } from '../text/shell.js';

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

/** tmpfs nr_inodes for a CI disk: 64k per GiB (see sizing-need.ts), at least 400k. */
export function ciInodes(size: number): number {
  return Math.max(400 * 1024, Math.ceil((size / 2 ** 30) * 65_536));
}

/** Build jobs = CPUs; test jobs up to twice that, since tests no longer wait on the disk. */
export function ciJobs(cpus: number): { build: number; test: number } {
  const build = Math.max(1, Math.floor(cpus));
  return { build, test: 2 * build };
}

/**
 * An absolute path in one spelling: `/ci/work/`, `/ci//work` and `/ci/x/../work` are all
 * `/ci/work`, so the script's "same folder: move it in" test sees them as the same folder
 * (a trailing slash once made it mount over the working tree instead).
 */
function normalisedPath(flag: string, value: string): string {
  if (!isAbsolute(value)) throw new UsageError(`${flag} must be an absolute path: ${value}`);
  if (value.includes('\n')) throw new UsageError(`${flag} must not contain a newline`);
  return resolve(value);
}

const inside = (child: string, parent: string) => parent === '/' || child.startsWith(`${parent}/`);

/** Pure: template text + options → script. */
export function renderCiRamdisk(template: string, opts: CiRamdiskOptions): CiRamdisk {
  const path = normalisedPath('--path', opts.path);
  const copyFrom = opts.copyFrom === undefined ? undefined : normalisedPath('--copy-from', opts.copyFrom);
  if (path === '/') throw new UsageError('--path /: a RAM disk over the root file system hides everything');
  if (copyFrom !== undefined && inside(path, copyFrom))
    throw new UsageError(
      `--path ${path} is inside --copy-from ${copyFrom}: the copy would go into itself`,
      'put the RAM disk outside the tree you copy, or use the same folder for both to move it in',
    );
  if (copyFrom !== undefined && inside(copyFrom, path))
    throw new UsageError(
      `--copy-from ${copyFrom} is inside --path ${path}: the RAM disk would hide it before the copy`,
      'use the same folder for both to move the working tree in',
    );
  if (!(opts.size > 0)) throw new UsageError('--size must be more than 0');
  const jobs = ciJobs(opts.cpus);
  const values: Record<string, string> = {
    RAMDISK_DIR: path,
    RAMDISK_SIZE: tmpfsSizeOption(opts.size),
    RAMDISK_INODES: String(ciInodes(opts.size)),
    COPY_FROM: copyFrom ?? '',
    BUILD_JOBS: String(jobs.build),
    TEST_JOBS: String(jobs.test),
  };
  // `RAMDISK_DIR=@RAMDISK_DIR@` → `RAMDISK_DIR='/mnt/ram disk'`
  const script = template.replace(/@([A-Z_]+)@/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : quoteShellWord(value);
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
