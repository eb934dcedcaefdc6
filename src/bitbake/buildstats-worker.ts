// Reads the task files of some PF folders in a worker thread while the calling thread reads the
// others and parses them all (buildstats.ts). The worker only reads: it packs the files' bytes
// into the slots of one ring of shared memory, and the caller parses each batch as it comes and
// hands its slot back.
//
// Why a thread: a big build's 50,000 task files cost this machine (2 cores) 560–640 ms just to
// open, read and close, most of the budget of 5× poky's parser. Two threads reading halves side
// by side take 270–290 ms each, the same as alone (12-05). The find and head processes this
// replaced were as fast (575–665 ms against 580–660 ms in paired runs, 7.4 against 7.6–7.7
// CPU-seconds over five reads) but needed their output split back into files and checked.
//
// The worker reads only what the caller's reader would read the same way: regular files, in one
// bounded read each. The first file of each folder stands for the folder (a real file system, not
// procfs): both readers fstat it and read it only when it is a regular file on the build folder's
// device, which the caller checked once (realFsDevice). It leaves to the caller, named in `left`,
// any entry that is not a regular file (the checked reader refuses a FIFO or a device), a first
// file on another device, a file it could not open or read, one that filled the read, and a
// folder it could not list. So errors are noted and refused the one way.

import { Worker } from 'node:worker_threads';

/** A file that fills this is left to the checked reader (a task file is 1–3 kB). */
export const READ_LIMIT = 64 * 1024;

export interface WorkerRing {
  /** Batches in flight: the worker waits for the caller to hand back the oldest. */
  slots: number;
  /** Bytes of each slot, at least READ_LIMIT. */
  packBytes: number;
}

/**
 * The worker writes each batch into the next slot of one shared ring, touched once, instead of a
 * new buffer per batch: a page fault costs this machine (a PVM guest) 11–15 µs, and 50,000 files
 * (42 MB) in new 256 KiB buffers faulted about 10,000 pages in. A new process read them in
 * 840 ms with the ring against 910 without, with 3,000–5,000 fewer faults (12-07, medians of
 * eight alternating pairs). Small batches get the caller its first and last files sooner: 4 MiB
 * buffers had read 764 ms, 256 KiB 721, 128 KiB no better (12-07, medians of 10).
 */
export const RING: WorkerRing = { slots: 8, packBytes: 256 * 1024 };

export interface ReadBatch {
  /** The files' bytes one after the other: a view of the ring, valid until onBatch returns. */
  bytes: Buffer;
  /** Per file: its folder (an index into the folders given), its name and its length in bytes. */
  folders: Int32Array;
  names: string[];
  lengths: Int32Array;
  /** Entries left to the caller: folder index and name; name '' for a folder the worker could not list. */
  left: [number, string][];
}

