// Disk usage that equals `du -sB1 ROOT` exactly: st_blocks × 512 for every entry (the root and
// directories included), symlinks not followed, mount points crossed, each hard-linked inode
// counted once. Errors (EACCES, files a live build deletes mid-scan) are collected, never thrown.
// Large trees are split across worker threads that hand each other folders (du-walk.ts,
// du-worker.ts); du-merge.ts documents groups and how shared inodes are attributed.

import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type GroupUsage, UsageMerger } from './du-merge.js';
import { errorCode, type ScanError, TreeWalker, type WalkTask } from './du-walk.js';
import type { DuWorkerData, FromWorker, ToWorker } from './du-worker.js';
import { InodeSet } from './inode-set.js';

export type { GroupUsage } from './du-merge.js';
export type { ScanError } from './du-walk.js';
export { InodeSet } from './inode-set.js';

export interface ScanOptions {
  /** Folders up to this many components below the root get their own group (0: only the root ''). */
  groupDepth?: number;
  /**
   * Multi-link inodes counted by earlier scans: counted in no total here (like du given several
   * folders), and filled with this scan's. Directories are not recorded, so overlapping roots
   * count their shared directories twice.
   */
  seen?: InodeSet;
  /** Worker threads; 0 walks on this thread in slices. Default: usable CPUs, at most 4. */
  workers?: number;
}

export interface ScanResult {
  root: string;
  /** What `du -sB1 root` prints. */
  bytes: number;
  /** Distinct inodes counted. */
  inodes: number;
  /** Non-directory entries (every hard link). */
  files: number;
  /** Directories, the root included. */
  dirs: number;
  errors: ScanError[];
  /** Per-folder usage by relative path ('' is the root), sorted by path. */
  groups: Map<string, GroupUsage>;
}

export const defaultWorkers = (): number => {
  const cpus = os.availableParallelism();
  return cpus > 1 ? Math.min(cpus, 4) : 0;
};

export async function scanTree(root: string, options: ScanOptions = {}): Promise<ScanResult> {
  const groupDepth = options.groupDepth ?? 0;
  const merger = new UsageMerger(groupDepth, options.seen ?? new InodeSet());
  const absRoot = path.resolve(root);
  const errors: ScanError[] = [];
  let st: Stats;
  try {
    st = await lstat(absRoot);
  } catch (error) {
    errors.push({ path: absRoot, code: errorCode(error) });
    return { root: absRoot, ...merger.finish(), errors };
  }
  const bytes = st.blocks * 512;
  const isDir = st.isDirectory();
  const single = isDir || st.nlink <= 1;
  if (!single) {
    const data = new Float64Array([st.dev, st.ino, bytes, 0]);
    merger.addLinks('root', { data, count: 1, names: [''], big: [] });
  }
  merger.addTotals({
    groups: [['', { bytes: single ? bytes : 0, files: isDir ? 0 : 1, dirs: isDir ? 1 : 0 }]],
    singleInodes: single ? 1 : 0,
    errors: [],
  });
  if (isDir) {
    // A failing worker is a bug, not a file-system error: it rejects instead of being collected.
    const task: WalkTask = { path: absRoot, depth: 0, group: '' };
    const workers = options.workers ?? defaultWorkers();
    if (workers > 0) await walkInWorkers(task, groupDepth, workers, merger, errors);
    else await walkHere(task, groupDepth, merger, errors);
  }
  return { root: absRoot, ...merger.finish(), errors };
}

async function walkHere(task: WalkTask, groupDepth: number, merger: UsageMerger, errors: ScanError[]) {
  const walker = new TreeWalker(groupDepth, (batch) => merger.addLinks(walker, batch));
  walker.stack.push(task);
  // Slices keep the event loop turning (samplers and signal handlers) during a long scan.
  while (walker.run(512)) await new Promise((resolve) => setImmediate(resolve));
  walker.flushLinks();
  const totals = walker.totals();
  merger.addTotals(totals);
  errors.push(...totals.errors);
}

/** Under tsx or vitest this module is TypeScript: the worker then loads through tsx's API. */
function startWorker(workerData: DuWorkerData): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./du-worker.js', here), { workerData });
  // tsx's ESM API (its CommonJS build cannot register hooks from an ESM import).
  const tsxRoot = path.dirname(createRequire(here).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(path.join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./du-worker.ts', here).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`;
  return new Worker(boot, { eval: true, workerData });
}

function walkInWorkers(
  task: WalkTask,
  groupDepth: number,
  count: number,
  merger: UsageMerger,
  errors: ScanError[],
): Promise<void> {
  const idleBuffer = new SharedArrayBuffer(4);
  const idleCount = new Int32Array(idleBuffer);
  const workers = Array.from({ length: count }, () => startWorker({ groupDepth, idle: idleBuffer }));
  const idle: Worker[] = [];
  const queue: WalkTask[][] = [[task]];
  let finished = 0;
  const send = (worker: Worker, message: ToWorker) => worker.postMessage(message);
  const dispatch = (worker: Worker) => {
    const tasks = queue.shift();
    if (tasks) return send(worker, { type: 'tasks', tasks });
    idle.push(worker);
    Atomics.add(idleCount, 0, 1);
    // Everyone idle with nothing queued: every share has arrived, the walk is complete.
    if (idle.length === count) for (const w of workers) send(w, { type: 'finish' });
  };
  return new Promise((resolve, reject) => {
    for (const worker of workers) {
      worker.on('error', (error) => {
        for (const w of workers) void w.terminate();
        reject(error);
      });
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'links') merger.addLinks(worker, message.batch);
        else if (message.type === 'share') {
          // The sender claimed an idle worker (decremented the count) before sharing.
          const waiting = idle.pop();
          if (waiting) send(waiting, { type: 'tasks', tasks: message.tasks });
          else queue.push(message.tasks);
        } else if (message.type === 'idle') dispatch(worker);
        else {
          merger.addTotals(message.totals);
          errors.push(...message.totals.errors);
          if (++finished === count) resolve();
        }
      });
    }
    for (const worker of workers) dispatch(worker);
  });
}
