// The big-tree walker behind scanTree: GNU find, a C walker every glibc Linux has, lstat()s the
// entries and prints what the scan needs, several processes on separate subtrees at once, and
// this thread only reads their output, through FIFOs read into one buffer (fifo-pipe.ts: with
// spawn's pipes, 0.93 s of this thread and 66 MiB; now 0.73 s and 61 MiB, 12-05). Measured on a
// 1M-entry Yocto-shaped tree (2 cores),
// Node's own lstatSync on worker threads cost 2.3–2.4× du's CPU and 141 MB; two find processes
// and this reader 1.5× du's CPU (find's -printf formatting is most of the difference) and
// 61–67 MB (Node itself is 40). Rejected mechanisms and their figures: the head of bench/du.ts.
//
// Output, one record per entry, each ended by NUL (a path may hold any other byte):
//   d<depth> <blocks> <path>      a directory (the path gives the group and names a start point)
//   <depth> <blocks>              a non-directory with one link
//   l<depth> <blocks> <dev> <ino> a non-directory with more links (counted once by the merger)
// find prints in pre-order: an entry at depth k belongs to the last directory printed at k−1.
// `blocks` is st_blocks (512-byte units), what du -B1 adds up.

import { spawn, spawnSync } from 'node:child_process';
import { closeSync } from 'node:fs';
import type { GroupTally, ScanError, WalkTally, WalkTask } from './du-walk.js';
import { type FifoPipe, openFifoPipes, readFifo } from './fifo-pipe.js';

// Ungrouped scans need no depth nor path: start points are skipped (-mindepth 1) and every
// entry belongs to the one group ''. Fewer -printf directives are most of find's own CPU.
const FLAT_FORMAT = [
  '-mindepth',
  '1',
  '(',
  '-type',
  'd',
  '-printf',
  'd%b\\0',
  ')',
  '-o',
  '(',
  '-links',
  '1',
  '-printf',
  '%b\\0',
  ')',
  '-o',
  '-printf',
  'l%b %D %i\\0',
];
const FORMAT = [
  '(',
  '-type',
  'd',
  '-printf',
  'd%d %b %p\\0',
  ')',
  '-o',
  '(',
  '-links',
  '1',
  '-printf',
  '%d %b\\0',
  ')',
  '-o',
  '-printf',
  'l%d %b %D %i\\0',
];
/** For GNU tools whose output is read back: messages and headers in the C locale, untranslated. */
export const C_LOCALE_ENV = { ...process.env, LC_ALL: 'C', LANG: 'C' };
const MESSAGES: Record<string, string> = {
  'Permission denied': 'EACCES',
  'No such file or directory': 'ENOENT',
  'Not a directory': 'ENOTDIR',
  'Too many levels of symbolic links': 'ELOOP',
  'Input/output error': 'EIO',
  'File name too long': 'ENAMETOOLONG',
};

let usable: boolean | undefined;

/** Whether `find` takes -printf with these directives (GNU findutils; busybox's does not). */
export function findUsable(): boolean {
  if (usable === undefined) {
    const probe = spawnSync('find', ['/', '-maxdepth', '0', '-printf', 'd%d %b %D %i\\0'], {
      env: C_LOCALE_ENV,
    });
    usable = probe.status === 0 && /^d0 \d+ \d+ \d+\0$/.test(probe.stdout?.toString() ?? '');
  }
  return usable;
}

/**
 * Pure: the start points of each find process, in start order. The shallowest folders are the
 * big subtrees: the first two per process go alone, biggest first; then each batch takes
 * 1/processes of the folders left, so batches halve (2 processes) towards the end, for balance.
 * One process has nothing to balance: it gets every folder at once. Each start forks this
 * process (3.6 ms of its CPU at 78 MiB, 12-06), and a hand-off to one find (the watcher sizing a
 * busy work dir) had started seven of them and a mkfifo. On a 1M-entry tree (257 folders
 * handed off) batches of a quarter of that share each had started 42 finds; halving starts 13,
 * and the scan took 5.7–6.7 CPU-seconds (median 6.3) against 6.0–6.8 (6.6),
 * 2.9–3.4 s against 3.1–3.5 s of wall time (12-07, five alternating runs; no worse with a CPU
 * hog beside).
 */
export function findBatches(tasks: readonly WalkTask[], processes: number): WalkTask[][] {
  const queue = [...tasks].sort((a, b) => a.depth - b.depth);
  if (processes <= 1) return queue.length > 0 ? [queue] : [];
  const batches: WalkTask[][] = [];
  while (queue.length > 0) {
    const size = batches.length < 2 * processes ? 1 : Math.max(1, Math.floor(queue.length / processes));
    batches.push(queue.splice(0, size));
  }
  return batches;
}

