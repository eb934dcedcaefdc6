// Disk usage that equals `du -sB1 ROOT` exactly: st_blocks × 512 for every entry (the root and
// directories included), symlinks not followed, mount points crossed, each hard-linked inode
// counted once. Errors (EACCES, files a live build deletes mid-scan) are collected, never thrown.
// A walk that lasts is handed to GNU find processes on separate subtrees (du-find.ts), or where
// find lacks -printf to worker threads that hand each other folders (du-share.ts, du-walk.ts,
// du-worker.ts); du-merge.ts documents groups and how shared inodes are attributed.

import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { findUsable } from './du-find.js';
import { type GroupUsage, UsageMerger } from './du-merge.js';
import { walkShared } from './du-share.js';
import { errorCode, type ScanError, type WalkTask } from './du-walk.js';
import type { DuWorkerData } from './du-worker.js';
import type { InodeSet } from './inode-set.js';

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
  /**
   * Worker threads besides this one, which always walks too (in slices, between which its
   * event loop turns); they start only if the walk lasts over 10 ms. 0: this thread alone.
   * Default: usable CPUs − 1, at most 3.
   */
  workers?: number;
  /** Start the workers at once and leave them the first folders (tests: hand-overs on small trees). */
  workersFirst?: boolean;
  /**
   * What walks a long scan besides this thread: `find` processes (workers + 1 of them, GNU
   * find, du-find.ts) or worker threads. Default: find when it takes -printf.
   */
  engine?: 'find' | 'threads';
  /**
   * Walk the root's entries one after the other in the order do_rm_work deletes them (`for dir
   * in *`: sorted), each whole before the next. A scan started as do_rm_work starts then stays
   * ahead of its `rm -rf`, which unlinks what the scan only lstat()s; in any other order the
   * scan meets folders already gone. Holds while this thread walks alone (workers: 0).
   */
  rmWorkOrder?: boolean;
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

/** One walker per usable CPU (this thread is one), at most four in all. */
export const defaultWorkers = (): number => Math.min(os.availableParallelism(), 4) - 1;

export async function scanTree(root: string, options: ScanOptions = {}): Promise<ScanResult> {
  const groupDepth = options.groupDepth ?? 0;
  const merger = new UsageMerger(groupDepth, options.seen);
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
    const workersFirst = options.workersFirst ?? false;
    const engine = options.engine;
    const finds = () => ((engine ?? (findUsable() ? 'find' : 'threads')) === 'find' ? workers + 1 : 0);
    const shared = {
      groupDepth,
      rmWorkOrder: options.rmWorkOrder,
      workers,
      workersFirst,
      startWorker,
      finds,
    };
    errors.push(...(await walkShared(task, merger, shared)));
  }
  return { root: absRoot, ...merger.finish(), errors };
}

/** Under tsx or vitest this module is TypeScript: the worker then loads through tsx's API. */
function startWorker(workerData: DuWorkerData): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) {
    const execArgv = withoutLoaders(process.execArgv);
    return new Worker(new URL('./du-worker.js', here), { workerData, execArgv });
  }
  // tsx's ESM API (its CommonJS build cannot register hooks from an ESM import).
  const tsxRoot = path.dirname(createRequire(here).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(path.join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./du-worker.ts', here).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`;
  return new Worker(boot, { eval: true, workerData });
}

// --input-type (a process run as `node --input-type=module -e …`) is refused for a worker's file.
const LOADER_FLAGS = new Set([
  '--import',
  '--require',
  '-r',
  '--loader',
  '--experimental-loader',
  '--input-type',
]);

/**
 * Node flags minus module loaders: the built worker is plain JavaScript, and a loader the
 * process runs under (tsx, when the bench imports dist/) costs each worker ~30 ms to start.
 */
export function withoutLoaders(execArgv: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]!;
    const name = flag.split('=', 1)[0]!;
    if (!LOADER_FLAGS.has(name)) kept.push(flag);
    else if (!flag.includes('=')) i++; // its value is the next argument
  }
  return kept;
}
