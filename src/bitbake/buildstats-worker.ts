// Reads the task files of some PF folders in a worker thread while the calling thread reads the
// others and parses them all (buildstats.ts). The worker only reads: it packs the files' bytes
// into 256 KiB buffers it hands over without a copy, and the caller parses them as they come.
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
/**
 * The worker's buffers: small ones come back from the allocator's free memory, and the caller
 * gets its first and its last files sooner. 50,000 files in a new process (12-07, medians of 10
 * alternating runs): 764 ms with 4 MiB buffers (each a fresh mapping, 23,000–24,000 page
 * faults in all), 721 ms with 256 KiB (20,000 faults, 12 MB less RSS); 128 KiB was no better.
 */
const PACK_BYTES = 256 * 1024;

export interface ReadBatch {
  /** The files' bytes one after the other. */
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
const { dir, folders, limit, packBytes, device, claims } = workerData;
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
let pack, used, of, names, lengths, left;
const reset = () => { pack = new Uint8Array(packBytes); used = 0; of = []; names = []; lengths = []; left = []; };
const flush = () => {
  const f = Int32Array.from(of);
  const l = Int32Array.from(lengths);
  parentPort.postMessage({ bytes: pack.buffer, used, folders: f, names: names.join('/'), lengths: l, left },
    [pack.buffer, f.buffer, l.buffer]);
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
  bytes: ArrayBuffer;
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
 * is dir's device, checked to be a real file system (realFsDevice), or undefined.
 */
export function readInWorker(
  dir: string,
  folders: string[],
  device: number | undefined,
  claims: Int32Array,
  onBatch: (batch: ReadBatch) => void,
): WorkerRead {
  const worker = new Worker(WORKER_CODE, {
    eval: true,
    // Not the parent's options: under `node --input-type=module` the eval'd code would be an ES
    // module, where `require` is undefined, and every read would fall back to this thread.
    execArgv: [],
    workerData: {
      dir,
      folders,
      limit: READ_LIMIT,
      packBytes: PACK_BYTES,
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
      const bytes = Buffer.from(m.bytes, 0, m.used);
      onBatch({ bytes, folders: m.folders, names, lengths: m.lengths, left: m.left });
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
