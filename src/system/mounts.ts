// /proc/self/mountinfo: which file system holds a path, with its type and options.
// Format (proc(5)): id parent major:minor root mount-point mount-options [optional…] - fstype source super-options
// Root, mount point and source escape blanks, newlines and backslashes as octal (`\040`).

import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { RambakeError } from '../errors.js';
import { parseTmpfsOptions, type TmpfsLimits } from './tmpfs-size.js';

export interface MountEntry {
  id: number;
  parentId: number;
  major: number;
  minor: number;
  /** The folder of the source file system that is mounted here (not `/` for bind mounts). */
  root: string;
  mountPoint: string;
  /** Per-mount options (`rw,nosuid,nodev,noexec,relatime`). */
  mountOptions: string[];
  /** Tagged fields before the `-` (`shared:1`, `master:2`). */
  optionalFields: string[];
  fstype: string;
  source: string;
  /** Per-superblock options (`rw,size=8388608k,nr_inodes=409600`). */
  superOptions: string[];
  /** Per-mount options then the super options not already present. */
  options: string[];
  /** For tmpfs: the size= and nr_inodes= caps. */
  tmpfs?: TmpfsLimits;
}

/** Decodes mountinfo's octal escapes: `/mnt/my\040disk` → `/mnt/my disk`. */
export function decodeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_all, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}

function splitOptions(text: string | undefined): string[] {
  return text ? text.split(',').filter((o) => o !== '') : [];
}

/** Parses one mountinfo line; `where` (file:line) names it in errors. */
export function parseMountinfoLine(line: string, where: string): MountEntry {
  // `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`
  const fields = line.split(' ');
  const dash = fields.indexOf('-', 6);
  const devMatch = /^(\d+):(\d+)$/.exec(fields[2] ?? '');
  if (dash < 0 || fields.length < dash + 3 || !devMatch) {
    throw new RambakeError(
      `${where}: not a mountinfo line: "${line}" (expected "id parent maj:min root point opts … - type source opts")`,
    );
  }
  const mountOptions = splitOptions(fields[5]);
  const superOptions = splitOptions(fields[dash + 3]);
  const options = [...mountOptions];
  for (const option of superOptions) if (!options.includes(option)) options.push(option);
  const fstype = fields[dash + 1]!;
  const entry: MountEntry = {
    id: Number(fields[0]),
    parentId: Number(fields[1]),
    major: Number(devMatch[1]),
    minor: Number(devMatch[2]),
    root: decodeMountField(fields[3]!),
    mountPoint: decodeMountField(fields[4]!),
    mountOptions,
    optionalFields: fields.slice(6, dash),
    fstype,
    source: decodeMountField(fields[dash + 2]!),
    superOptions,
    options,
  };
  if (fstype === 'tmpfs') entry.tmpfs = parseTmpfsOptions(superOptions);
  return entry;
}

export function parseMountinfo(text: string, source = '/proc/self/mountinfo'): MountEntry[] {
  const entries: MountEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    entries.push(parseMountinfoLine(line, `${source}:${i + 1}`));
  }
  return entries;
}

/** Is `mountPoint` the path itself or one of its ancestors, by whole components (`/tmp` ∌ `/tmpfoo`)? */
export function isUnderMount(mountPoint: string, absPath: string): boolean {
  if (mountPoint === '/') return true;
  return absPath === mountPoint || absPath.startsWith(`${mountPoint}/`);
}

/**
 * The mount holding `absPath` (absolute, symlinks already resolved): the longest mount point
 * that is a whole-component prefix. Among mounts stacked on one point, the last listed is on top.
 */
export function findMount(entries: readonly MountEntry[], absPath: string): MountEntry {
  const target = path.posix.normalize(absPath);
  let best: MountEntry | undefined;
  for (const entry of entries) {
    if (!isUnderMount(entry.mountPoint, target)) continue;
    if (!best || entry.mountPoint.length >= best.mountPoint.length) best = entry;
  }
  if (!best) throw new RambakeError(`no mount holds ${absPath} (mountinfo has no "/" entry)`);
  return best;
}

export const isNoexec = (entry: MountEntry): boolean => entry.mountOptions.includes('noexec');
export const isNosuid = (entry: MountEntry): boolean => entry.mountOptions.includes('nosuid');
export const isReadOnly = (entry: MountEntry): boolean =>
  entry.mountOptions.includes('ro') || entry.superOptions.includes('ro');

/**
 * Resolves symlinks in the longest existing ancestor of `p` and appends the rest, so a
 * TMPDIR that does not exist yet still maps to the mount it will be created on.
 */
export async function resolveExistingPath(p: string): Promise<string> {
  let current = path.resolve(p);
  const missing: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(current), ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = path.dirname(current);
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === current) throw error;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

export async function readMountinfo(file = '/proc/self/mountinfo'): Promise<MountEntry[]> {
  return parseMountinfo(await readFile(file, 'utf8'), file);
}

/** The mount that holds (or will hold) `p`. */
export async function readMountFor(p: string, file = '/proc/self/mountinfo'): Promise<MountEntry> {
  const [entries, resolved] = await Promise.all([readMountinfo(file), resolveExistingPath(p)]);
  return findMount(entries, resolved);
}
