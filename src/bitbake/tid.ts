// Task ids as BitBake prints them in console logs:
//   [mc:<mc>:][virtual:<class>[:<arg>]:]<absolute .bb path>:do_<task>[_setscene]
// e.g. 'mc:arm:virtual:native:/l/meta/recipes-core/zlib/zlib_1.3.1.bb:do_populate_sysroot_setscene'
//   → { mc: 'arm', virtual: 'native', file: '/l/…/zlib_1.3.1.bb', task: 'do_populate_sysroot', setscene: true }

import { basename } from 'node:path';

/** BBCLASSEXTEND variant: `native`, `nativesdk`, `multilib:<ml>`, or another class's own form. */
export type TidVirtual = 'native' | 'nativesdk' | `multilib:${string}` | (string & {});

export interface Tid {
  mc?: string;
  virtual?: TidVirtual;
  file: string;
  /** `do_x`, without `_setscene`. */
  task: string;
  setscene: boolean;
}

const SETSCENE = '_setscene';

/** Parses a tid; undefined when it has no `:do_` task or no recipe file. */
export function parseTid(tid: string): Tid | undefined {
  const taskAt = tid.lastIndexOf(':do_');
  if (taskAt < 0) return undefined;
  let task = tid.slice(taskAt + 1);
  let rest = tid.slice(0, taskAt);
  let mc: string | undefined;
  if (rest.startsWith('mc:')) {
    const end = rest.indexOf(':', 3);
    if (end < 0) return undefined;
    mc = rest.slice(3, end);
    rest = rest.slice(end + 1);
  }
  let virtual: string | undefined;
  if (rest.startsWith('virtual:')) {
    // The class and its arguments run up to the recipe file, the first absolute path.
    const fileAt = rest.indexOf(':/');
    if (fileAt < 0) return undefined;
    virtual = rest.slice('virtual:'.length, fileAt);
    rest = rest.slice(fileAt + 1);
  }
  if (rest === '' || !/^do_\w/.test(task)) return undefined;
  const setscene = task.endsWith(SETSCENE);
  if (setscene) task = task.slice(0, -SETSCENE.length);
  const parsed: Tid = { file: rest, task, setscene };
  if (mc !== undefined && mc !== '') parsed.mc = mc;
  if (virtual !== undefined) parsed.virtual = virtual;
  return parsed;
}

export interface RecipeGuess {
  pn: string;
  pv?: string;
  pr?: string;
}

/**
 * BitBake's defaults from a recipe file name: `name[_version[_revision]].bb` (a `.bbappend`
 * alike). e.g. '/l/meta/recipes-core/zlib/zlib_1.3.1.bb' → { pn: 'zlib', pv: '1.3.1' }.
 * PN and PV set inside the recipe win in BitBake; this is only the file-name guess.
 */
export function recipeFromBbPath(file: string): RecipeGuess {
  const name = basename(file).replace(/\.(bb|bbappend)$/, '');
  const [pn = name, pv, pr] = name.split('_');
  const guess: RecipeGuess = { pn };
  if (pv !== undefined && pv !== '') guess.pv = pv;
  if (pr !== undefined && pr !== '') guess.pr = pr;
  return guess;
}

/**
 * The PN a tid's variant builds under, from the file-name guess: `-native` suffix,
 * `nativesdk-` and `<ml>-` prefixes, as the native, nativesdk and multilib classes rename.
 */
export function pnFromTid(tid: Tid): string {
  const pn = recipeFromBbPath(tid.file).pn;
  const v = tid.virtual;
  if (v === 'native') return pn.endsWith('-native') ? pn : `${pn}-native`;
  if (v === 'nativesdk') return pn.startsWith('nativesdk-') ? pn : `nativesdk-${pn}`;
  if (v?.startsWith('multilib:')) return `${v.slice('multilib:'.length)}-${pn}`;
  return pn;
}
