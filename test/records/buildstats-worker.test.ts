// A big buildstats folder is read partly by a worker thread (src/bitbake/buildstats-worker.ts):
// the result must be the in-thread reader's, file for file, whatever the folder holds.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { readBuildstatsBuild } from '../../src/bitbake/buildstats.js';
import {
  READ_LIMIT,
  type ReadBatch,
  readInWorker,
  type WorkerRing,
} from '../../src/bitbake/buildstats-worker.js';
import { realFsDevice } from '../../src/system/read-file.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { ROOT, tempDir } from '../helpers/exec.js';

const isRoot = process.getuid?.() === 0;
const cleanups = cleanupsAfterEach();
const scratch = () => {
  const dir = tempDir('rambake-worker-');
  cleanups.push(dir.cleanup);
  return dir.path;
};

const fixture = fileURLToPath(
  new URL(
    '../fixtures/records/buildstats-setscene-running-failed-truncated/20251130142627/',
    import.meta.url,
  ),
);
const sample = (pf: string, task: string) => readFileSync(join(fixture, pf, task), 'utf8');

function writeBuild(dir: string): string[] {
  const compile = sample('zlib-1.3.1-r0', 'do_compile');
  const folders: string[] = [];
  for (let i = 0; i < 40; i++) {
    const pf = i === 7 ? 'bäsh 5.2-r0' : `recipe${i}-1.${i}-r0`;
    folders.push(pf);
    mkdirSync(join(dir, pf));
    writeFileSync(join(dir, pf, 'do_compile'), compile.replace('zlib-1.3.1-r0', pf));
    writeFileSync(join(dir, pf, 'do_configure'), sample('busybox-1.37.0-r0', 'do_configure'));
    writeFileSync(join(dir, pf, 'do_install'), sample('zlib-1.3.1-r0', 'do_install'));
    writeFileSync(join(dir, pf, 'do_package_setscene'), sample('zlib-1.3.1-r0', 'do_package_setscene'));
  }
  writeFileSync(join(dir, 'recipe3-1.3-r0', 'do_empty'), '');
  writeFileSync(join(dir, 'recipe4-1.4-r0', 'do_torn'), 'Event: TaskStarted \nStarted: 5.5 \nutime: 1');
  // As big as the worker's read: read again whole by the checked reader.
  const big = `Event: TaskStarted \nStarted: 9.0 \n${'Future key: x\n'.repeat(Math.ceil(READ_LIMIT / 14))}`;
  writeFileSync(join(dir, 'recipe5-1.5-r0', 'do_big'), big);
  // Not a regular file: left to the checked reader.
  symlinkSync(join(dir, 'recipe0-1.0-r0', 'do_compile'), join(dir, 'recipe6-1.6-r0', 'do_linked'));
  writeFileSync(join(dir, 'build_stats'), readFileSync(join(fixture, 'build_stats')));
  return folders;
}

/** Every entry the worker handed over or left, as `<folder>/<name>` (a folder it could not list: `<folder>/`). */
async function workerEntries(
  dir: string,
  folders: string[],
  device: number | undefined,
  claims = new Int32Array(new SharedArrayBuffer(4)),
): Promise<{ read: string[]; left: string[]; done: boolean }> {
  const read: string[] = [];
  const left: string[] = [];
  const reading = readInWorker(dir, folders, device, claims, (batch: ReadBatch) => {
    for (let i = 0; i < batch.names.length; i++) read.push(`${folders[batch.folders[i]!]}/${batch.names[i]}`);
    for (const [f, name] of batch.left) left.push(`${folders[f]}/${name}`);
  });
  return { read, left, done: await reading.done };
}

