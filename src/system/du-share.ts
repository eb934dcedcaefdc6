// The walk behind scanTree: this thread always walks, in slices that keep its event loop
// turning, and only once the walk has lasted SPAWN_AFTER_MS hands the rest to `find`
// processes (du-find.ts) or, where find cannot print what is needed, to worker threads. Both
// cost milliseconds to start, so small scans (the watcher samples single work dirs) never pay
// for one, and on a big scan this thread has already walked while they started.
// Idle walkers are fed by whoever is busy: a busy walker that sees the shared idle count
// claims one idle walker and hands it the shallow half of its stack (du-walk.ts).
// Every hand-over goes through this thread, so the message order on each worker's port
// guarantees that "every walker idle" means the walk is complete.

import type { Worker } from 'node:worker_threads';
import { walkWithFind } from './du-find.js';
import type { UsageMerger } from './du-merge.js';
import { type ScanError, TreeWalker, type WalkTask } from './du-walk.js';
import type { DuWorkerData, FromWorker, ToWorker } from './du-worker.js';

/** Directories read between two turns of the event loop: about a millisecond on warm caches. */
const SLICE_DIRS = 64;
/** Workers are started only for walks still running after this long. */
const SPAWN_AFTER_MS = 10;

export type StartWorker = (data: DuWorkerData) => Worker;

export interface ShareOptions {
  groupDepth: number;
  /** This thread walks the root's entries in sorted order (ScanOptions.rmWorkOrder). */
  rmWorkOrder?: boolean;
  /** Worker threads to start besides this thread. */
  workers: number;
  /** Start them at once and queue the root for them (tests: hand-overs on small trees). */
  workersFirst: boolean;
  startWorker: StartWorker;
  /**
   * Processes of `find` to hand the rest of a long walk to (du-find.ts) instead of starting
   * worker threads; 0: worker threads. Asked only when a walk lasts (it may probe find).
   */
  finds: () => number;
}

/** Pending folders to hand to find: enough for every process to get several, for balance. */
const TASKS_PER_FIND = 16;
/** At most this many folders read here to reach them (BFS from the shallowest). */
const EXPAND_DIRS = 2000;

/** Walks the tree below `task`, adding what it finds to `merger`; resolves to the errors met. */
export function walkShared(task: WalkTask, merger: UsageMerger, options: ShareOptions): Promise<ScanError[]> {
  const { groupDepth, workers: extraWorkers, startWorker } = options;
  const idleBuffer = new SharedArrayBuffer(4);
  // [0]: idle walkers not yet claimed by a sharing walker. Changed here only when a walker goes
  // idle, so a positive count always means `idle` below holds a walker.
  const idleCount = new Int32Array(idleBuffer);
  const walker = new TreeWalker(groupDepth, (batch) => merger.addLinks(walker, batch), options.rmWorkOrder);
  walker.stack.push(task);
  const started: Worker[] = [];
  const ready = new Set<Worker>();
  /** Idle walkers; `null` is this thread. */
  const idle: (Worker | null)[] = [];
  const queue: WalkTask[][] = [];
  const errors: ScanError[] = [];
  let wake: (() => void) | undefined;
  let finishing = false;
  let doneCount = 0;
  // workersFirst: this thread waits until a worker has taken the queued root folders.
  let holding = options.workersFirst && extraWorkers > 0;
  const send = (worker: Worker, message: ToWorker) => worker.postMessage(message);

  const wantsWork = () => {
    const waiting = Atomics.load(idleCount, 0);
    return waiting > 0 && Atomics.compareExchange(idleCount, 0, waiting, waiting - 1) === waiting;
  };
  const giveWork = (tasks: WalkTask[]) => {
    const target = idle.pop();
    if (target === undefined) queue.push(tasks);
    else if (target === null) {
      walker.stack.push(...tasks);
      wake?.();
    } else send(target, { type: 'tasks', tasks });
  };

  return new Promise<ScanError[]>((resolve, reject) => {
    const finish = () => {
      walker.flushLinks();
      const totals = walker.totals();
      merger.addTotals(totals);
      errors.push(...totals.errors);
      resolve(errors);
    };
    const goIdle = (who: Worker | null) => {
      const tasks = queue.shift();
      if (tasks) return assign(who, tasks);
      idle.push(who);
      Atomics.add(idleCount, 0, 1);
      if (idle.length < ready.size + 1) return;
      // Every walker idle with nothing queued: every share has arrived, the walk is complete.
      // Workers still starting have been given nothing and are simply stopped.
      finishing = true;
      wake?.();
      for (const worker of started) {
        if (ready.has(worker)) send(worker, { type: 'finish' });
        else void worker.terminate();
      }
      if (ready.size === 0) finish();
    };
    const assign = (who: Worker | null, tasks: WalkTask[]) => {
      if (who === null) walker.stack.push(...tasks);
      else send(who, { type: 'tasks', tasks });
    };
    const spawn = () => {
      for (let i = 0; i < extraWorkers; i++) {
        const worker = startWorker({ groupDepth, idle: idleBuffer });
        started.push(worker);
        worker.on('error', (error) => {
          finishing = true;
          wake?.();
          for (const w of started) void w.terminate();
          reject(error);
        });
        worker.on('message', (message: FromWorker) => {
          if (message.type === 'links') merger.addLinks(worker, message.batch);
          else if (message.type === 'share') giveWork(message.tasks);
          else if (message.type === 'idle') {
            if (finishing) return;
            ready.add(worker);
            goIdle(worker);
            if (holding) {
              holding = false;
              wake?.();
            }
          } else {
            merger.addTotals(message.totals);
            errors.push(...message.totals.errors);
            if (++doneCount === ready.size) finish();
          }
        });
      }
    };

    const handOff = async (finds: number) => {
      finishing = true;
      walker.expand(TASKS_PER_FIND * finds, EXPAND_DIRS);
      await walkWithFind(walker.stack.splice(0), walker.acc, groupDepth, finds);
      finish();
    };
    const start = performance.now();
    const finds = options.workersFirst ? options.finds() : 0;
    if (finds > 0) {
      handOff(finds).catch(reject);
      return;
    }
    if (holding) {
      spawn();
      queue.push(walker.stack.splice(0));
    }
    const loop = async () => {
      while (!finishing) {
        if (walker.stack.length > 0) {
          walker.run(SLICE_DIRS, wantsWork, giveWork);
          if (
            started.length === 0 &&
            walker.stack.length > 0 &&
            performance.now() - start >= SPAWN_AFTER_MS
          ) {
            const finds = options.finds();
            if (finds > 0) return handOff(finds);
            if (extraWorkers > 0) spawn();
          }
          await new Promise((resolve) => setImmediate(resolve));
        } else {
          if (!holding) goIdle(null);
          if (walker.stack.length > 0 || finishing) continue;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      }
    };
    loop().catch(reject);
  });
}