/**
 * Walks below each task (its own inode already counted) with up to `processes` find
 * processes, the biggest (shallowest) tasks first, adding to `acc`; resolves when all ended.
 */
export function walkWithFind(
  tasks: WalkTask[],
  acc: WalkTally,
  groupDepth: number,
  processes: number,
): Promise<void> {
  const batches = findBatches(tasks, processes);
  // All pipes in one mkfifo: one per batch had cost 0.2 s of CPU over the 42 batches of a 1M-entry
  // tree. A hand-off of one or two subtrees (the watcher sizing a busy work dir) prints little,
  // and a mkfifo would block this thread longer than its pipes save: spawn's pipes then.
  const pipes = batches.length > processes ? openFifoPipes(batches.length) : undefined;
  return new Promise((resolve, reject) => {
    let running = 0;
    let started = 0;
    let failed = false;
    const next = () => {
      if (failed) return;
      if (started === batches.length) {
        if (running === 0) resolve();
        return;
      }
      const i = started++;
      running++;
      runFind(batches[i]!, acc, groupDepth, pipes?.[i]).then(
        () => {
          running--;
          next();
        },
        (error: unknown) => {
          failed = true;
          // The pipes of batches not started are closed here; a started one's by its reader.
          for (const pipe of pipes?.slice(started) ?? [])
            for (const fd of [pipe.read, pipe.write]) closeSync(fd);
          reject(error);
        },
      );
    };
    for (let i = 0; i < processes; i++) next();
    if (batches.length === 0) resolve();
  });
}

/** One find process, writing to `pipe` (see fifo-pipe.ts) or, without one, to a spawn() pipe. */
function runFind(
  tasks: WalkTask[],
  acc: WalkTally,
  groupDepth: number,
  pipe: FifoPipe | undefined,
): Promise<void> {
  const flat = groupDepth === 0;
  const reader = flat ? new FlatFindReader(acc) : new FindReader(tasks, acc, groupDepth);
  const child = spawn('find', ['-P', ...tasks.map((t) => t.path), ...(flat ? FLAT_FORMAT : FORMAT)], {
    env: C_LOCALE_ENV,
    stdio: ['ignore', pipe?.write ?? 'pipe', 'pipe'],
  });
  let stderr = '';
  let ended: Promise<unknown> = Promise.resolve();
  if (pipe !== undefined) {
    closeSync(pipe.write);
    const socket = readFifo(pipe.read, (bytes, length) => reader.push(bytes.subarray(0, length)));
    ended = new Promise((resolve) => socket.on('close', resolve));
  } else child.stdout!.on('data', (chunk: Buffer) => reader.push(chunk));
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    stderr += text;
    const lines = stderr.split('\n');
    stderr = lines.pop()!;
    for (const line of lines) acc.errors.push(parseFindError(line));
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', async (code, signal) => {
      await ended;
      if (stderr !== '') acc.errors.push(parseFindError(stderr));
      // 1: some entries could not be read (collected above); anything else is not a scan result.
      if (signal !== null || (code !== 0 && code !== 1)) {
        reject(new Error(`find ended with ${signal ?? `exit code ${code}`}`));
        return;
      }
      reader.end();
      resolve();
    });
  });
}

/** `find: '/t/work/x': Permission denied` → { path: '/t/work/x', code: 'EACCES' }. */
export function parseFindError(line: string): ScanError {
  const m = /^find: '(.*)': ([^:]+)$/.exec(line);
  if (!m) return { path: line.replace(/^find: /, ''), code: 'EUNKNOWN' };
  return { path: m[1]!, code: MESSAGES[m[2]!] ?? 'EUNKNOWN' };
}

/** Reads FLAT_FORMAT: a byte loop, no strings but for the rare inode number past 2^53. */
export class FlatFindReader {
  readonly #acc: WalkTally;
  readonly #tally: GroupTally;
  #kind = 0;
  /** Numbers of the current record: blocks, dev, ino. */
  #fields = [0, 0, 0];
  #field = 0;
  #digits = 0;
  #inoText = '';

  constructor(acc: WalkTally) {
    this.#acc = acc;
    this.#tally = acc.tally('');
  }