// Plain JavaScript run with eval: the same in dist/ and under the test runner, which cannot start
// a worker from a TypeScript file. No import of the project's modules: it reads, never parses.
const WORKER_CODE = `
const { closeSync, constants, fstatSync, openSync, readSync, readdirSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const { dir, folders, limit, ring, slots, packBytes, handedBack, device, claims } = workerData;
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
// Batch b goes to slot b % slots once the caller has handed back batch b - slots (it counts them).
const handed = new Int32Array(handedBack);
let batch = 0, pack, used, of, names, lengths, left;
const reset = () => {
  for (let h = Atomics.load(handed, 0); h <= batch - slots; h = Atomics.load(handed, 0)) Atomics.wait(handed, 0, h);
  pack = new Uint8Array(ring, (batch % slots) * packBytes, packBytes);
  used = 0; of = []; names = []; lengths = []; left = [];
};
const flush = () => {
  const f = Int32Array.from(of);
  const l = Int32Array.from(lengths);
  parentPort.postMessage({ slot: batch % slots, used, folders: f, names: names.join('/'), lengths: l, left },
    [f.buffer, l.buffer]);
  batch++;
  reset();
};
// The first file of a folder stands for the folder: a regular file on the checked device.
const onDevice = (fd) => { try { const st = fstatSync(fd); return st.isFile() && st.dev === device; } catch { return false; } };
// Folders are claimed one at a time from the counter the caller's thread claims from too.
const next = new Int32Array(claims);
reset();
for (let f = Atomics.add(next, 0, 1); f < folders.length; f = Atomics.add(next, 0, 1)) {
  const base = dir + '/' + folders[f];
  let entries;
  try { entries = readdirSync(base, { withFileTypes: true }); } catch { left.push([f, '']); continue; }
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (!e.isFile()) { left.push([f, e.name]); continue; }
    if (packBytes - used < limit) flush();
    let fd;
    try { fd = openSync(base + '/' + e.name, FLAGS); } catch { left.push([f, e.name]); continue; }
    if (i === 0 && !onDevice(fd)) { closeSync(fd); left.push([f, e.name]); continue; }
    let n = -1;
    try { n = readSync(fd, pack, used, limit, 0); } catch {} finally { closeSync(fd); }
    if (n < 0 || n >= limit) { left.push([f, e.name]); continue; }
    of.push(f); names.push(e.name); lengths.push(n); used += n;
  }
}
flush();
parentPort.postMessage(null);
`;

interface WorkerMessage {
  slot: number;
  used: number;
  folders: Int32Array;
  names: string;
  lengths: Int32Array;
  left: [number, string][];
}

export interface WorkerRead {
  /** True once every folder was read and every batch handed on; false when the worker failed. */
  done: Promise<boolean>;
  /** Ends the worker early (the caller stopped, e.g. on a refused file). */
  stop(): Promise<void>;
}

/**
 * Reads the `folders` (names in `dir`) it claims in a worker thread, calling `onBatch` per batch
 * of files. It claims the folder whose index `Atomics.add(claims, 0, 1)` returns, until that
 * index passes the end: the caller may claim folders from the same counter meanwhile. `device`
 * is dir's device, checked to be a real file system (realFsDevice), or undefined. A batch's
 * bytes are a view of `ring`'s slot, which the worker refills once onBatch has returned.
 */
export function readInWorker(
  dir: string,
  folders: string[],
  device: number | undefined,
  claims: Int32Array,
  onBatch: (batch: ReadBatch) => void,
  { slots, packBytes }: WorkerRing = RING,
): WorkerRead {
  const ring = new SharedArrayBuffer(slots * packBytes);
  const handed = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER_CODE, {
    eval: true,
    // Not the parent's options: under `node --input-type=module` the eval'd code would be an ES
    // module, where `require` is undefined, and every read would fall back to this thread.
    execArgv: [],
    workerData: {
      dir,
      folders,
      limit: READ_LIMIT,
      ring,
      slots,
      packBytes,
      handedBack: handed.buffer,
      device: device ?? -1,
      claims: claims.buffer,
    },
  });
  let ended = false;
  const done = new Promise<boolean>((resolve) => {
    worker.on('message', (m: WorkerMessage | null) => {
      if (m === null) {
        ended = true;
        return;
      }
      const names = m.lengths.length === 0 ? [] : m.names.split('/');
      const bytes = Buffer.from(ring, m.slot * packBytes, m.used);
      try {
        onBatch({ bytes, folders: m.folders, names, lengths: m.lengths, left: m.left });
      } finally {
        // Handed back: the worker may now refill this batch's slot.
        Atomics.add(handed, 0, 1);
        Atomics.notify(handed, 0);
      }
    });
    worker.on('error', () => resolve(false));
    // The worker's last message says it read everything; an exit without it is a failed read.
    worker.on('exit', (code) => resolve(code === 0 && ended));
  });
  return {
    done,
    stop: async () => {
      await worker.terminate();
    },
  };
}
