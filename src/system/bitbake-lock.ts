// Is a BitBake server really holding TOPDIR/bitbake.lock? The file's existence says nothing:
// BitBake (lib/bb/utils.py lockfile) takes the lock with flock(LOCK_EX|LOCK_NB) on
// TOPDIR/bitbake.lock, the server writes "PID" (or "PID host:port") into it, and a server that
// exits normally removes the file while it still holds the lock. A server that exits any other
// way (killed, or "Lockfile directory gone, exiting" when it cannot see bitbake.lock from its
// working folder) leaves the file behind with a dead PID and no lock: a stale file, which the
// next BitBake takes over (its flock succeeds) and removes when that server exits.
//
// Evidence, and which wins:
//   1. The kernel's lock table (/proc/locks): any lock on the file's inode means held, whatever
//      PID the file names (the client takes the flock before the server writes its own PID,
//      so for a moment the file may still name a dead server; /proc/locks itself names the
//      process that called flock, which is the client, not the server).
//   2. The PID in the file: alive and a BitBake process (/proc/<pid>/cmdline names bitbake or
//      bitbake-server) means held too, even with no lock listed: a server between releasing
//      its flock and removing the file, or a lock the table cannot show us.
// So "held" when either says so; "stale" only when neither does. When neither /proc/locks nor
// the process's command line can be read (no procfs), a live PID counts as held.

import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { RefusedFileError, readTextSync } from './read-file.js';

export type LockStateName = 'none' | 'held' | 'stale';

export interface LockState {
  state: LockStateName;
  /** The server's PID (from the file; from /proc/locks when the file names no live process). */
  pid?: number;
  /** What the PID runs (`bitbake-server`, `bitbake`, `sleep`, …), when known. */
  holder?: string;
  /** One phrase for messages: "held by pid 4242 (bitbake-server)", "pid 4242 gone". */
  detail: string;
  /**
   * Stale only: whether TOPDIR's owner can open the file for writing, as BitBake must to take it
   * over ("Unable to acquire lock 'Permission denied'" otherwise, e.g. a stale lock of root's).
   */
  ownerCanOpen?: boolean;
}

/** One lock of /proc/locks. */
export interface ProcLock {
  /** FLOCK, POSIX, OFDLCK (LEASE and DELEG lines are not locks and are left out). */
  kind: string;
  /** The process that took it, as the kernel recorded it (-1 for OFD locks). */
  pid: number;
  major: number;
  minor: number;
  inode: bigint;
}

/**
 * The held locks of /proc/locks; waiters ("->") and leases are left out. Device numbers are
 * hex, the inode decimal:
 *   1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF  →  FLOCK, pid 1234, dev 8:1, inode 5678
 */
