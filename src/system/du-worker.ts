// Worker-thread entry of scanTree: walks the folders the main thread sends, gives half of its
// pending folders back whenever another walker is idle, and reports multi-link entries and
// its tallies (du-share.ts coordinates). Protocol (main → worker): tasks, finish; (worker → main): links, share, idle, done.

import { parentPort, workerData } from 'node:worker_threads';
import { type LinkBatch, TreeWalker, type WalkTask } from './du-walk.js';

export type ToWorker = { type: 'tasks'; tasks: WalkTask[] } | { type: 'finish' };
export type FromWorker =
  | { type: 'links'; batch: LinkBatch }
  | { type: 'share'; tasks: WalkTask[] }
  | { type: 'idle' }
  | { type: 'done'; totals: ReturnType<TreeWalker['totals']> };

export interface DuWorkerData {
  groupDepth: number;
  /** Int32Array[0]: idle workers not yet claimed by a sharing worker. */
  idle: SharedArrayBuffer;
}

const port = parentPort;
if (port) {
  const data = workerData as DuWorkerData;
  const idle = new Int32Array(data.idle);
  const post = (message: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);
  const walker = new TreeWalker(data.groupDepth, (batch) =>
    post({ type: 'links', batch }, [batch.data.buffer as ArrayBuffer]),
  );
  // Claim one idle worker before sharing, so that one idle worker gets one share, not many.
  const wantsWork = () => {
    const waiting = Atomics.load(idle, 0);
    return waiting > 0 && Atomics.compareExchange(idle, 0, waiting, waiting - 1) === waiting;
  };
  const giveWork = (tasks: WalkTask[]) => post({ type: 'share', tasks });
  port.on('message', (message: ToWorker) => {
    if (message.type === 'tasks') {
      walker.stack.push(...message.tasks);
      walker.run(Number.POSITIVE_INFINITY, wantsWork, giveWork);
      post({ type: 'idle' });
    } else {
      walker.flushLinks();
      post({ type: 'done', totals: walker.totals() });
      port.close();
    }
  });
  post({ type: 'idle' }); // ready: the first work is sent only to a worker that has started
}
