// Writing a conf file so that a crash (kill -9, power loss) leaves the old file or the new one,
// never a mix; one backup per file; and a lock so two applies take turns.

import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import { UnsafeEditError } from '../errors.js';
import { insertBlock } from '../plan/managed-block.js';
import type { PlanScope } from '../plan/sizing-types.js';
import { syncDir, writeFileAtomic } from '../system/atomic-write.js';
import { readFileBounded, readText } from '../system/read-file.js';
import { parseApplyState } from './state-check.js';

export { syncDir, writeFileAtomic };

export const BACKUP_SUFFIX = '.rambake-bak';
export const LOCK_NAME = '.rambake.lock';

/** Deletes a file and makes the deletion durable. */
export async function removeFileDurably(path: string): Promise<void> {
  await fsp.rm(path, { force: true });
  await syncDir(dirname(path));
}

/**
 * `<file>.rambake-bak`, made on the first apply only (a later apply must not replace the
 * user's original with an already-managed version). Returns its path, or undefined if the file
 * does not exist.
 */
export async function backupOnce(path: string): Promise<{ path: string; made: boolean } | undefined> {
  const backup = path + BACKUP_SUFFIX;
  const text = await readFileBounded(path, 'conf');
  if (text === undefined) return undefined;
  if (await exists(backup)) return { path: backup, made: false };
  const mode = (await fsp.stat(path)).mode;
  await writeFileAtomic(backup, text, { mode });
  const copy = await readFileBounded(backup, 'conf');
  if (!copy?.equals(text)) throw new UnsafeEditError(`backup ${backup} differs from ${path}`);
  return { path: backup, made: true };
}