export function parseProcLocks(text: string): ProcLock[] {
  const out: ProcLock[] = [];
  const re = /^\d+:\s+(->\s+)?(\w+)\s+\w+\s+\w+\s+(-?\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/i;
  for (const line of text.split('\n')) {
    const m = re.exec(line);
    if (!m || m[1] !== undefined) continue;
    const kind = m[2]!.toUpperCase();
    if (kind !== 'FLOCK' && kind !== 'POSIX' && kind !== 'OFDLCK') continue;
    out.push({
      kind,
      pid: Number(m[3]),
      major: Number.parseInt(m[4]!, 16),
      minor: Number.parseInt(m[5]!, 16),
      inode: BigInt(m[6]!),
    });
  }
  return out;
}

/** Linux's st_dev encoding (glibc gnu_dev_major / gnu_dev_minor). */
export function splitDev(dev: bigint): { major: number; minor: number } {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return { major: Number(major), minor: Number(minor) };
}

/**
 * The locks on one file: same device and inode; else, when none matches exactly, the same
 * inode on any device (btrfs subvolumes and overlayfs report another st_dev than the one
 * /proc/locks prints, and calling a held lock free is the costly mistake).
 */
export function locksOnFile(locks: ProcLock[], dev: bigint, inode: bigint): ProcLock[] {
  const { major, minor } = splitDev(dev);
  const sameInode = locks.filter((l) => l.inode === inode);
  const exact = sameInode.filter((l) => l.major === major && l.minor === minor);
  return exact.length > 0 ? exact : sameInode;
}

/** `python3 /x/bitbake/bin/bitbake-server decafbad 3 …` → "bitbake-server"; else undefined. */
export function bitbakeProgram(argv: readonly string[]): string | undefined {
  for (const arg of argv.slice(0, 2)) {
    const name = basename(arg);
    if (name === 'bitbake' || name === 'bitbake-server') return name;
  }
  return undefined;
}

/** The PID at the start of the file's first line ("4242" or "4242 localhost:36001"). */
export function parseLockPid(text: string): number | undefined {
  const m = /^\s*(\d+)(?:\s|$)/.exec(text);
  const pid = m ? Number(m[1]) : Number.NaN;
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** What was found on the host, for decideLockState. */
export interface LockEvidence {
  exists: boolean;
  /** The file's text. */
  text?: string;
  /** Locks on the file's inode; undefined when /proc/locks cannot be read. */
  locks?: ProcLock[];
  /** The file's PID: alive or not, and its argv (undefined: unreadable; [] for a zombie). */
  process?: { alive: boolean; argv?: string[] };
  ownerCanOpen?: boolean;
}

/** The pure decision (see the evidence order at the top of this file). */
export function decideLockState(e: LockEvidence): LockState {
  if (!e.exists) return { state: 'none', detail: 'no bitbake.lock' };
  const filePid = parseLockPid(e.text ?? '');
  const alive = e.process?.alive === true;
  const argv = alive ? e.process?.argv : undefined;
  const program = argv ? bitbakeProgram(argv) : undefined;
  const holder = program ?? (argv?.[0] ? basename(argv[0]) : undefined);
  const named = (pid: number) => `pid ${pid}${holder ? ` (${holder})` : ''}`;

  const lock = e.locks?.[0];
  if (lock) {
    // Name the server from the file when it is a live BitBake (a reused PID is not); else the
    // process that took the flock.
    if (filePid !== undefined && alive && (program !== undefined || argv === undefined)) {
      return {
        state: 'held',
        pid: filePid,
        ...(holder ? { holder } : {}),
        detail: `held by ${named(filePid)}`,
      };
    }
    if (lock.pid > 0)
      return { state: 'held', pid: lock.pid, detail: `held by pid ${lock.pid} (${lock.kind})` };
    return { state: 'held', detail: `held (${lock.kind})` };
  }
  // With nothing to go on (no /proc/locks, no readable command line), a live PID counts.
  const unknown = e.locks === undefined && argv === undefined;
  if (filePid !== undefined && alive && (program !== undefined || unknown)) {
    return {
      state: 'held',
      pid: filePid,
      ...(holder ? { holder } : {}),
      detail: `held by ${named(filePid)}`,
    };
  }
  // Without /proc/locks, a file that names no PID yet may be a client that has just locked it.
  if (e.locks === undefined && filePid === undefined)
    return { state: 'held', detail: 'held (no PID in it yet)' };
  return {
    state: 'stale',
    ...(filePid === undefined ? {} : { pid: filePid }),
    ...(holder ? { holder } : {}),
    detail: staleReason(filePid, alive, argv, holder),
    ...(e.ownerCanOpen === undefined ? {} : { ownerCanOpen: e.ownerCanOpen }),
  };
}

function staleReason(
  pid: number | undefined,
  alive: boolean,
  argv: string[] | undefined,
  holder?: string,
): string {
  if (pid === undefined) return 'no PID in it, no lock on it';
  if (!alive) return `pid ${pid} gone`;
  if (argv === undefined) return `pid ${pid} does not lock it`;
  if (argv.length === 0) return `pid ${pid} exited`;
  return `pid ${pid} is ${holder}, not BitBake`;
}

// ---------------------------------------------------------------- reading the host

const LOCK_NAME = 'bitbake.lock';

/** The state of TOPDIR/bitbake.lock (a stat, a read of /proc/locks, one /proc/<pid> look-up). */
export function readLockState(topdir: string): LockState {
  return decideLockState(gatherEvidence(topdir, true));
}

/**
 * The cheap question for pollers (the watcher, every LOCK_CHECK_MS of a build): is it held?
 * A live BitBake named in the file means held whatever the table says (decideLockState), so it
 * is asked first: reading /proc/locks took ~8 ms on a host with many locks. Once a live BitBake
 * was seen named in the file, later asks cost an lstat of the file and a kill(pid, 0) while the
 * file is unchanged (inode, size, mtime) and the PID alive: the file read and the PID's command
 * line had been 0.7 ms a look, 8 % of the watcher's CPU in a build at real pace (12-07).
 */
export class LockPoller {
  private known: { ino: number; size: number; mtimeMs: number; pid: number } | undefined;

  constructor(private readonly topdir: string) {}

  held(): boolean {
    const file = join(this.topdir, LOCK_NAME);
    const st = lstatSync(file, { throwIfNoEntry: false });
    const k = this.known;
    if (st && k && st.ino === k.ino && st.size === k.size && st.mtimeMs === k.mtimeMs && isAlive(k.pid))
      return true;
    this.known = undefined;
    // The stat comes before the read: a file changed in between differs from it at the next ask.
    const pid = parseLockPid(readText(file, false));
    const named = pid === undefined ? undefined : readProcess(pid);
    if (pid !== undefined && named?.alive && named.argv && bitbakeProgram(named.argv) !== undefined) {
      if (st) this.known = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, pid };
      return true;
    }
    return decideLockState(gatherEvidence(this.topdir, false, false)).state === 'held';
  }
}

/** One question, with nothing remembered (see LockPoller). */
export const lockHeld = (topdir: string): boolean => new LockPoller(topdir).held();

/** Polls until no server holds the lock (none or stale) or the time is up; the last state. */
export async function waitForLockRelease(
  topdir: string,
  timeoutMs: number,
  pollMs = 100,
): Promise<LockState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = readLockState(topdir);
    if (state.state !== 'held' || Date.now() >= deadline) return state;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * How long a BitBake server may outlive its command: measured 0.95 s after `bitbake -e` on
 * BitBake 2.15.2 (the server shuts its parser and hash server down, then removes the lock).
 */
export const SERVER_LINGER_MS = 3_000;

/**
 * The lock state, once a server that only outlives its command has let go: when the lock is
 * held by `bitbake-server` and no BitBake command works in TOPDIR any more, this waits up to
 * `lingerMs` for it to go. Without the wait, `rambake status` or `apply` right after a
 * `bitbake -e` took the lingering server for a running build (not asking BitBake; refusing to
 * apply). A command still running (a build's `bitbake` client), any other holder, or a server
 * kept alive on purpose (BB_SERVER_TIMEOUT) is reported held, the last after the wait.
 */
export async function settledLockState(topdir: string, lingerMs = SERVER_LINGER_MS): Promise<LockState> {
  const state = readLockState(topdir);
  if (state.state !== 'held' || state.holder !== 'bitbake-server' || bitbakeCommands(topdir).length > 0)
    return state;
  return waitForLockRelease(topdir, lingerMs);
}

/**
 * PIDs of BitBake commands (`bitbake …`, the client; not its server) whose working folder is
 * TOPDIR, from /proc. A process whose folder cannot be read (another user's) counts: it may be one.
 */
export function bitbakeCommands(topdir: string): number[] {
  let pids: string[];
  let top: string;
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
    top = realpathSync(topdir);
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of pids) {
    const argv = readProcess(Number(name)).argv;
    if (argv === undefined || bitbakeProgram(argv) !== 'bitbake') continue;
    let cwd: string | undefined;
    try {
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // it has just ended
    }
    if (cwd === undefined || cwd === top) found.push(Number(name));
  }
  return found;
}

