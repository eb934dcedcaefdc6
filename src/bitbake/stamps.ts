// Stamp file names in `${STAMPS_DIR}/${MULTIMACH_TARGET_SYS}/${PN}/`. STAMP ends in `${PV}`,
// so every name starts with the PV, which may itself hold dots ('6.12.9+git'); the task is
// found at the first `.do_` after the known PV, or after the PV when it is not known.
//   '1.3.1.do_compile.5f0e…c2'                 → { pv: '1.3.1', task: 'do_compile', hash: '5f0e…c2' }
//   '1.3.1.do_deploy_setscene.9a…1.qemux86_64' → { task: 'do_deploy', setscene: true, hash: '9a…1', extra: 'qemux86_64' }
//   '1.3.1.do_compile.sigdata.77…e'            → { task: 'do_compile', sigdata: true, hash: '77…e' }
//   '1.3.1.do_compile.taint'                   → { task: 'do_compile', taint: true }

import { readdir } from 'node:fs/promises';

export interface StampName {
  pv: string;
  /** `do_x` without `_setscene`. */
  task: string;
  setscene: boolean;
  /** The task hash of a stamp, or the unihash of a `.sigdata` file. */
  hash?: string;
  sigdata?: true;
  taint?: true;
  /** What follows the hash: `stamp-extra-info` such as the machine arch. */
  extra?: string;
}

export function parseStampName(name: string, pv?: string): StampName | undefined {
  const at = pv !== undefined && name.startsWith(`${pv}.do_`) ? pv.length : name.indexOf('.do_');
  if (at < 0) return undefined;
  const parts = name.slice(at + 1).split('.');
  const taskName = parts[0]!;
  if (!/^do_\w+$/.test(taskName)) return undefined;
  const setscene = taskName.endsWith('_setscene');
  const stamp: StampName = {
    pv: name.slice(0, at),
    task: setscene ? taskName.slice(0, -'_setscene'.length) : taskName,
    setscene,
  };
  let rest = parts.slice(1);
  if (rest[0] === 'taint' && rest.length === 1) {
    stamp.taint = true;
    return stamp;
  }
  if (rest[0] === 'sigdata') {
    stamp.sigdata = true;
    rest = rest.slice(1);
  }
  if (rest[0] !== undefined && rest[0] !== '') stamp.hash = rest[0];
  if (rest.length > 1) stamp.extra = rest.slice(1).join('.');
  return stamp;
}

export interface RecipeStamp extends StampName {
  file: string;
}

/** Parses every stamp in one recipe's stamp folder (`…/stamps/<arch>/<PN>/`); [] when it is absent. */
export async function readRecipeStamps(dir: string, pv?: string): Promise<RecipeStamp[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const stamps: RecipeStamp[] = [];
  for (const file of names.sort()) {
    const stamp = parseStampName(file, pv);
    if (stamp) stamps.push({ file, ...stamp });
  }
  return stamps;
}
