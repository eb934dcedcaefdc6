// The parser of one buildstats task file (meta/classes-global/buildstats.bbclass), pure. A task
// file grows in two writes: the first two lines when the task starts, the rest when it ends,
// so a file with only `Event:`/`Started:` is a task still running (or a failed setscene task).
// Several lines end in a blank ("Started: 1764512345.67 "): values are trimmed.
//
// A big build has 50,000 of these files, so the parser reads bytes. The lines BitBake writes
// are read in one pass each (buildstats-line.ts), the `<PF>: <task>` line too when it names the
// folder and file read; any other line (a PF or task that differs, a blank, an odd number) goes
// through the generic path here: trimmed, key compared in place,
// numbers read digit by digit. Strings are made only for what is kept as text (a PF or task
// name that differs from the folder's, unknown keys, skipped lines). Only the `IO`/`rusage`
// keys rambake reads are kept; every line is still checked.

import { fastLine, isBlank, pfLine, same, sameText } from './buildstats-line.js';

export type TaskStatus = 'PASSED' | 'FAILED';

export interface BuildstatsTask {
  pf: string;
  /** `do_x` without `_setscene`. */
  task: string;
  setscene: boolean;
  /** Epoch seconds. */
  started?: number;
  ended?: number;
  /** Seconds, as BitBake measured them. */
  elapsed?: number;
  status?: TaskStatus;
  /** Clock ticks from /proc/<pid>/stat. */
  utime?: number;
  stime?: number;
  cutime?: number;
  cstime?: number;
  // The `IO x:` and `[Child ]rusage x:` keys rambake reads, as fields of the record itself: with
  // three nested objects per record a new process read 50,000 files in 766 ms, with none 717
  // (medians of 8 alternating runs, 12-07). Other such lines are checked, not kept.
  /** /proc/<pid>/io `wchar` and `write_bytes`. */
  wchar?: number;
  writeBytes?: number;
  /** getrusage(RUSAGE_SELF) `ru_utime`, `ru_stime` (seconds) and `ru_maxrss` (KiB). */
  ruUtime?: number;
  ruStime?: number;
  ruMaxrss?: number;
  /** getrusage(RUSAGE_CHILDREN): the same three. */
  childRuUtime?: number;
  childRuStime?: number;
  childRuMaxrss?: number;
  /** `Key: value` lines this parser does not know, kept as text. */
  other: Record<string, string>;
  /** The task finished: a Status or Ended line is present. */
  complete: boolean;
  /** Lines that are not `key: value`, for diagnostics. */
  skipped: string[];
}

/** The record's fields that `IO x:` and `[Child ]rusage x:` lines fill. */
type UsageField =
  | 'wchar'
  | 'writeBytes'
  | 'ruUtime'
  | 'ruStime'
  | 'ruMaxrss'
  | 'childRuUtime'
  | 'childRuStime'
  | 'childRuMaxrss';

const SETSCENE = '_setscene';

/** Splits `do_package_setscene` into `{ task: 'do_package', setscene: true }`. */
export function splitTaskName(name: string): { task: string; setscene: boolean } {
  return name.endsWith(SETSCENE)
    ? { task: name.slice(0, -SETSCENE.length), setscene: true }
    : { task: name, setscene: false };
}

// The split names of the task files read so far: a build has a few dozen task names and 50,000
// files, so the records share their task strings instead of holding one each (12-05: 50,000
// records kept 26 MB, 1.6 MB of it task names). Bounded: a folder of odd names cannot grow it.
const TASK_NAMES = new Map<string, { task: string; setscene: boolean }>();
const MAX_TASK_NAMES = 1000;

function knownTaskName(name: string): { task: string; setscene: boolean } {
  let named = TASK_NAMES.get(name);
  if (named === undefined) {
    named = splitTaskName(name);
    if (TASK_NAMES.size < MAX_TASK_NAMES) TASK_NAMES.set(name, named);
  }
  return named;
}

/**
 * Parses one task file. `where` is the PF folder and file name, needed because a running
 * task's file does not name them yet.
 *   'Child rusage ru_maxrss: 51200 ' → childRusage.ru_maxrss = 51200
 *   'zlib-1.3.1-r0: do_compile'      → pf 'zlib-1.3.1-r0', task 'do_compile'
 */
export function parseBuildstatsTask(text: string, where?: { pf: string; taskFile: string }): BuildstatsTask {
  const bytes = Buffer.from(text, 'utf8');
  return parseBuildstatsBytes(bytes, bytes.length, where);
}