  push(chunk: Buffer): void {
    const fields = this.#fields;
    let field = this.#field;
    let kind = this.#kind;
    let digits = this.#digits;
    let n = fields[field]!;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c >= 48 && c <= 57) {
        n = n * 10 + c - 48;
        if (++digits > 15 && field === 2) this.#inoText += String.fromCharCode(c);
        else if (digits === 15 && field === 2) this.#inoText = String(n);
      } else if (c === SPACE) {
        fields[field++] = n;
        n = 0;
        digits = 0;
      } else if (c === 0) {
        fields[field] = n;
        this.#entry(kind, digits);
        field = 0;
        kind = 0;
        n = 0;
        digits = 0;
      } else kind = c;
    }
    fields[field] = n;
    this.#field = field;
    this.#kind = kind;
    this.#digits = digits;
  }

  #entry(kind: number, inoDigits: number): void {
    const bytes = this.#fields[0]! * 512;
    const tally = this.#tally;
    if (kind === D) {
      tally.dirs++;
      tally.bytes += bytes;
      this.#acc.singleInodes++;
      return;
    }
    tally.files++;
    if (kind !== L) {
      tally.bytes += bytes;
      this.#acc.singleInodes++;
      return;
    }
    const ino = inoDigits > 15 ? this.#inoText : this.#fields[2]!;
    this.#acc.addLink(this.#fields[1]!, ino, bytes, '');
  }

  end(): void {
    if (this.#field !== 0 || this.#kind !== 0 || this.#digits !== 0)
      this.#acc.errors.push({ path: '(find output)', code: 'ETRUNCATED' });
  }
}

const D = 0x64; // 'd'
const L = 0x6c; // 'l'
const SPACE = 0x20;

/** Reads one find process's output into the accumulator (see the top of this file). */
export class FindReader {
  readonly #starts: Map<string, WalkTask>;
  readonly #acc: WalkTally;
  readonly #groupDepth: number;
  #carry: Buffer | undefined;
  #offset = 0;
  /** Group and tally of the last directory printed at each find depth. */
  readonly #groups: string[] = [];
  readonly #tallies: GroupTally[] = [];
  #pos = 0;

  constructor(tasks: WalkTask[], acc: WalkTally, groupDepth: number) {
    this.#starts = new Map(tasks.map((t) => [t.path, t]));
    this.#acc = acc;
    this.#groupDepth = groupDepth;
  }

  push(chunk: Buffer): void {
    const buf = this.#carry ? Buffer.concat([this.#carry, chunk]) : chunk;
    let start = 0;
    for (let end = buf.indexOf(0, start); end >= 0; end = buf.indexOf(0, start)) {
      this.#record(buf, start, end);
      start = end + 1;
    }
    this.#carry = start < buf.length ? Buffer.from(buf.subarray(start)) : undefined;
  }

  end(): void {
    if (this.#carry) this.#acc.errors.push({ path: '(find output)', code: 'ETRUNCATED' });
  }

  #number(buf: Buffer, end: number): number {
    let n = 0;
    let i = this.#pos;
    for (; i < end; i++) {
      const c = buf[i]!;
      if (c === SPACE) break;
      n = n * 10 + c - 48;
    }
    this.#pos = i + 1;
    return n;
  }

  #record(buf: Buffer, start: number, end: number): void {
    const kind = buf[start]!;
    this.#pos = kind === D || kind === L ? start + 1 : start;
    const depth = this.#number(buf, end);
    const bytes = this.#number(buf, end) * 512;
    const acc = this.#acc;
    if (kind === D) {
      this.#directory(buf, depth, bytes, end);
      return;
    }
    const tally = this.#tallies[depth - 1];
    if (tally === undefined) return; // below a start point that was not printed (cannot happen in pre-order)
    tally.files++;
    if (kind !== L) {
      tally.bytes += bytes;
      acc.singleInodes++;
      return;
    }
    const dev = this.#number(buf, end);
    // Inode numbers past 2^53 stay exact as text.
    const ino = end - this.#pos > 15 ? buf.toString('latin1', this.#pos, end) : this.#number(buf, end);
    acc.addLink(dev, ino, bytes, this.#groups[depth - 1]!);
  }

  #directory(buf: Buffer, depth: number, bytes: number, end: number): void {
    if (depth === 0) {
      // A start point: counted by the walk that queued it; it sets the depth and group below.
      const task = this.#starts.get(buf.toString('utf8', this.#pos, end));
      if (task === undefined) {
        this.#tallies.length = 0;
        return;
      }
      this.#offset = task.depth;
      this.#groups[0] = task.group;
      this.#tallies[0] = this.#acc.tally(task.group);
      return;
    }
    const parentGroup = this.#groups[depth - 1];
    const parentTally = this.#tallies[depth - 1];
    if (parentGroup === undefined || parentTally === undefined) return;
    let tally = parentTally;
    let group = parentGroup;
    if (this.#offset + depth <= this.#groupDepth) {
      const path = buf.toString('utf8', this.#pos, end);
      const name = path.slice(path.lastIndexOf('/') + 1);
      group = parentGroup === '' ? name : `${parentGroup}/${name}`;
      tally = this.#acc.tally(group);
    }
    tally.bytes += bytes;
    tally.dirs++;
    this.#acc.singleInodes++;
    this.#groups[depth] = group;
    this.#tallies[depth] = tally;
  }
}
