import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { checkHazards } from '../../src/doctor/hazards.js';
import {
  bitbakeCommands,
  bitbakeProgram,
  decideLockState,
  LockPoller,
  lockHeld,
  locksOnFile,
  parseLockPid,
  parseProcLocks,
  readLockState,
  settledLockState,
  splitDev,
  waitForLockRelease,
} from '../../src/system/bitbake-lock.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { tempDir } from '../helpers/exec.js';
import { GiB, makeBuildDir, makeFacts, TOPDIR } from '../plan/fixture.js';

const cleanups = cleanupsAfterEach();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('/proc/locks', () => {
  it('reads pid, hex device and inode of each held lock', () => {
    const text = [
      '1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF',
      '2: POSIX  ADVISORY  READ 29936 fe:00:2148844 128 128',
      '3: OFDLCK ADVISORY  WRITE -1 00:2d:18446744073709551 0 EOF',
      '4: FLOCK  ADVISORY  WRITE 30523 103:0a:2146443 0 EOF',
      '',
    ].join('\n');
    expect(parseProcLocks(text)).toEqual([
      { kind: 'FLOCK', pid: 1234, major: 8, minor: 1, inode: 5678n },
      { kind: 'POSIX', pid: 29936, major: 254, minor: 0, inode: 2148844n },
      { kind: 'OFDLCK', pid: -1, major: 0, minor: 45, inode: 18446744073709551n },
      { kind: 'FLOCK', pid: 30523, major: 259, minor: 10, inode: 2146443n },
    ]);
  });

  it('leaves out waiters, leases and delegations: they hold nothing', () => {
    const text = [
      '1: FLOCK  ADVISORY  WRITE 30613 fe:00:2201096 0 EOF',
      '1: -> FLOCK  ADVISORY  WRITE 30700 fe:00:2201096 0 EOF',
      '2: LEASE  ACTIVE    READ 812 00:1f:99 0 EOF',
      '3: DELEG  ACTIVE    READ 0 00:1f:98 0 EOF',
      'garbage',
    ].join('\n');
    expect(parseProcLocks(text).map((l) => l.pid)).toEqual([30613]);
  });

  it("splits st_dev as glibc's major()/minor() do", () => {
    expect(splitDev(0xfe00n)).toEqual({ major: 254, minor: 0 });
    expect(splitDev(0x10303n)).toEqual({ major: 259, minor: 3 });
    // makedev(8, 300): the minor's high bits sit above bit 20.
    expect(splitDev((8n << 8n) | (300n & 0xffn) | ((300n & ~0xffn) << 12n))).toEqual({
      major: 8,
      minor: 300,
    });
  });

  it('matches a file by device and inode; by inode alone when no device matches', () => {
    const locks = parseProcLocks(
      ['1: FLOCK  ADVISORY  WRITE 10 fe:00:77 0 EOF', '2: FLOCK  ADVISORY  WRITE 11 00:2d:77 0 EOF'].join(
        '\n',
      ),
    );
    expect(locksOnFile(locks, 0xfe00n, 77n).map((l) => l.pid)).toEqual([10]);
    expect(locksOnFile(locks, 0x2dn, 77n).map((l) => l.pid)).toEqual([11]);
    expect(locksOnFile(locks, 0x31n, 77n).map((l) => l.pid)).toEqual([10, 11]);
    expect(locksOnFile(locks, 0xfe00n, 78n)).toEqual([]);
  });
});

describe('the lock file', () => {
  it('reads the PID with or without host:port', () => {
    expect(parseLockPid('4242\n')).toBe(4242);
    expect(parseLockPid('4242 localhost:36001\n')).toBe(4242);
    expect(parseLockPid('')).toBeUndefined();
    expect(parseLockPid('x\n')).toBeUndefined();
  });

  it('knows a BitBake process by its command line', () => {
    expect(bitbakeProgram(['python3', '/p/bitbake/bin/bitbake-server', 'decafbad', '3'])).toBe(
      'bitbake-server',
    );
    expect(bitbakeProgram(['/usr/bin/python3', '/p/bitbake/bin/bitbake', '-g', 'x'])).toBe('bitbake');
    expect(bitbakeProgram(['/p/bin/bitbake', 'core-image-minimal'])).toBe('bitbake');
    expect(bitbakeProgram(['sleep', '30'])).toBeUndefined();
    expect(bitbakeProgram(['vim', 'bitbake.lock', 'bitbake'])).toBeUndefined();
  });
});

