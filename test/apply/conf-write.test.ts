import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireLock,
  BACKUP_SUFFIX,
  LOCK_NAME,
  writeFileAtomic,
  writeManagedBlock,
} from '../../src/apply/conf-write.js';
import { UnsafeEditError } from '../../src/errors.js';
import { insertBlock } from '../../src/plan/managed-block.js';
import { ROOT, tempDir } from '../helpers/exec.js';

const isRoot = process.getuid?.() === 0;
let dir: { path: string; cleanup: () => void };
beforeEach(() => {
  dir = tempDir('rambake-conf-write-');
});
afterEach(() => dir.cleanup());

/** A pid that surely belongs to no process: one that just exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('writeFileAtomic', () => {
  it('replaces the content and keeps the mode', async () => {
    const file = join(dir.path, 'local.conf');
    writeFileSync(file, 'old\n');
    chmodSync(file, 0o640);
    await writeFileAtomic(file, 'new\n');
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(statSync(file).mode & 0o7777).toBe(0o640);
    expect(readdirSync(dir.path)).toEqual(['local.conf']);
  });

  it.skipIf(!isRoot)('keeps the owner of a file rambake (as root) rewrites', async () => {
    const file = join(dir.path, 'local.conf');
    writeFileSync(file, 'old\n');
    chownSync(file, 1234, 5678);
    await writeFileAtomic(file, 'new\n');
    expect(statSync(file)).toMatchObject({ uid: 1234, gid: 5678 });
  });

  it.skipIf(!isRoot)('gives a new file to the owner of its folder', async () => {
    chownSync(dir.path, 1234, 5678);
    await writeFileAtomic(join(dir.path, 'auto.conf'), 'A = "1"\n', { mode: 0o644 });
    expect(statSync(join(dir.path, 'auto.conf'))).toMatchObject({ uid: 1234, gid: 5678, mode: 0o100644 });
  });
});

describe('writeManagedBlock', () => {
  it('makes one backup on the first apply only, and a second apply changes nothing', async () => {
    const file = join(dir.path, 'auto.conf');
    writeFileSync(file, 'A = "1"\r\nB = "2"');
    await writeManagedBlock(file, ['TMPDIR = "/t1"']);
    expect(readFileSync(file + BACKUP_SUFFIX, 'latin1')).toBe('A = "1"\r\nB = "2"');
    const first = readFileSync(file);
    const mtime = statSync(file).mtimeMs;
    const again = await writeManagedBlock(file, ['TMPDIR = "/t1"']);
    expect(again.changed).toBe(false);
    expect(readFileSync(file).equals(first)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(mtime);
    await writeManagedBlock(file, ['TMPDIR = "/t2"']);
    expect(readFileSync(file + BACKUP_SUFFIX, 'latin1')).toBe('A = "1"\r\nB = "2"');
  });

  it('keeps bytes that are not UTF-8', async () => {
    const file = join(dir.path, 'local.conf');
    const bytes = Buffer.from([0x41, 0x20, 0x3d, 0x20, 0x22, 0xff, 0xfe, 0x22, 0x0a]);
    writeFileSync(file, bytes);
    await writeManagedBlock(file, ['TMPDIR = "/t/caf\u00e9"']);
    const written = readFileSync(file);
    expect(written.subarray(0, bytes.length).equals(bytes)).toBe(true);
    expect(written.toString('utf8')).toContain('TMPDIR = "/t/caf\u00e9"');
  });
});

describe('the conf folder lock', () => {
  it('makes a second taker wait until the first releases', async () => {
    const first = await acquireLock(dir.path);
    const order: string[] = [];
    const second = acquireLock(dir.path, { pollMs: 5 }).then((lock) => {
      order.push('second');
      return lock;
    });
    await new Promise((r) => setTimeout(r, 50));
    order.push('first-done');
    await first.release();
    await (await second).release();
    expect(order).toEqual(['first-done', 'second']);
    expect(existsSync(join(dir.path, LOCK_NAME))).toBe(false);
  });

  it('gives up on a live holder after the timeout, naming its pid', async () => {
    writeFileSync(join(dir.path, LOCK_NAME), `${process.ppid}\n`);
    await expect(acquireLock(dir.path, { timeoutMs: 30 })).rejects.toThrow(UnsafeEditError);
    await expect(acquireLock(dir.path, { timeoutMs: 30 })).rejects.toThrow(String(process.ppid));
  });

  it('takes over the lock of a dead process', async () => {
    writeFileSync(join(dir.path, LOCK_NAME), `${await deadPid()}\n`);
    const lock = await acquireLock(dir.path, { timeoutMs: 1000 });
    expect(readFileSync(lock.path, 'utf8')).toBe(`${process.pid}\n`);
    await lock.release();
  });

  it('serialises concurrent applies of different plans: the file ends as one of them, whole', async () => {
    const file = join(dir.path, 'auto.conf');
    writeFileSync(file, 'A = "1"\n');
    const plans = Array.from({ length: 8 }, (_, i) => [`TMPDIR = "/t${i}"`]);
    await Promise.all(plans.map((p) => writeManagedBlock(file, p)));
    const text = readFileSync(file, 'latin1');
    expect(plans.map((p) => insertBlock('A = "1"\n', p).text)).toContain(text);
  });
});

describe('kill -9 during apply', () => {
  const CHILD = join(ROOT, 'test', 'apply', 'apply-loop-child.ts');
  // Big enough (about 2 MB) that a write takes a while: a non-atomic writer would be caught
  // half-way by some of the kills.
  const BASE = `MACHINE ??= "qemux86-64"\n${'# a long comment line to give the file some weight\n'.repeat(40_000)}`;

  async function applyThenKill(file: string, delayMs: number): Promise<void> {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, file], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', () => resolve());
      child.on('exit', () => resolve());
    });
    await new Promise((r) => setTimeout(r, delayMs));
    child.kill('SIGKILL');
    await exited;
  }

  it('leaves the old file or the new one, never a mix (50 kills)', async () => {
    const valid = new Set(
      [
        ['TMPDIR = "/mnt/rambake/a"', 'INHERIT += "rm_work"'],
        [
          'TMPDIR = "/mnt/rambake/b"',
          'INHERIT += "rm_work"',
          'BB_DISKMON_DIRS = "STOPTASKS,${TMPDIR},1G,100K"',
        ],
      ].map((lines) => insertBlock(BASE, lines).text),
    );
    // Five chains of ten kills each, in parallel; each chain reuses its file, so every child
    // after the first also meets a lock left by a killed one and must take it over.
    const chains = Array.from({ length: 5 }, async (_, c) => {
      const file = join(dir.path, `chain-${c}`, 'auto.conf');
      mkdirSync(join(dir.path, `chain-${c}`));
      writeFileSync(file, BASE);
      for (let i = 0; i < 10; i++) {
        await applyThenKill(file, Math.floor(Math.random() * 15));
        const text = readFileSync(file, 'latin1');
        expect(valid.has(text), `chain ${c} kill ${i}: ${JSON.stringify(text)}`).toBe(true);
        expect(readFileSync(file + BACKUP_SUFFIX, 'latin1')).toBe(BASE);
      }
      // The next lock holder clears what the killed writers left behind.
      await (await acquireLock(join(dir.path, `chain-${c}`))).release();
      expect(readdirSync(join(dir.path, `chain-${c}`)).sort()).toEqual([
        'auto.conf',
        `auto.conf${BACKUP_SUFFIX}`,
      ]);
    });
    await Promise.all(chains);
  }, 120_000);
});
