// Mounting and unmounting the build's tmpfs (root only), with the checks that keep data safe:
// never over a folder that holds files, never twice on one point, never while a process uses it.
// Commands go to execa as argv (no shell), so any path is passed through unchanged.

import { promises as fsp } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UnsafeMountError } from '../errors.js';
import { statFs, TMPFS_MAGIC } from './fsstat.js';
import { isNoexec, type MountEntry, readMountinfo } from './mounts.js';

export interface TmpfsRequest {
  source: string;
  path: string;
  options: readonly string[];
  /** The mount argv (built by plan/mount-commands.ts). */
  argv: readonly string[];
  /** size= in bytes, checked against statfs afterwards. */
  sizeBytes: number;
  /** nr_inodes=, checked against statfs f_files afterwards. */
  nrInodes?: number;
}

export interface MountResult {
  path: string;
  source: string;
  /** rambake made the folder (revert removes it again, when empty). */
  createdFolder: boolean;
  entry: MountEntry;
}

/** The mount whose mount point is exactly `path` (the top one when stacked). */
export function mountAt(entries: readonly MountEntry[], path: string): MountEntry | undefined {
  let found: MountEntry | undefined;
  for (const e of entries) if (e.mountPoint === path) found = e;
  return found;
}

/**
 * The mount point must be an empty folder that is not already a mount point: mounting over
 * files hides them (a build would then miss them), and stacking mounts confuses revert.
 * Returns whether the folder is missing (to be made).
 */
export async function checkMountPoint(
  path: string,
  entries: readonly MountEntry[],
): Promise<{ missing: boolean }> {
  const stat = await fsp.lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!stat) return { missing: true };
  if (!stat.isDirectory())
    throw new UnsafeMountError(`${path} exists and is not a folder: not mounting there`);
  const real = await fsp.realpath(path);
  const existing = mountAt(entries, real);
  if (existing) {
    throw new UnsafeMountError(`${path} is already a mount point (${existing.fstype} ${existing.source})`, {
      hint: 'unmount it first, or choose another --path',
    });
  }
  const names = await fsp.readdir(path);
  if (names.length > 0) {
    throw new UnsafeMountError(
      `${path} is not empty (${names.length} entries, e.g. ${names[0]}): not mounting over it`,
      {
        hint: 'mounting would hide those files; move them away or choose another --path',
      },
    );
  }
  return { missing: false };
}

/** Mounts the tmpfs and checks through mountinfo and statfs that the kernel did what was asked. */
export async function mountTmpfs(req: TmpfsRequest): Promise<MountResult> {
  const path = resolve(req.path);
  const { missing } = await checkMountPoint(path, await readMountinfo());
  if (missing) await fsp.mkdir(path, { recursive: true, mode: 0o755 });
  const [cmd, ...args] = req.argv;
  try {
    const { execa } = await import('execa'); // only when mounting: status and doctor never pay for it
    await execa(cmd!, args, { stdin: 'ignore' });
  } catch (error) {
    if (missing) await fsp.rmdir(path).catch(() => undefined);
    throw new UnsafeMountError(
      `mount of ${path} failed: ${(error as { stderr?: string }).stderr || String(error)}`,
      {
        cause: error,
      },
    );
  }
  const entry = await verifyTmpfs(path, req.source, req.sizeBytes, req.nrInodes);
  return { path, source: req.source, createdFolder: missing, entry };
}

/** mountinfo shows our tmpfs (type, source, no noexec) at `path`, and statfs its size. */
export async function verifyTmpfs(
  path: string,
  source: string,
  sizeBytes: number,
  nrInodes?: number,
): Promise<MountEntry> {
  const entry = mountAt(await readMountinfo(), await fsp.realpath(path));
  if (entry?.fstype !== 'tmpfs' || entry.source !== source) {
    throw new UnsafeMountError(
      `after mounting, ${path} is ${entry ? `${entry.fstype} ${entry.source}` : 'not a mount point'} (expected tmpfs ${source})`,
    );
  }
  if (isNoexec(entry))
    throw new UnsafeMountError(`${path} is mounted noexec: BitBake cannot run native tools there`);
  const fs = await statFs(path);
  // The kernel rounds size= up to whole pages.
  if (fs.fsType !== TMPFS_MAGIC || Math.abs(fs.totalBytes - sizeBytes) > fs.blockSize) {
    throw new UnsafeMountError(`${path}: statfs reports ${fs.totalBytes} bytes, expected ${sizeBytes}`);
  }
  if (nrInodes !== undefined && fs.totalInodes !== nrInodes) {
    throw new UnsafeMountError(`${path}: statfs reports ${fs.totalInodes} inodes, expected ${nrInodes}`);
  }
  return entry;
}

export interface Holder {
  pid: number;
  command: string;
  /** What points into the mount: `cwd`, `root`, `exe`, an open file's path or a mapped file's. */
  what: string;
}

