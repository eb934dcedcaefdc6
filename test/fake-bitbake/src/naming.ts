// Where BitBake puts a recipe's things (bitbake-formats.md §3, §9) and what it calls them.

import path from 'node:path';
import type { FakeConfig, ScenarioRecipe } from './types.js';

export const SSTATE_VERSION = '14';

export function pfOf(r: ScenarioRecipe): string {
  return `${r.pn}-${r.pv}-${r.pr}`;
}

/** PACKAGE_ARCH (and SSTATE_MANMACH): core2-64-poky-linux → core2-64, x86_64-linux → x86_64. */
export function packageArchOf(r: ScenarioRecipe): string {
  return r.arch.replace(/-poky-linux$/, '').replace(/-linux$/, '');
}

export function workdirOf(cfg: FakeConfig, r: ScenarioRecipe): string {
  return cfg.workdirOf?.(r) ?? path.join(cfg.baseWorkdir, r.arch, r.pn, r.pv);
}

/** STAMP: `${STAMPS_DIR}/<arch>/<PN>/<PV>`; task stamps append `.<do_x>.<hash>`. */
export function stampBaseOf(cfg: FakeConfig, r: ScenarioRecipe): string {
  return path.join(cfg.stampsDir, r.arch, r.pn, r.pv);
}

/** The base recipe name: native variants share the target recipe's .bb file. */
export function bpnOf(r: ScenarioRecipe): string {
  return r.kind === 'native' ? r.pn.replace(/-native$/, '') : r.pn;
}

export function bbFileOf(cfg: FakeConfig, r: ScenarioRecipe): string {
  const layer = cfg.layers[0]?.path ?? path.join(path.dirname(cfg.topdir), 'layers', 'meta');
  const rel =
    r.bb ?? `recipes-${r.kind === 'image' ? 'core/images' : 'fake'}/${bpnOf(r)}/${bpnOf(r)}_${r.pv}.bb`;
  return path.join(layer, rel);
}

/** A task id as BitBake prints it: `virtual:native:/path/zlib_1.3.1.bb:do_compile`. */
export function tidOf(cfg: FakeConfig, r: ScenarioRecipe, task: string): string {
  const prefix = r.kind === 'native' ? 'virtual:native:' : '';
  return `${prefix}${bbFileOf(cfg, r)}:${task}`;
}

/**
 * An sstate object path, as sstate.bbclass names it:
 * `<SSTATE_DIR>/[universal/]ab/cd/sstate:zlib:core2-64-poky-linux:1.3.1:r0:core2-64:14:abcd…_populate_sysroot.tar.zst`
 */
export function sstateObjectOf(cfg: FakeConfig, r: ScenarioRecipe, task: string, hash: string): string {
  const extra = r.kind === 'native' || r.kind === 'cross' ? 'universal' : '';
  const spec = `sstate:${r.pn}:${r.arch}:${r.pv}:${r.pr}:${packageArchOf(r)}:${SSTATE_VERSION}:`;
  const name = `${spec}${hash}_${task.replace(/^do_/, '')}.tar.zst`;
  return path.join(cfg.sstateDir, extra, hash.slice(0, 2), hash.slice(2, 4), name);
}

/** SSTATE_MANFILEPREFIX: `${SSTATE_MANIFESTS}/manifest-<pkgarch>-<PN>`. */
export function manifestPrefixOf(cfg: FakeConfig, r: ScenarioRecipe): string {
  return path.join(cfg.sstateManifests, `manifest-${packageArchOf(r)}-${r.pn}`);
}

export function componentsOf(cfg: FakeConfig, r: ScenarioRecipe): string {
  return path.join(cfg.componentsDir, packageArchOf(r), r.pn);
}
