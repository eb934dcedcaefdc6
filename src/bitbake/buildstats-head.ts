// Reads the task files of many PF folders with find and head processes, several at once, and
// parses their output here (buildstats-head-output.ts splits it back into files).
//
// Why processes: a big build's 50,000 task files cost this machine (2 cores) 636 ms just to
// open, read and close from Node, more than the whole budget of 5× poky's parser, and two Node
// threads opening files in one tree slow each other 1.6× (buildstats.ts). Two processes do not:
// `find … -exec head` over the same files takes 0.61 s alone and 0.35 s as two halves side by
// side (12-05).
//
// A batch that does not end cleanly (a file that vanished or cannot be read, a tool that
// failed or stalled, output that cannot be split) is dropped whole and its folders are read
// in-process by the caller, so errors are reported the one way the in-process reader does.
// Entries that are not regular files are never given to head (a FIFO would block it): find
// names them and the caller reads them through the checked reader.

import { spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import { C_LOCALE_ENV } from '../system/du-find.js';
import { type FifoPipe, readFifo } from '../system/fifo-pipe.js';
import { HeadOutputReader, type OnHeadEntry } from './buildstats-head-output.js';

/** head's byte limit per file: a task file is 1–3 kB; one that reaches this is re-read whole. */
export const HEAD_LIMIT = 64 * 1024;
/** A process that prints nothing this long (a FIFO swapped in after find listed it) is killed. */
const STALL_MS = 10_000;
/** find's records of a regular file head will print, and of another entry (buildstats-head-output.ts). */
const REGULAR_FORMAT = '\\n==> \\001%p\\0';
const OTHER_FORMAT = '\\n==> \\0%p\\0';

// False once find could not be started (not installed): later reads stay in-process. No probe
// up front (two processes, ~25 ms): a find or head that lacks an option here (busybox) fails its
// batch, which is then read in-process like any other failed batch.
let usable = true;

/** Whether find and head can be started here (false after a failed start). */
export function headUsable(): boolean {
  return usable;
}

/**
 * Reads every entry of `folders` (names in `dir`) with one find process and the head processes
 * it starts, which write to `pipe` (its write end is closed here). Calls `onFile` per entry as
 * the output arrives (parse it there: the bytes are not kept). Resolves true when the batch
 * ended cleanly, false when it must be read again in-process (see the top of this file):
 * entries already passed to onFile are then void.
 */
export function readFoldersWithHead(
  dir: string,
  folders: string[],
  pipe: FifoPipe,
  onFile: OnHeadEntry,
): Promise<boolean> {
  const reader = new HeadOutputReader(onFile);
  const args = ['-P', ...folders.map((f) => `./${f}`), '-mindepth', '1', '-maxdepth', '1'];
  // /dev/null first: each head run starts with its empty file, a marker the reader knows.
  const head = ['-exec', 'head', '-v', '-c', String(HEAD_LIMIT), '--', '/dev/null', '{}', '+'];
  args.push('(', '-type', 'f', '-printf', REGULAR_FORMAT, ...head, ')', '-o', '-printf', OTHER_FORMAT);
  // Its own process group, so that a stalled head (find's child) is killed with find.
  const child = spawn('find', args, {
    cwd: dir,
    env: C_LOCALE_ENV,
    stdio: ['ignore', pipe.write, 'ignore'],
    detached: true,
  });
  closeSync(pipe.write);
  return new Promise((resolve) => {
    let stalled = false;
    let failed = false;
    let open = 2; // the child's exit and the pipe's end
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const onStall = () => {
      stalled = true;
      kill();
    };
    let timer = setTimeout(onStall, STALL_MS);
    const done = () => {
      if (--open > 0) return;
      clearTimeout(timer);
      reader.end();
      resolve(!failed && !stalled && reader.error === undefined);
    };
    const socket = readFifo(pipe.read, (bytes, length) => {
      clearTimeout(timer);
      timer = setTimeout(onStall, STALL_MS);
      reader.push(bytes, length);
      if (reader.error !== undefined) kill();
    });
    socket.on('error', () => {
      failed = true;
      kill();
    });
    socket.on('close', done);
    let exited = false;
    const exit = (clean: boolean) => {
      if (!clean) failed = true;
      if (exited) return;
      exited = true;
      done();
    };
    // find could not be started: this batch is read in-process, and so are the next ones.
    child.on('error', () => {
      usable = false;
      socket.destroy();
      exit(false);
    });
    child.on('exit', (code) => exit(code === 0));
  });
}