async function exists(path: string): Promise<boolean> {
  return fsp.access(path).then(
    () => true,
    () => false,
  );
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Lock {
  path: string;
  release(): Promise<void>;
}

/** How long apply and revert wait for each other: the holder may be asking `bitbake -e`. */
export const CONF_LOCK_WAIT_MS = 60_000;

/**
 * Takes `<dir>/.rambake.lock`. The lock appears whole with our pid in it (written to a temp
 * file, then hard-linked into place, which fails if the lock exists — O_EXCL semantics without
 * a window where it is empty). A lock of a dead pid is taken over; a live one is waited for.
 */
export async function acquireLock(
  dir: string,
  opts: { timeoutMs?: number; pollMs?: number } = {},
): Promise<Lock> {
  const lockPath = join(dir, LOCK_NAME);
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  const temp = join(dir, `${LOCK_NAME}.${process.pid}-${randomBytes(4).toString('hex')}`);
  await fsp.writeFile(temp, `${process.pid}\n`, { flag: 'wx' });
  try {
    for (;;) {
      try {
        await fsp.link(temp, lockPath);
        await removeStaleTemps(dir).catch(() => undefined);
        return { path: lockPath, release: () => releaseLock(lockPath) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await readLockPid(lockPath);
      if (holder !== undefined && !isAlive(holder)) {
        await takeOverStale(lockPath, holder);
        continue;
      }
      if (Date.now() > deadline) {
        throw new UnsafeEditError(`${lockPath} is held by pid ${holder ?? '?'}`, {
          hint: 'another rambake apply or revert is running; try again when it is done',
        });
      }
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 25));
    }
  } finally {
    await fsp.rm(temp, { force: true });
  }
}

/**
 * Temp files of writers that were killed (`.auto.conf.rambake-tmp-<pid>-<hex>`,
 * `.rambake.lock.<pid>-<hex>`): removed by the next lock holder once their pid is dead.
 */
export async function removeStaleTemps(dir: string): Promise<void> {
  for (const name of await fsp.readdir(dir)) {
    // `.auto.conf.rambake-tmp-4242-1a2b3c4d` → 4242
    const m = /(?:\.rambake-tmp-|^\.rambake\.lock\.(?:stale-)?)(\d+)-[0-9a-f]{8}$/.exec(name);
    if (m && Number(m[1]) !== process.pid && !isAlive(Number(m[1])))
      await fsp.rm(join(dir, name), { force: true });
  }
}

async function readLockPid(lockPath: string): Promise<number | undefined> {
  const text = await readText(lockPath, 'state').catch(() => undefined);
  // `12345\n` → 12345
  const m = text === undefined ? null : /^(\d+)\n?$/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * Moves a dead holder's lock aside. Two takers can race: the one whose rename finds the lock
 * changed (someone else already replaced it) puts it back if the slot is still free.
 */
async function takeOverStale(lockPath: string, deadPid: number): Promise<void> {
  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await fsp.rename(lockPath, aside);
  } catch {
    return; // someone else moved it first
  }
  const moved = await readLockPid(aside);
  if (moved !== deadPid) await fsp.link(aside, lockPath).catch(() => undefined);
  await fsp.rm(aside, { force: true });
}

async function releaseLock(lockPath: string): Promise<void> {
  if ((await readLockPid(lockPath)) === process.pid) await fsp.rm(lockPath, { force: true });
}

/** Runs `work` holding the lock of `dir`. */
export async function withLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const lock = await acquireLock(dir);
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

// ---------------------------------------------------------------------------------------------
// The managed block in a conf file. Text is handled as latin1 (one char per byte) so every byte
// of the user's file survives; the block's lines are UTF-8.

const toLatin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

export interface BlockWrite {
  file: string;
  before: string | undefined;
  after: string;
  changed: boolean;
  backup?: string;
  /** This write made the backup (an earlier apply's is left as it was). */
  backupMade?: boolean;
}

export interface BlockWriteOptions {
  /** Overwrite a hand-edited block, or one with damaged markers. */
  force?: boolean;
  /** state.json names this file: a lone begin or end marker there is a damaged block of ours. */
  expectBlock?: boolean;
}

/** Reads the file and computes its new text (latin1 strings: one char per byte). */
export async function planBlockWrite(
  file: string,
  lines: readonly string[],
  opts: BlockWriteOptions = {},
): Promise<BlockWrite> {
  const before = await readText(file, 'conf', 'latin1');
  const edit = insertBlock(before ?? '', lines.map(toLatin1), opts);
  return { file, before, after: edit.text, changed: edit.changed || before === undefined };
}

/** Puts the block into `file` under the conf folder's lock: one backup, atomic write. */
export async function writeManagedBlock(
  file: string,
  lines: readonly string[],
  opts: BlockWriteOptions = {},
): Promise<BlockWrite> {
  const lock = await acquireLock(dirname(file));
  try {
    return await commitBlockWrite(file, lines, opts);
  } finally {
    await lock.release();
  }
}

/** Under the lock: read again (another apply may have written), back up once, write atomically. */
export async function commitBlockWrite(
  file: string,
  lines: readonly string[],
  opts: BlockWriteOptions = {},
): Promise<BlockWrite> {
  const write = await planBlockWrite(file, lines, opts);
  if (!write.changed) return write;
  const backup = write.before === undefined ? undefined : await backupOnce(file);
  await writeFileAtomic(file, Buffer.from(write.after, 'latin1'), { mode: 0o644 });
  return { ...write, ...(backup ? { backup: backup.path, backupMade: backup.made } : {}) };
}

// ---------------------------------------------------------------------------------------------
// What `rambake apply` did, so that `rambake revert` undoes exactly that and nothing more.
// Kept in `${TOPDIR}/rambake/state.json`: outside TMPDIR, which may be the tmpfs itself.

export const STATE_SCHEMA_VERSION = 1;

export interface ApplyState {
  schemaVersion: number;
  topdir: string;
  scope: PlanScope;
  /** TMPDIR before apply: if it stays on disk, revert reports its size (never deletes it). */
  previousTmpdir: string;
  conf?: {
    file: string;
    /** The file was there before the first apply (false: revert deletes it if nothing else is left). */
    existed: boolean;
    backup?: string;
  };
  mount?: {
    path: string;
    source: string;
    /** rambake made the folder: revert removes it, if empty. */
    createdFolder: boolean;
  };
}

export const statePath = (topdir: string): string => join(topdir, 'rambake', 'state.json');

export async function readApplyState(topdir: string): Promise<ApplyState | undefined> {
  const file = statePath(topdir);
  const text = await readText(file, 'state');
  if (text === undefined) return undefined;
  return parseApplyState(text, file);
}

export async function writeApplyState(state: ApplyState): Promise<string> {
  const file = statePath(state.topdir);
  const folder = join(state.topdir, 'rambake');
  if ((await fsp.mkdir(folder, { recursive: true })) !== undefined) {
    const top = await fsp.stat(state.topdir);
    await fsp.chown(folder, top.uid, top.gid).catch(() => undefined);
  }
  await writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
  return file;
}

export async function removeApplyState(topdir: string): Promise<void> {
  await fsp.rm(statePath(topdir), { force: true });
  // rambake's own folder goes too when nothing else (recorded runs) is left in it.
  await fsp.rmdir(join(topdir, 'rambake')).catch(() => undefined);
}
