// Moving an old DEPLOY_DIR aside (the deploy-outlives-tmpdir fix): renamed beside itself under a
// dated name, never deleted, never merged into another folder.

import { lstat, rename } from 'node:fs/promises';

/** `2026-12-03T14:32:05Z` → `20261203-143205` (UTC, so two machines name the same moment alike). */
export function dateStamp(now: Date): string {
  const iso = now.toISOString(); // 2026-12-03T14:32:05.123Z
  return `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}`;
}

/**
 * The first free name of `<path>.old-<date>`, `<path>.old-<date>-2`, …: rename(2) would put a
 * folder in place of an empty folder of the same name, so an existing name is never used.
 */
export async function asideName(path: string, now: Date): Promise<string> {
  const base = `${path}.old-${dateStamp(now)}`;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await exists(candidate))) return candidate;
  }
}

/** Renames `path` aside (same folder, so one atomic rename on one file system); returns the new path. */
export async function moveAside(path: string, now: Date): Promise<string> {
  const to = await asideName(path, now);
  await rename(path, to);
  return to;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}
