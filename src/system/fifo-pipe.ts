// Pipes for a child's output that Node reads into one buffer of its own. A child's stdout made
// by spawn() is a socket, and Node puts every read from it in a new buffer: on this VM the page
// faults of that fresh memory cost more than the reading itself (12-05, splitting the 45 MB that
// find and head print for 50,000 buildstats files: 400–440 ms of this thread and 10,000–11,000
// faults; through a FIFO read into one buffer, 220–300 ms and 2,000–3,800). A FIFO is made in a
// private folder of the system's temp dir, both ends are opened, and the folder is removed at
// once: nothing stays on disk.

import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket, type SocketConstructorOpts } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FifoPipe {
  /** This process's end, non-blocking. */
  read: number;
  /** The end to give a child as its stdout (blocking, as a child expects); close it here after spawn. */
  write: number;
}

/** `count` pipes, or undefined when they cannot be made here (no mkfifo, no temp dir). */
export function openFifoPipes(count: number): FifoPipe[] | undefined {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), 'rambake-pipe-'));
  } catch {
    return undefined;
  }
  const pipes: FifoPipe[] = [];
  try {
    const paths = Array.from({ length: count }, (_, i) => join(dir, String(i)));
    if (spawnSync('mkfifo', ['-m', '600', ...paths]).status !== 0) return undefined;
    for (const path of paths) {
      // The read end first, without blocking; the write end then opens at once (a reader exists).
      const read = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      pipes.push({ read, write: -1 });
      pipes[pipes.length - 1]!.write = openSync(path, constants.O_WRONLY);
    }
    return pipes;
  } catch {
    for (const p of pipes) for (const fd of [p.read, p.write]) if (fd >= 0) closeSync(fd);
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One buffer for every pipe read here: each read is used up by its callback before the next one. */
let shared: Buffer | undefined;

/**
 * Reads a pipe's read end into one shared buffer, calling `onData(bytes, length)` per read (the
 * bytes are valid during the call only). The returned socket closes once every writer has closed.
 */
export function readFifo(read: number, onData: (bytes: Buffer, length: number) => void): Socket {
  shared ??= Buffer.allocUnsafeSlow(256 * 1024);
  const buffer = shared;
  // `onread` is documented for new net.Socket() (Node ≥ 14.17) though @types/node lists it only for connect().
  const options = {
    fd: read,
    readable: true,
    writable: false,
    onread: {
      buffer,
      callback: (length: number) => {
        onData(buffer, length);
        return true;
      },
    },
  };
  const socket = new Socket(options as SocketConstructorOpts);
  // A pipe is read to its end and no further: closing then lets 'close' tell the caller.
  socket.on('end', () => socket.destroy());
  return socket;
}
