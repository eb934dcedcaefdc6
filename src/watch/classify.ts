// Pure facts about recipes and work-directory paths that the state machine and the watcher share.

import { relative, sep } from 'node:path';

/** A WORKDIR `${BASE_WORKDIR}/<arch>/<pn>/<pv>` or a `${TMPDIR}/work-shared/…` folder. */
export interface WorkdirId {
  /** Timeline key: `<arch>/<pn>/<pv>`, or `work-shared/<rel>` for shared folders. */
  key: string;
  arch: string;
  pn: string;
  pv: string;
}

export const workdirKey = (arch: string, pn: string, pv: string): string => `${arch}/${pn}/${pv}`;

/**
 * The WORKDIR a path lies in, or undefined above that level.
 *   '/b/tmp/work/core2-64-poky-linux/zlib/1.3.1/temp' under '/b/tmp/work' → { key: 'core2-64-poky-linux/zlib/1.3.1', … }
 */
export function workdirOfPath(baseWorkdir: string, path: string): WorkdirId | undefined {
  const rel = relative(baseWorkdir, path);
  if (rel === '' || rel.startsWith('..')) return undefined;
  const [arch, pn, pv] = rel.split(sep);
  if (arch === undefined || pn === undefined || pv === undefined) return undefined;
  return { key: workdirKey(arch, pn, pv), arch, pn, pv };
}

/** A work-shared entry: `work-shared/<MACHINE>/kernel-source` → pn 'kernel-source'. */
export function workSharedId(rel: string): WorkdirId {
  const parts = rel.split(sep);
  const name = parts[parts.length - 1] ?? rel;
  return { key: `work-shared/${parts.join('/')}`, arch: 'work-shared', pn: name, pv: '' };
}

// Tasks only kernel recipes have (kernel.bbclass, kernel-yocto.bbclass); rm_work.bbclass adds
// every kernel recipe to RM_WORK_EXCLUDE by itself.
const KERNEL_TASKS = new Set([
  'do_shared_workdir',
  'do_kernel_configme',
  'do_kernel_metadata',
  'do_kernel_checkout',
  'do_kernel_configcheck',
  'do_kernel_version_sanity_check',
]);

export const isKernelTask = (task: string): boolean => KERNEL_TASKS.has(task);

/** The name guess for kernels seen before any kernel task: linux-yocto, linux-intel, … */
export function looksLikeKernel(pn: string): boolean {
  return /^linux-/.test(pn) && !/^linux-(libc-headers|firmware|dummy)/.test(pn) && !pn.endsWith('-native');
}

/** Native and cross recipes stop at do_populate_sysroot: they have no packaging tasks. */
export function isNativeLike(pn: string, arch: string): boolean {
  return (
    pn.endsWith('-native') ||
    pn.includes('-cross-') ||
    pn.includes('-crosssdk-') ||
    pn.startsWith('nativesdk-') ||
    /^[^-]+-linux$/.test(arch)
  );
}

const PACKAGE_WRITE = /^do_package_write_(ipk|rpm|deb)$/;

/**
 * Whether the tasks a recipe finished cover what do_build waits for (so do_rm_work is next):
 * an image's do_image_complete; a packaged recipe's package_write and package_qa; a native
 * one's do_populate_sysroot. Setscene runs count as the task.
 */
export function deliverablesDone(pn: string, arch: string, done: ReadonlySet<string>): boolean {
  if (done.has('do_image_complete')) return true;
  const packaged = [...done].some(
    (t) => t === 'do_package' || t === 'do_packagedata' || PACKAGE_WRITE.test(t),
  );
  if (packaged) return [...done].some((t) => PACKAGE_WRITE.test(t)) && done.has('do_package_qa');
  if (isNativeLike(pn, arch)) return done.has('do_populate_sysroot');
  return false;
}

/**
 * What a folder found on disk (not made by a task this watcher saw) holds, from its top-level
 * entry names and its `temp/log.task_order` text:
 *   ['temp'] → 'cleaned'; ['temp', 'packages-split'] after a do_rm_work → 'refilled'; else 'left'.
 */
export function classifyFound(
  entries: readonly string[],
  taskOrder: string,
): 'cleaned' | 'refilled' | 'left' {
  const rest = entries.filter((e) => e !== 'temp');
  if (rest.length === 0) return 'cleaned';
  // '20251130-142627.570460 do_rm_work (30150): log.do_rm_work.30150'
  const lines = taskOrder.trimEnd().split('\n');
  const rmAt = lines.findLastIndex((l) => / do_rm_work \(/.test(l));
  if (rmAt < 0) return 'left';
  // After do_rm_work only setscene restores ran: the cleaned folder grew again.
  return lines.slice(rmAt + 1).every((l) => /_setscene \(/.test(l)) ? 'refilled' : 'left';
}
