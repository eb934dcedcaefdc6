// What is on disk when the watcher starts (or when a folder appears): work dirs with their
// content class, and the work-shared folders. Small synchronous reads: a few per folder.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readTextSync } from '../system/read-file.js';
import { classifyFound, type WorkdirId, workdirKey, workSharedId } from './classify.js';
import type { FoundContent } from './states.js';

export interface FoundDir {
  id: WorkdirId;
  path: string;
  content: FoundContent;
  mtimeMs: number;
}

const list = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** Classifies one WORKDIR folder by its entries and its `temp/log.task_order`. */
export function inspectWorkdir(path: string, arch: string, pn: string, pv: string): FoundDir | undefined {
  let mtimeMs: number;
  try {
    const st = statSync(path);
    if (!st.isDirectory()) return undefined;
    mtimeMs = st.mtimeMs;
  } catch {
    return undefined;
  }
  let order = '';
  try {
    // Bounded and non-blocking (a FIFO or a link to a device here is passed over).
    order = readTextSync(join(path, 'temp', 'log.task_order'), 'record') ?? '';
  } catch {
    // no task ran here yet, or rm_work-less cleanup removed temp/
  }
  return {
    id: { key: workdirKey(arch, pn, pv), arch, pn, pv },
    path,
    content: classifyFound(list(path), order),
    mtimeMs,
  };
}

/** Every `${BASE_WORKDIR}/<arch>/<pn>/<pv>`. */
export function findWorkdirs(baseWorkdir: string): FoundDir[] {
  const out: FoundDir[] = [];
  for (const arch of list(baseWorkdir))
    for (const pn of list(join(baseWorkdir, arch)))
      for (const pv of list(join(baseWorkdir, arch, pn))) {
        const found = inspectWorkdir(join(baseWorkdir, arch, pn, pv), arch, pn, pv);
        if (found) out.push(found);
      }
  return out;
}

// Kernel folders sit one level down, under the MACHINE (`work-shared/qemux86-64/kernel-source`);
// gcc and llvm sources directly (`work-shared/gcc-15.2.0-r0`).
const MACHINE_LEVEL = new Set(['kernel-source', 'kernel-build-artifacts']);

/** The folders of `${TMPDIR}/work-shared`, as `{ id, path }`. */
export function findWorkShared(workShared: string): { id: WorkdirId; path: string }[] {
  const out: { id: WorkdirId; path: string }[] = [];
  for (const name of list(workShared)) {
    const inner = list(join(workShared, name));
    if (inner.some((n) => MACHINE_LEVEL.has(n)))
      for (const n of inner) out.push({ id: workSharedId(join(name, n)), path: join(workShared, name, n) });
    else out.push({ id: workSharedId(name), path: join(workShared, name) });
  }
  return out;
}