describe('deciding held, stale or none', () => {
  const flock = { kind: 'FLOCK', pid: 900, major: 254, minor: 0, inode: 5n };
  const server = { alive: true, argv: ['python3', '/b/bin/bitbake-server', 'decafbad'] };

  it('no file: none', () => {
    expect(decideLockState({ exists: false }).state).toBe('none');
  });

  it('a lock on the inode wins over a dead PID in the file (a new client, old contents)', () => {
    const s = decideLockState({ exists: true, text: '4242\n', locks: [flock], process: { alive: false } });
    expect(s).toEqual({ state: 'held', pid: 900, detail: 'held by pid 900 (FLOCK)' });
  });

  it('names the server from the file when it is alive', () => {
    const s = decideLockState({ exists: true, text: '4242\n', locks: [flock], process: server });
    expect(s).toEqual({
      state: 'held',
      pid: 4242,
      holder: 'bitbake-server',
      detail: 'held by pid 4242 (bitbake-server)',
    });
  });

  it('a lock with a reused PID in the file names the process that took the lock', () => {
    const sleeper = { alive: true, argv: ['sleep', '30'] };
    expect(decideLockState({ exists: true, text: '4242\n', locks: [flock], process: sleeper })).toEqual({
      state: 'held',
      pid: 900,
      detail: 'held by pid 900 (FLOCK)',
    });
  });

  it('a live BitBake PID counts without a listed lock (a server removing its file)', () => {
    expect(decideLockState({ exists: true, text: '4242\n', locks: [], process: server }).state).toBe('held');
  });

  it('stale: PID gone, PID of another program, zombie, or no PID and no lock', () => {
    const stale = (text: string, process?: { alive: boolean; argv?: string[] }) =>
      decideLockState({ exists: true, text, locks: [], ...(process ? { process } : {}), ownerCanOpen: true });
    expect(stale('4242\n', { alive: false })).toEqual({
      state: 'stale',
      pid: 4242,
      detail: 'pid 4242 gone',
      ownerCanOpen: true,
    });
    expect(stale('4242\n', { alive: true, argv: ['/usr/bin/sleep', '30'] }).detail).toBe(
      'pid 4242 is sleep, not BitBake',
    );
    expect(stale('4242\n', { alive: true, argv: [] }).detail).toBe('pid 4242 exited');
    expect(stale('4242\n', { alive: true }).detail).toBe('pid 4242 does not lock it');
    expect(stale('').detail).toBe('no PID in it, no lock on it');
  });

  it('without /proc/locks: a live PID, or a file with no PID yet, counts as held', () => {
    expect(decideLockState({ exists: true, text: '4242\n', process: { alive: true } }).state).toBe('held');
    expect(decideLockState({ exists: true, text: '' }).state).toBe('held');
    expect(decideLockState({ exists: true, text: '4242\n', process: { alive: false } }).state).toBe('stale');
  });
});

