// Splits the output of
//   find <folders> -mindepth 1 -maxdepth 1 ( -type f -printf '\n==> \1%p\0'
//     -exec head -v -c N -- /dev/null {} + ) -o -printf '\n==> \0%p\0'
// back into files, pure. Four kinds of record follow each other:
//   \n==> \1./zlib-1.3-r0/do_fetch\0             find: a regular file head will print
//   \n==> \0./zlib-1.3-r0/fifo\0                 find: an entry that is not a regular file
//   ==> /dev/null <==\n                          head: the marker that starts each head run
//   \n==> ./zlib-1.3-r0/do_fetch <==\n<bytes>    head: a file, at most N of its bytes
// GNU find flushes its output before it starts a command, so the names of a head run's files
// come before that run's output. A NUL cannot be in a path, so find's records cannot be taken
// for head's.
//
// A file's bytes end where the next "\n==> " starts. Each of head's headers must name the next
// file find announced: a file holding a line that looks like a header makes the real header
// come one file late, which is seen, and the caller reads those folders itself, so the split is
// exact whatever the files hold. A head run's marker follows the previous record with no
// newline in between: after find's record it is read as such; after a file that did not end
// with a newline (a line torn by a build still writing it) it ends the file's bytes and is cut.

import { sameText } from './buildstats-task.js';

const SEPARATOR = Buffer.from('\n==> ');
const HEADER_END = Buffer.from(' <==\n');
const MARKER_LINE = Buffer.from('==> /dev/null <==\n');
/** A path longer than this is not one (PATH_MAX is 4096). */
const MAX_PATH = 8192;
const OTHER = 0;
const REGULAR = 1;

/**
 * Called per entry with its start point (PF folder) and name; a regular file's bytes are
 * `buf[from, to)` (at most head's limit, valid only during the call), another entry has no buf.
 * Positional, no object per file: 50,000 calls.
 */
export type OnHeadEntry = (
  folder: string,
  name: string,
  buf: Buffer | undefined,
  from: number,
  to: number,
) => void;

// Short literals are compared here, not by Buffer.compare: a call into C++ costs more than the
// loop, and a file takes several (12-05: splitting was 110 ms of 50,000 files).
/** Whether buf holds lit at pos (buf may end before). */
function matchAt(buf: Buffer, pos: number, lit: Buffer): boolean {
  if (buf.length - pos < lit.length) return false;
  for (let i = 0; i < lit.length; i++) if (buf[pos + i] !== lit[i]) return false;
  return true;
}

/** Whether buf[from, to) ends with lit; compared from the end, so a task file's last line fails at once. */
function endsWith(buf: Buffer, from: number, to: number, lit: Buffer): boolean {
  if (to - from < lit.length) return false;
  for (let i = 1; i <= lit.length; i++) if (buf[to - i] !== lit[lit.length - i]) return false;
  return true;
}

export class HeadOutputReader {
  readonly #onFile: OnHeadEntry;
  // Output not yet split, at the start of one reused buffer: reads are small, and a new buffer
  // per read cost more in page faults and GC than the copy (12-05: 390 ms of 1 s).
  #work = Buffer.allocUnsafeSlow(256 * 1024);
  #length = 0;
  /** Paths find announced that head has not printed yet, from #next on, and their lengths in bytes. */
  #announced: string[] = [];
  #bytesOf: number[] = [];
  #next = 0;
  /** The file whose bytes are being read ('' inside a head run's marker); undefined between records. */
  #path: string | undefined;
  /** The last folder seen, to reuse its string. */
  #folder = '';
  #error: string | undefined;

  constructor(onFile: OnHeadEntry) {
    this.#onFile = onFile;
  }

  /** Why the output could not be split, once it could not (later chunks are then ignored). */
  get error(): string | undefined {
    return this.#error;
  }