const ascii = (s: string): Uint8Array => Buffer.from(s, 'latin1');
const K = {
  event: ascii('Event'),
  started: ascii('Started'),
  ended: ascii('Ended'),
  elapsed: ascii('Elapsed time'),
  status: ascii('Status'),
  io: ascii('IO '),
  rusage: ascii('rusage '),
  child: ascii('Child rusage '),
  seconds: ascii('seconds'),
  passed: ascii('PASSED'),
  failed: ascii('FAILED'),
  doPrefix: ascii('do_'),
};
const TIMES = (['utime', 'stime', 'cutime', 'cstime'] as const).map((key) => [key, ascii(key)] as const);
const IO_FIELDS = [
  ['wchar', ascii('wchar')],
  ['writeBytes', ascii('write_bytes')],
] as const;
const RUSAGE_FIELDS = [
  ['ruUtime', ascii('ru_utime')],
  ['ruStime', ascii('ru_stime')],
  ['ruMaxrss', ascii('ru_maxrss')],
] as const;
const CHILD_FIELDS = [
  ['childRuUtime', ascii('ru_utime')],
  ['childRuStime', ascii('ru_stime')],
  ['childRuMaxrss', ascii('ru_maxrss')],
] as const;

// Shared by the records that have no unknown key and no skipped line (nearly all): two objects
// fewer per record. Frozen: a record's own are made on the first write.
const NO_OTHER: Record<string, string> = Object.freeze({});
const NO_SKIPPED: string[] = Object.freeze([]) as unknown as string[];

/** The same as parseBuildstatsTask, on `buf[offset, length)` (a reused read buffer). */
export function parseBuildstatsBytes(
  buf: Uint8Array,
  length: number,
  where?: { pf: string; taskFile: string },
  offset = 0,
): BuildstatsTask {
  const named = knownTaskName(where?.taskFile ?? '');
  // Every field is in the literal, so that all 50,000 records share one shape and keep their
  // fields in the object (optional ones added later make a new shape and a second store).
  const record: BuildstatsTask = {
    pf: where?.pf ?? '',
    task: named.task,
    setscene: named.setscene,
    started: undefined,
    ended: undefined,
    elapsed: undefined,
    status: undefined,
    utime: undefined,
    stime: undefined,
    cutime: undefined,
    cstime: undefined,
    wchar: undefined,
    writeBytes: undefined,
    ruUtime: undefined,
    ruStime: undefined,
    ruMaxrss: undefined,
    childRuUtime: undefined,
    childRuStime: undefined,
    childRuMaxrss: undefined,
    other: NO_OTHER,
    complete: false,
    skipped: NO_SKIPPED,
  };
  for (let start = offset; start < length; ) {
    const next = fastLine(record, buf, start, length);
    if (next >= 0) {
      start = next;
      continue;
    }
    const named = where === undefined ? -1 : pfLine(buf, start, length, where.pf, where.taskFile);
    if (named >= 0) {
      start = named;
      continue;
    }
    let end = start;
    while (end < length && buf[end] !== 10) end++;
    let from = start;
    let to = end;
    while (from < to && isBlank(buf[from]!)) from++;
    while (to > from && isBlank(buf[to - 1]!)) to--;
    if (from < to && !applyLine(record, buf, from, to, where?.taskFile)) {
      if (record.skipped === NO_SKIPPED) record.skipped = [];
      record.skipped.push(Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('utf8'));
    }
    start = end + 1;
  }
  return record;
}

const startsWith = (buf: Uint8Array, from: number, to: number, lit: Uint8Array): boolean =>
  to - from >= lit.length && same(buf, from, from + lit.length, lit);
const text = (buf: Uint8Array, from: number, to: number): string =>
  Buffer.from(buf.buffer, buf.byteOffset + from, to - from).toString('utf8');