function gatherEvidence(topdir: string, full: boolean, strict = true): LockEvidence {
  const file = join(topdir, LOCK_NAME);
  const st = statSync(file, { bigint: true, throwIfNoEntry: false });
  if (!st) return { exists: false };
  const text = readText(file, strict);
  const table = readProcLocks();
  const locks = table && locksOnFile(table, st.dev, st.ino);
  if (!full && locks && locks.length > 0) return { exists: true, text, locks };
  const pid = parseLockPid(text);
  return {
    exists: true,
    text,
    ...(locks ? { locks } : {}),
    ...(pid === undefined ? {} : { process: readProcess(pid) }),
    ...(full ? { ownerCanOpen: ownerCanOpen(st, topdir) } : {}),
  };
}

/**
 * The file's text, through the bounded reader: TOPDIR is user-writable, and a FIFO there would
 * block the read for ever (status, doctor), /dev/zero never end. Such a file is refused with
 * one line (`strict`), or, for a poller that must not stop (the watcher), read as empty.
 */
function readText(file: string, strict: boolean): string {
  try {
    return readTextSync(file, 'state') ?? '';
  } catch (err) {
    if (strict && err instanceof RefusedFileError) throw err;
    return ''; // unreadable: decided by the lock table alone
  }
}

function readProcLocks(): ProcLock[] | undefined {
  try {
    return parseProcLocks(readFileSync('/proc/locks', 'utf8'));
  } catch {
    return undefined; // no procfs (FreeBSD without linprocfs, a locked-down container)
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readProcess(pid: number): { alive: boolean; argv?: string[] } {
  if (!isAlive(pid)) return { alive: false };
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    // NUL-separated, NUL-terminated; empty for a zombie.
    return { alive: true, argv: raw === '' ? [] : raw.replace(/\0$/, '').split('\0') };
  } catch {
    return { alive: true };
  }
}

/** Can TOPDIR's owner open the file for writing (the owner write bit, or group/other)? */
function ownerCanOpen(st: { uid: bigint; gid: bigint; mode: bigint }, topdir: string): boolean {
  const top = statSync(topdir, { bigint: true, throwIfNoEntry: false });
  if (!top || top.uid === 0n) return true;
  if (top.uid === st.uid) return (st.mode & 0o200n) !== 0n;
  if (top.gid === st.gid && (st.mode & 0o020n) !== 0n) return true;
  return (st.mode & 0o002n) !== 0n;
}