describe.runIf(process.platform === 'linux')('on this host', () => {
  function buildDir(): string {
    const t = tempDir('rambake-lock-');
    cleanups.push(t.cleanup);
    return t.path;
  }

  /** A PID that surely belongs to no process: a child that has exited. */
  async function deadPid(): Promise<number> {
    const p = execa('true');
    await p;
    return p.pid ?? 999_999;
  }

  it('none without the file', () => {
    expect(readLockState(buildDir())).toEqual({ state: 'none', detail: 'no bitbake.lock' });
  });

  it('a real flock (flock(1) from util-linux, --no-fork so that killing it releases the lock) is held; once it is released the file is stale', async () => {
    const topdir = buildDir();
    const lock = join(topdir, 'bitbake.lock');
    const dead = await deadPid();
    writeFileSync(lock, `${dead}\n`);
    const holder = execa('flock', ['--no-fork', lock, 'sleep', '30'], { reject: false, stdio: 'ignore' });
    cleanups.push(async () => {
      holder.kill();
      await holder;
    });
    for (let i = 0; i < 50 && !lockHeld(topdir); i++) await sleep(50);
    const held = readLockState(topdir);
    expect(held.state).toBe('held');
    expect(held.pid).toBe(holder.pid);
    holder.kill();
    await holder;
    expect(readLockState(topdir)).toEqual({
      state: 'stale',
      pid: dead,
      detail: `pid ${dead} gone`,
      ownerCanOpen: true,
    });
    expect(lockHeld(topdir)).toBe(false);
  });

  it('a live PID that is not BitBake is stale; one whose program is named bitbake is held', async () => {
    const topdir = buildDir();
    writeFileSync(join(topdir, 'bitbake.lock'), `${process.pid}\n`);
    const other = readLockState(topdir);
    expect(other.state).toBe('stale');
    expect(other.detail).toMatch(new RegExp(`^pid ${process.pid} is \\S+, not BitBake$`));

    const bitbake = join(topdir, 'bitbake');
    symlinkSync('/bin/sleep', bitbake);
    const fake = execa(bitbake, ['30'], { reject: false, stdio: 'ignore' });
    cleanups.push(async () => {
      fake.kill();
      await fake;
    });
    writeFileSync(join(topdir, 'bitbake.lock'), `${fake.pid} localhost:36001\n`);
    await sleep(100); // until exec has replaced the child's command line
    expect(readLockState(topdir)).toEqual({
      state: 'held',
      pid: fake.pid,
      holder: 'bitbake',
      detail: `held by pid ${fake.pid} (bitbake)`,
    });
    expect(lockHeld(topdir)).toBe(true);
  });

  it('a poller remembers a live BitBake until its file changes or its PID is gone', async () => {
    const topdir = buildDir();
    const lock = join(topdir, 'bitbake.lock');
    const server = await namedSleep('bitbake-server', 30, topdir);
    writeFileSync(lock, `${server.pid} localhost:36001\n`);
    const poller = new LockPoller(topdir);
    expect(poller.held()).toBe(true);
    expect(poller.held()).toBe(true);
    // The file now names a live process that is not BitBake: looked at afresh, stale.
    writeFileSync(lock, `${process.pid}\n`);
    expect(poller.held()).toBe(false);
    writeFileSync(lock, `${server.pid} localhost:36001\n`);
    expect(poller.held()).toBe(true);
    // The file unchanged, the server killed: its PID is gone, and so is the lock.
    server.kill();
    await server.ended();
    expect(poller.held()).toBe(false);
  });

  /** `<dir>/<name> <seconds>`: sleep(1) under a BitBake program's name, as /proc shows it. */
  async function namedSleep(name: string, seconds: number, cwd: string) {
    const bin = buildDir();
    symlinkSync('/bin/sleep', join(bin, name));
    const p = execa(join(bin, name), [String(seconds)], { cwd, reject: false, stdio: 'ignore' });
    cleanups.push(async () => {
      p.kill();
      await p;
    });
    await sleep(100); // until exec has replaced the child's command line
    return { pid: p.pid, kill: () => p.kill(), ended: async () => void (await p) }; // not p: awaiting it waits for the exit
  }

  it('waits out a server that outlives its command, not one beside a running bitbake command', async () => {
    const topdir = buildDir();
    const lock = join(topdir, 'bitbake.lock');
    // A server whose command has ended: held now, let go (its PID gone) within the linger time.
    const lingering = await namedSleep('bitbake-server', 0.8, topdir);
    writeFileSync(lock, `${lingering.pid}\n`);
    expect(readLockState(topdir)).toMatchObject({ state: 'held', holder: 'bitbake-server' });
    expect(bitbakeCommands(topdir)).toEqual([]);
    let t0 = Date.now();
    const settled = await settledLockState(topdir, 5_000);
    expect(settled.state).toBe('stale');
    expect(Date.now() - t0).toBeGreaterThan(300);

    // A server beside a bitbake command working in TOPDIR (a build's client): held at once.
    const server = await namedSleep('bitbake-server', 30, topdir);
    writeFileSync(lock, `${server.pid}\n`);
    const client = await namedSleep('bitbake', 30, topdir);
    expect(bitbakeCommands(topdir)).toEqual([client.pid]);
    expect(bitbakeCommands(buildDir())).toEqual([]);
    // Held at once: well before the 5 s it waits for a lingering server (half of it, not a
    // tighter bound: this file may run beside others at a lower CPU priority, scripts/test.mjs).
    t0 = Date.now();
    expect((await settledLockState(topdir, 5_000)).state).toBe('held');
    expect(Date.now() - t0).toBeLessThan(2_500);
    // Without the command the same server is waited for, and still held at the limit.
    client.kill();
    await client.ended();
    t0 = Date.now();
    expect((await settledLockState(topdir, 600)).state).toBe('held');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(550);
  });

  it('waits for a held lock to be let go, and gives up at the time limit', async () => {
    const topdir = buildDir();
    const lock = join(topdir, 'bitbake.lock');
    const holder = execa('flock', ['--no-fork', lock, 'sleep', '0.6'], { reject: false, stdio: 'ignore' });
    cleanups.push(async () => {
      holder.kill();
      await holder;
    });
    for (let i = 0; i < 50 && !lockHeld(topdir); i++) await sleep(50);
    expect((await waitForLockRelease(topdir, 50)).state).toBe('held');
    const after = await waitForLockRelease(topdir, 10_000);
    expect(after.state).toBe('stale');
    expect(after.detail).toBe('no PID in it, no lock on it');
  });
});