/** `buf[from, to)` is a trimmed, non-empty line: `key: value` (or `key:`). */
function applyLine(r: BuildstatsTask, buf: Uint8Array, from: number, to: number, taskFile?: string): boolean {
  let keyEnd = from;
  while (keyEnd < to - 1 && !(buf[keyEnd] === 58 && buf[keyEnd + 1] === 32)) keyEnd++;
  let valueFrom = keyEnd + 2;
  if (keyEnd >= to - 1) {
    if (buf[to - 1] !== 58) return false; // no ': ' and no final ':'
    keyEnd = to - 1;
    valueFrom = to;
  }
  while (valueFrom < to && isBlank(buf[valueFrom]!)) valueFrom++;
  if (keyEnd === from) return false;
  if (startsWith(buf, from, keyEnd, K.io)) return setIn(r, IO_FIELDS, buf, from + 3, keyEnd, valueFrom, to);
  if (startsWith(buf, from, keyEnd, K.rusage))
    return setIn(r, RUSAGE_FIELDS, buf, from + 7, keyEnd, valueFrom, to);
  if (startsWith(buf, from, keyEnd, K.child))
    return setIn(r, CHILD_FIELDS, buf, from + 13, keyEnd, valueFrom, to);
  let n: number;
  if (same(buf, from, keyEnd, K.event)) return valueFrom < to;
  if (same(buf, from, keyEnd, K.started)) {
    n = readNumber(buf, valueFrom, to);
    if (Number.isNaN(n)) return false;
    r.started = n;
    return true;
  }
  if (same(buf, from, keyEnd, K.ended)) {
    r.complete = true;
    n = readNumber(buf, valueFrom, to);
    if (Number.isNaN(n)) return false;
    r.ended = n;
    return true;
  }
  if (same(buf, from, keyEnd, K.elapsed)) {
    // 'Elapsed time: 12.34 seconds'
    let numberEnd = to;
    if (to - valueFrom >= K.seconds.length && same(buf, to - K.seconds.length, to, K.seconds)) {
      numberEnd = to - K.seconds.length;
      while (numberEnd > valueFrom && isBlank(buf[numberEnd - 1]!)) numberEnd--;
    }
    n = readNumber(buf, valueFrom, numberEnd);
    if (Number.isNaN(n)) return false;
    r.elapsed = n;
    return true;
  }
  if (same(buf, from, keyEnd, K.status)) {
    if (same(buf, valueFrom, to, K.passed)) r.status = 'PASSED';
    else if (same(buf, valueFrom, to, K.failed)) r.status = 'FAILED';
    else return false;
    r.complete = true;
    return true;
  }
  for (const [key, bytes] of TIMES) {
    if (!same(buf, from, keyEnd, bytes)) continue;
    n = readNumber(buf, valueFrom, to);
    if (Number.isNaN(n)) return false;
    r[key] = n;
    return true;
  }
  return applyOther(r, buf, from, keyEnd, valueFrom, to, taskFile);
}

/** The `<PF>: do_x` line, or a key this parser does not know. */
function applyOther(
  r: BuildstatsTask,
  buf: Uint8Array,
  from: number,
  keyEnd: number,
  valueFrom: number,
  to: number,
  taskFile?: string,
): boolean {
  let keyBlank = false;
  for (let i = from; i < keyEnd && !keyBlank; i++) keyBlank = buf[i] === 32;
  let valueBlank = false;
  for (let i = valueFrom; i < to && !valueBlank; i++) valueBlank = buf[i] === 32;
  if (!keyBlank && !valueBlank && startsWith(buf, valueFrom, to, K.doPrefix)) {
    // Usually the folder's PF and the file's name: those strings are reused.
    if (!isText(buf, from, keyEnd, r.pf)) r.pf = text(buf, from, keyEnd);
    if (taskFile === undefined || !isText(buf, valueFrom, to, taskFile)) {
      const named = splitTaskName(text(buf, valueFrom, to));
      r.task = named.task;
      r.setscene = named.setscene;
    }
    return true;
  }
  const key = text(buf, from, keyEnd);
  if (/^[A-Za-z][\w ]*$/.test(key)) {
    if (r.other === NO_OTHER) r.other = {};
    r.other[key] = text(buf, valueFrom, to);
    return true;
  }
  return false;
}

/** buf[from, to) holds exactly the ASCII string s. */
const isText = (buf: Uint8Array, from: number, to: number, s: string): boolean =>
  to - from === s.length && sameText(buf, from, s);

function setIn(
  into: BuildstatsTask,
  keys: readonly (readonly [UsageField, Uint8Array])[],
  buf: Uint8Array,
  keyFrom: number,
  keyEnd: number,
  from: number,
  to: number,
): boolean {
  const n = readNumber(buf, from, to);
  if (Number.isNaN(n)) return false;
  for (const [key, bytes] of keys) if (same(buf, keyFrom, keyEnd, bytes)) into[key] = n;
  return true;
}

/**
 * A finite number in `buf[from, to)`, NaN otherwise. `digits[.digits]` of up to 15 digits is
 * read without a string: the integer of all its digits divided by a power of ten is one
 * correctly rounded division, the same double as Number() gives. Anything else goes to Number().
 */
function readNumber(buf: Uint8Array, from: number, to: number): number {
  if (from >= to) return Number.NaN;
  let n = 0;
  let scale = 1;
  let dot = false;
  let digits = 0;
  for (let i = from; i < to; i++) {
    const c = buf[i]!;
    if (c >= 48 && c <= 57) {
      n = n * 10 + c - 48;
      digits++;
      if (dot) scale *= 10;
    } else if (c === 46 && !dot && digits > 0 && i + 1 < to) dot = true;
    else return slowNumber(buf, from, to);
  }
  if (digits > 15) return slowNumber(buf, from, to);
  return scale === 1 ? n : n / scale;
}

function slowNumber(buf: Uint8Array, from: number, to: number): number {
  const n = Number(text(buf, from, to));
  return Number.isFinite(n) ? n : Number.NaN;
}