  /** Adds the first `length` bytes of chunk (all of it by default). */
  push(chunk: Buffer, length = chunk.length): void {
    if (this.#error !== undefined) return;
    if (this.#length + length > this.#work.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(2 * this.#work.length, this.#length + length));
      this.#work.copy(bigger, 0, 0, this.#length);
      this.#work = bigger;
    }
    chunk.copy(this.#work, this.#length, 0, length);
    this.#length += length;
    const pos = this.#split(this.#work.subarray(0, this.#length), false);
    this.#work.copyWithin(0, pos, this.#length);
    this.#length -= pos;
  }

  /** The output ended: the last file runs to its end, and every announced file was printed. */
  end(): void {
    if (this.#error !== undefined) return;
    this.#split(this.#work.subarray(0, this.#length), true);
    this.#length = 0;
    if (this.#error === undefined && this.#next < this.#announced.length)
      this.#fail(`head did not print ${JSON.stringify(this.#announced[this.#next])}`);
  }

  /** Reads records out of buf; returns where the unread rest starts. */
  #split(buf: Buffer, final: boolean): number {
    let pos = 0;
    for (;;) {
      if (this.#path === undefined) {
        const next = this.#record(buf, pos, final);
        if (next < 0) return next === -1 ? pos : buf.length;
        pos = next;
        continue;
      }
      const next = buf.indexOf(SEPARATOR, pos);
      if (next < 0 && !final) return pos;
      this.#bytes(buf, pos, next < 0 ? buf.length : next);
      if (next < 0 || this.#error !== undefined) return buf.length;
      pos = next;
    }
  }

  /** Reads the record at pos: the position after it (or its header), -1 to wait for more, -2 when done or failed. */
  #record(buf: Buffer, pos: number, final: boolean): number {
    const left = buf.length - pos;
    if (final && left === 0) return -2;
    if (left < MARKER_LINE.length) return final ? this.#fail('the output ends inside a record') : -1;
    if (matchAt(buf, pos, MARKER_LINE)) {
      this.#path = '';
      return pos + MARKER_LINE.length;
    }
    if (!matchAt(buf, pos, SEPARATOR)) return this.#fail('a record does not start with "==> "');
    const from = pos + SEPARATOR.length;
    const kind = buf[from];
    if (kind === OTHER || kind === REGULAR) {
      let end = from + 1;
      while (end < buf.length && buf[end] !== 0) end++;
      if (end === buf.length) return left > MAX_PATH || final ? this.#fail('a path does not end') : -1;
      const path = buf.toString('utf8', from + 1, end);
      if (kind === OTHER) this.#entry(path, undefined, 0, 0);
      else {
        this.#announced.push(path);
        this.#bytesOf.push(end - from - 1);
      }
      return end + 1;
    }
    const expected = this.#announced[this.#next];
    if (expected === undefined) return this.#fail('head printed a file find did not announce');
    const end = from + this.#bytesOf[this.#next]!;
    if (left < end - pos + HEADER_END.length) return final ? this.#fail('a header does not end') : -1;
    // Byte by byte while the path is ASCII, else decoded.
    const same = sameText(buf, from, end, expected) || buf.toString('utf8', from, end) === expected;
    if (!same || !matchAt(buf, end, HEADER_END))
      return this.#fail(`head's header is not for ${JSON.stringify(expected)}`);
    this.#path = expected;
    if (++this.#next === this.#announced.length) {
      this.#announced = [];
      this.#bytesOf = [];
      this.#next = 0;
    }
    return end + HEADER_END.length;
  }

  /** A file's bytes are buf[from, to), or a marker's (none). */
  #bytes(buf: Buffer, from: number, to: number): void {
    const path = this.#path!;
    this.#path = undefined;
    const stop = endsWith(buf, from, to, MARKER_LINE) ? to - MARKER_LINE.length : to;
    if (path === '') {
      if (stop > from) this.#fail('bytes after a head run marker');
      return;
    }
    this.#entry(path, buf, from, stop);
  }

  /** Hands on `./<folder>/<name>`. */
  #entry(path: string, buf: Buffer | undefined, from: number, to: number): void {
    const slash = path.lastIndexOf('/');
    const same = slash === this.#folder.length + 2 && path.startsWith(this.#folder, 2);
    if (!same) this.#folder = path.slice(2, slash);
    this.#onFile(this.#folder, path.slice(slash + 1), buf, from, to);
  }

  #fail(why: string): -2 {
    this.#error = why;
    return -2;
  }
}