describe('doctor', () => {
  const lockFindings = (bitbakeLock?: Parameters<typeof decideLockState>[0]) => {
    const bd = { ...makeBuildDir(), ...(bitbakeLock ? { bitbakeLock: decideLockState(bitbakeLock) } : {}) };
    return checkHazards(bd, makeFacts({ ram: 64 * GiB, cpus: 8 })).filter((f) =>
      f.id.includes('bitbake-lock'),
    );
  };

  it('reports a stale lock as info: BitBake takes it over at its next start', () => {
    expect(
      lockFindings({
        exists: true,
        text: '4242\n',
        locks: [],
        process: { alive: false },
        ownerCanOpen: true,
      }),
    ).toEqual([
      {
        id: 'stale-bitbake-lock',
        severity: 'info',
        message:
          'stale bitbake.lock, pid 4242 gone; BitBake takes it over at its next start and removes it when that server exits',
        file: `${TOPDIR}/bitbake.lock`,
        fix: 'nothing to do: rambake ignores it (no server holds it, so removing it by hand is safe too)',
      },
    ]);
  });

  it("warns when BitBake could not open the stale file (another user's, e.g. root's)", () => {
    const [f] = lockFindings({
      exists: true,
      text: '4242\n',
      locks: [],
      process: { alive: false },
      ownerCanOpen: false,
    });
    expect(f?.severity).toBe('warning');
    expect(f?.message).toMatch(/Unable to acquire lock 'Permission denied'/);
  });

  it('says nothing of a held lock or of none', () => {
    const flock = { kind: 'FLOCK', pid: 900, major: 254, minor: 0, inode: 5n };
    expect(lockFindings({ exists: true, text: '', locks: [flock] })).toEqual([]);
    expect(lockFindings({ exists: false })).toEqual([]);
    expect(lockFindings()).toEqual([]);
  });
});
