// Finding the build directory (TOPDIR) the way a user expects: --build-dir, then $BUILDDIR
// (exported by oe-init-build-env), then the nearest folder upward holding conf/bblayers.conf.
// BitBake itself also looks along BBPATH; a sourced environment sets BUILDDIR and BBPATH alike.

import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { NotABuildDirError } from '../errors.js';

export interface FoundBuildDir {
  topdir: string;
  layout: 'classic' | 'bitbake-setup';
  setupDir?: string;
  sharedSiteConf?: string;
  how: 'flag' | 'BUILDDIR' | 'search';
}

const hasBblayers = (dir: string) => existsSync(join(dir, 'conf', 'bblayers.conf'));

export function findBuildDir(opts: {
  buildDir?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}): FoundBuildDir {
  if (opts.buildDir !== undefined) {
    const dir = resolve(opts.cwd, opts.buildDir);
    if (!isDir(dir)) throw new NotABuildDirError(`--build-dir ${opts.buildDir}: no such folder`);
    if (hasBblayers(dir)) return describe(dir, 'flag');
    // A bitbake-setup folder (<setup>/{config,layers,build}) names its build/ for you.
    if (hasBblayers(join(dir, 'build')) && isDir(join(dir, 'layers')))
      return describe(join(dir, 'build'), 'flag');
    throw notFound(dir, false);
  }
  const fromEnv = opts.env.BUILDDIR;
  if (fromEnv) {
    const dir = resolve(opts.cwd, fromEnv);
    if (hasBblayers(dir)) return describe(dir, 'BUILDDIR');
    throw new NotABuildDirError(
      `BUILDDIR=${fromEnv} has no conf/bblayers.conf`,
      'source oe-init-build-env again, unset BUILDDIR, or pass --build-dir',
    );
  }
  let dir = resolve(opts.cwd);
  for (;;) {
    if (hasBblayers(dir)) return describe(dir, 'search');
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw notFound(resolve(opts.cwd), true);
}

function notFound(dir: string, upward: boolean): NotABuildDirError {
  return new NotABuildDirError(
    `not a BitBake build directory: no conf/bblayers.conf in ${dir}${upward ? ' or any folder above it' : ''}`,
    'run `source oe-init-build-env [builddir]` first, or pass --build-dir DIR',
  );
}

function describe(topdir: string, how: FoundBuildDir['how']): FoundBuildDir {
  const parent = dirname(topdir);
  const setup =
    basename(topdir) === 'build' && isDir(join(parent, 'layers')) && isDir(join(parent, 'config'));
  if (!setup) return { topdir, layout: 'classic', how };
  const found: FoundBuildDir = { topdir, layout: 'bitbake-setup', setupDir: parent, how };
  // bitbake-setup links build/conf/site.conf to one site.conf shared by every setup.
  const site = join(topdir, 'conf', 'site.conf');
  if (isSymlink(site)) found.sharedSiteConf = realTarget(site);
  return found;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function realTarget(link: string): string {
  try {
    return realpathSync(link);
  } catch {
    // A dangling link still tells where the shared file should be.
    return resolve(dirname(link), readlinkSync(link));
  }
}