/**
 * The device number of a `maps` line's `dev` field (hex `major:minor`), encoded as glibc's
 * makedev and so as Node's `stat().dev`. Example: '00:2d' → 45; '103:02' → 0x10302 (66306).
 */
export function mapsDev(field: string): number | undefined {
  const m = /^([0-9a-f]+):([0-9a-f]+)$/i.exec(field);
  if (!m) return undefined;
  const major = Number.parseInt(m[1]!, 16);
  const minor = Number.parseInt(m[2]!, 16);
  return (
    (major & 0xfff) * 0x100 + (minor & 0xff) + (minor & 0xfff00) * 0x1000 + (major & 0xfffff000) * 2 ** 32
  );
}

/** The paths (and devices) of file-backed mappings in a `/proc/<pid>/maps` text. */
// Example line: '7f1c…-7f1c… r-xp 00000000 00:2d 1234   /mnt/tmp/bin/tool' → dev '00:2d', path '/mnt/tmp/bin/tool'.
export function parseMaps(text: string): { dev: string; inode: string; path: string }[] {
  const out: { dev: string; inode: string; path: string }[] = [];
  for (const line of text.split('\n')) {
    const m = /^\S+\s+\S+\s+\S+\s+(\S+)\s+(\d+)\s+(\/.*)$/.exec(line);
    if (m && m[2] !== '0') out.push({ dev: m[1]!, inode: m[2]!, path: m[3]! });
  }
  return out;
}

/**
 * Processes that use the file system mounted at `path`, as `fuser -m` finds them: by open
 * files, working folder, root folder, executable and memory-mapped files (a tool run from the
 * tmpfs holds it busy with no open fd and no cwd there). A link counts when it stats to the
 * mount's device, or (for a deleted file) when its path is under the mount.
 */
export async function findHolders(path: string, proc = '/proc'): Promise<Holder[]> {
  const root = path.endsWith('/') ? path : `${path}/`;
  const under = (p: string) => {
    const clean = p.replace(/ \(deleted\)$/, '');
    return clean === path || clean.startsWith(root);
  };
  // Devices are compared only when `path` is a mount's root (its device differs from its
  // parent's): for a plain folder, everything else on the disk would match.
  const [own, parent] = await Promise.all(
    [fsp.stat(path), fsp.stat(dirname(path))].map((p) => p.catch(() => undefined)),
  );
  const dev = own !== undefined && parent !== undefined && own.dev !== parent.dev ? own.dev : undefined;
  const onMount = async (link: string): Promise<string | undefined> => {
    const target = await fsp.readlink(link).catch(() => undefined);
    if (target === undefined) return undefined;
    if (under(target)) return target;
    const st = await fsp.stat(link).catch(() => undefined);
    return st !== undefined && dev !== undefined && st.dev === dev && target.startsWith('/')
      ? target
      : undefined;
  };
  const holders: Holder[] = [];
  const pids = (await fsp.readdir(proc)).filter((n) => /^\d+$/.test(n));
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    const hits: string[] = [];
    for (const name of ['cwd', 'root', 'exe'] as const) {
      if ((await onMount(join(proc, pid, name))) !== undefined) hits.push(name);
    }
    const fds = await fsp.readdir(join(proc, pid, 'fd')).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await onMount(join(proc, pid, 'fd', fd));
      if (target !== undefined) hits.push(target);
    }
    // The kernel's own file: bounded by the process's mappings, read directly (not a build file).
    const maps = await fsp.readFile(join(proc, pid, 'maps'), 'utf8').catch(() => '');
    for (const m of parseMaps(maps)) {
      if (under(m.path) || (dev !== undefined && mapsDev(m.dev) === dev)) {
        hits.push(`mapped ${m.path}`);
        break;
      }
    }
    if (hits.length === 0) continue;
    const command = await fsp.readFile(join(proc, pid, 'comm'), 'utf8').then(
      (t) => t.trim(),
      () => '?',
    );
    holders.push({ pid: Number(pid), command, what: hits[0]! });
  }
  return holders;
}

/** Mounts stacked under `path` (they make its umount fail "target is busy"). */
export function submountsOf(entries: readonly MountEntry[], path: string): MountEntry[] {
  const root = path.endsWith('/') ? path : `${path}/`;
  return entries.filter((e) => e.mountPoint.startsWith(root));
}

/** Unmounts `path` (argv through execa) and checks that it is gone. */
export async function unmountTmpfs(path: string, argv: readonly string[]): Promise<void> {
  const [cmd, ...args] = argv;
  try {
    const { execa } = await import('execa'); // only when mounting: status and doctor never pay for it
    await execa(cmd!, args, { stdin: 'ignore' });
  } catch (error) {
    throw new UnsafeMountError(
      `umount of ${path} failed: ${(error as { stderr?: string }).stderr || String(error)}`,
      {
        cause: error,
      },
    );
  }
  const left = mountAt(await readMountinfo(), path);
  if (left?.fstype === 'tmpfs' && left.source.startsWith('rambake-')) {
    throw new UnsafeMountError(`${path} is still mounted after umount`);
  }
}
