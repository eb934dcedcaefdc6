// inotify limits and usage. The watcher spends one inotify watch per watched folder;
// max_user_watches caps them per user, max_user_instances caps inotify file descriptors.

import { readdir, readFile } from 'node:fs/promises';
import { RambakeError } from '../errors.js';

export interface InotifyLimits {
  maxUserWatches: number;
  maxUserInstances: number;
}

/** `/proc/sys/fs/inotify/max_user_watches` text, `"8192\n"` → 8192. */
export function parseInotifyLimit(text: string, source = 'inotify limit'): number {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) throw new RambakeError(`${source}: "${trimmed}" is not a number`);
  return Number(trimmed);
}

export async function readInotifyLimits(dir = '/proc/sys/fs/inotify'): Promise<InotifyLimits> {
  const read = async (name: string) =>
    parseInotifyLimit(await readFile(`${dir}/${name}`, 'utf8'), `${dir}/${name}`);
  const [maxUserWatches, maxUserInstances] = await Promise.all([
    read('max_user_watches'),
    read('max_user_instances'),
  ]);
  return { maxUserWatches, maxUserInstances };
}

/** Watches in one /proc/<pid>/fdinfo/<fd> text: one `inotify wd:…` line per watch. */
export function countInotifyLines(fdinfoText: string): number {
  // `inotify wd:1 ino:2 sdev:800001 mask:fce ignored_mask:0 fhandle-bytes:8 …` → one watch
  let count = 0;
  for (const line of fdinfoText.split('\n')) if (line.startsWith('inotify wd:')) count++;
  return count;
}

/** Total inotify watches held by a process (its own by default). */
export async function countInotifyWatches(pid: number | 'self' = 'self'): Promise<number> {
  const dir = `/proc/${pid}/fdinfo`;
  let total = 0;
  for (const fd of await readdir(dir)) {
    try {
      total += countInotifyLines(await readFile(`${dir}/${fd}`, 'utf8'));
    } catch {
      // the descriptor closed between readdir and read: it holds no watches now
    }
  }
  return total;
}