describe('readBuildstatsBuild with a worker thread', () => {
  it('gives the in-thread reader result, file for file', async () => {
    const dir = scratch();
    writeBuild(dir);
    const inThread = await readBuildstatsBuild(dir, { worker: false });
    const withWorker = await readBuildstatsBuild(dir, { worker: true });
    expect(withWorker).toEqual(inThread);
    expect(inThread.tasks).toHaveLength(40 * 4 + 4);
    expect(inThread.unreadable).toEqual([]);
    const big = inThread.tasks.find((t) => t.task === 'do_big')!;
    expect(Object.keys(big.other)).toEqual(['Future key']);
    expect(inThread.tasks.find((t) => t.task === 'do_torn')?.utime).toBe(1);
  });

  it('reads the regular files, and leaves the others and the too big to the checked reader', async () => {
    const dir = scratch();
    const folders = writeBuild(dir);
    const { read, left, done } = await workerEntries(dir, folders, realFsDevice(dir));
    expect(done).toBe(true);
    const listed = folders.flatMap((f) => readdirSync(join(dir, f)).map((n) => `${f}/${n}`));
    expect([...read, ...left].sort()).toEqual(listed.sort());
    expect(left.sort()).toEqual(['recipe5-1.5-r0/do_big', 'recipe6-1.6-r0/do_linked']);
    expect(read).toContain('recipe3-1.3-r0/do_empty');
  });

  // The worker refills a slot of its ring only after the caller handed that batch back: with
  // two slots and a caller that takes its time over each batch, the worker runs far ahead
  // unless it waits, and would overwrite batches not yet read.
  it("hands every file over unchanged when its batches outnumber the ring's slots", async () => {
    const dir = scratch();
    const folders = writeBuild(dir);
    const ring: WorkerRing = { slots: 2, packBytes: READ_LIMIT + 2048 };
    const claims = new Int32Array(new SharedArrayBuffer(4));
    const seen = new Map<string, string>();
    let batches = 0;
    const reading = readInWorker(
      dir,
      folders,
      realFsDevice(dir),
      claims,
      (batch: ReadBatch) => {
        batches++;
        const until = performance.now() + 5;
        while (performance.now() < until); // the worker meanwhile reads ahead
        let from = 0;
        for (let i = 0; i < batch.lengths.length; i++) {
          const to = from + batch.lengths[i]!;
          seen.set(`${folders[batch.folders[i]!]}/${batch.names[i]}`, batch.bytes.toString('utf8', from, to));
          from = to;
        }
      },
      ring,
    );
    expect(await reading.done).toBe(true);
    expect(batches).toBeGreaterThan(ring.slots * 4);
    expect(seen.size).toBeGreaterThan(100);
    for (const [file, text] of seen) expect(text, file).toBe(readFileSync(join(dir, file), 'utf8'));
  });

  it('reads only the folders it claims from the shared counter', async () => {
    const dir = scratch();
    const folders = writeBuild(dir);
    // The caller claimed the first 30 before the worker started.
    const claims = new Int32Array(new SharedArrayBuffer(4));
    claims[0] = 30;
    const { read, left, done } = await workerEntries(dir, folders, realFsDevice(dir), claims);
    expect(done).toBe(true);
    const theirs = folders.slice(30).flatMap((f) => readdirSync(join(dir, f)).map((n) => `${f}/${n}`));
    expect([...read, ...left].sort()).toEqual(theirs.sort());
    expect(claims[0]).toBeGreaterThanOrEqual(folders.length);
  });

  it('leaves the first file of each folder when the device was not checked', async () => {
    const dir = scratch();
    const folders = writeBuild(dir);
    const { left } = await workerEntries(dir, folders, undefined);
    const firsts = folders.map((f) => `${f}/${readdirSync(join(dir, f), { withFileTypes: true })[0]!.name}`);
    for (const first of firsts) expect(left).toContain(first);
    // The same when a folder is on another device than the one checked (a mount point).
    const other = await workerEntries(dir, folders, (realFsDevice(dir) ?? 0) + 1);
    expect(other.left.length).toBe(left.length);
  });

  it('reads in a process started as `node --input-type=module -e` (the worker takes none of its options)', async () => {
    const dir = scratch();
    const folders = writeBuild(dir);
    // The built module, as a user's process loads it: the test runner's own options differ.
    const worker = pathToFileURL(join(ROOT, 'dist', 'bitbake', 'buildstats-worker.js')).href;
    const script = `const { readInWorker } = await import(${JSON.stringify(worker)});
      let files = 0;
      const claims = new Int32Array(new SharedArrayBuffer(4));
      const reading = readInWorker(${JSON.stringify(dir)}, ${JSON.stringify(folders)}, undefined, claims, (b) => { files += b.lengths.length; });
      process.stdout.write(JSON.stringify({ done: await reading.done, files }));`;
    const { stdout } = await execa(process.execPath, ['--input-type=module', '-e', script]);
    // As many files as the worker reads in this process (each folder's first is left: no device).
    const { read } = await workerEntries(dir, folders, undefined);
    expect(read.length).toBeGreaterThan(100);
    expect(JSON.parse(stdout)).toEqual({ done: true, files: read.length });
  });

  it('leaves a folder that vanished after the listing to the caller, who notes it', async () => {
    const dir = scratch();
    const folders = writeBuild(dir);
    execFileSync('rm', ['-r', join(dir, folders[3]!)]);
    const { left, done } = await workerEntries(dir, folders, realFsDevice(dir));
    expect(done).toBe(true);
    expect(left).toContain(`${folders[3]}/`);
  });

  // A PF folder that is a mount point of procfs (a bind mount of /proc/sys/kernel, whose entries
  // are regular files): its first file is on another device than the one checked, so both
  // readers send it to the checked reader, which refuses a file of procfs.
  it.skipIf(!isRoot)(
    'refuses a folder whose first file is on procfs, in this thread and in the worker',
    async () => {
      const dir = scratch();
      writeBuild(dir);
      const pf = join(dir, 'recipe9-1.9-r0');
      execFileSync('mount', ['--bind', '/proc/sys/kernel', pf]);
      cleanups.push(() => {
        execFileSync('umount', [pf]);
      });
      for (const worker of [false, true])
        await expect(readBuildstatsBuild(dir, { worker })).rejects.toThrow(
          /recipe9-1\.9-r0\/\w+: a file of procfs/,
        );
    },
  );
});

if (!isRoot) {
  describe('a buildstats folder mounted from procfs', () => {
    it.skip('needs root to bind-mount /proc/sys/kernel: run the suite as root', () => {});
  });
}
