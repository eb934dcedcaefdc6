// The cooker console log (`${LOG_DIR}/cooker/${MACHINE}/<DATETIME>.log`) as typed events.
// Traps handled here: progress text written without a newline lands in front of the next
// message ("Initialising tasks...Sstate summary: …", "…done.NOTE: Executing Tasks"), so
// markers are searched anywhere in a line; in the `Build Configuration:` block a layer that
// shares its branch:revision with the next layer is printed as a bare name, and takes the
// value of the next layer line that has one.

import { isAscii } from 'node:buffer';
import { closeSync, read } from 'node:fs';
import { openCheckedSync } from '../system/read-file.js';
import { readTaskRun, type TaskRunEvent } from './console-task-run.js';
import { LineSplitter, latin1, type ReadLinesOptions, type ReadLinesResult } from './lines.js';

export type LogLevel = 'DEBUG' | 'NOTE' | 'WARNING' | 'ERROR' | 'CRITICAL';

interface At {
  /** 1-based line number in the log. */
  lineNo: number;
  /** Progress text that had no newline and so stands in front of this event on its line. */
  progress?: string;
}

/** `Sstate summary: Wanted 42 Local 40 Mirrors 0 Missed 2 Current 100 (95% match, 98% complete)` */
export interface SstateSummary {
  wanted: number;
  local: number;
  mirrors: number;
  missed: number;
  current: number;
  matchPercent: number;
  completePercent: number;
}

export type ConsoleEvent = At &
  (
    | Omit<TaskRunEvent, 'lineNo'>
    | { kind: 'recipe-task'; pf: string; task: string; state: 'Started' | 'Succeeded' | 'Failed' }
    | { kind: 'setscene-completed' }
    | ({ kind: 'sstate-summary' } & SstateSummary)
    | { kind: 'tasks-summary'; attempted: number; notRerun: number; failed: number }
    | { kind: 'failure-logfile'; path: string }
    | { kind: 'task-failed'; tid: string; exitCode: number }
    | { kind: 'setscene-failed'; tid: string; exitCode: number }
    | { kind: 'build-config'; name: string; value: string }
    | { kind: 'layer'; name: string; branch: string; revision: string }
    /** Any other `LEVEL: text`; `pf`/`task` when a task wrote it (`<PF> <do_x>: text`). */
    | { kind: 'message'; level: LogLevel; text: string; pf?: string; task?: string }
    /** A line with no level: headers, plain task output. */
    | { kind: 'text'; text: string }
  );

export type ConsoleEventKind = ConsoleEvent['kind'];

// 'NOTE: recipe zlib-1.3.1-r0: task do_compile: Succeeded' → pf, do_compile, Succeeded
const RECIPE_TASK = /^recipe (\S+): task (do_\S+): (Started|Succeeded|Failed)$/;
// 'Sstate summary: Wanted 42 Local 3 Mirrors 0 Missed 39 Current 7 (7% match, 20% complete)'
const SSTATE =
  /Sstate summary: Wanted (\d+) Local (\d+) Mirrors (\d+) Missed (\d+) Current (\d+) \(([\d.]+)% match, ([\d.]+)% complete\)/;
// "Tasks Summary: Attempted 30 tasks of which 25 didn't need to be rerun and 1 failed."
const TASKS_SUMMARY =
  /^Tasks Summary: Attempted (\d+) tasks of which (\d+) didn't need to be rerun and (?:all succeeded|(\d+) failed)\.?$/;
// "Task (/l/zlib_1.3.1.bb:do_compile) failed with exit code '1'"
const TASK_FAILED = /^Task \((.+)\) failed with exit code '(-?\d+)'$/;
// "Setscene task (/l/zlib_1.3.1.bb:do_package_setscene) failed with exit code '1' - real task will be run instead"
const SETSCENE_FAILED = /^Setscene task \((.+)\) failed with exit code '(-?\d+)'/;
// 'zlib-1.3.1-r0 do_compile: oe_runmake failed' → pf, task, text
const FROM_TASK = /^(\S+) (do_\w+): ([\s\S]*)$/;
// 'MACHINE              = "qemux86-64"' → name, value; 'meta                 ' → bare layer name
const CONFIG_LINE = /^(\S+)\s*(?:= "(.*)")?\s*$/;
// 'NOTE: text' or 'Initialising tasks...done.NOTE: text' — the level marker at the start or
// right after progress text; not after a blank, so a failed task's log dump
// ('| DEBUG: Executing shell function do_compile') stays plain text.
const LEVEL_MARKER = /(?:^|[^\s\w|])(DEBUG|NOTE|WARNING|ERROR|CRITICAL): /;

/**
 * Stateful line-by-line parser: feed lines in order with `push`, call `end` at the end of the
 * file (it flushes layer names still waiting for a value).
 */
export class ConsoleLogParser {
  private lineNo = 0;
  private inConfig = false;
  private pendingLayers: { name: string; lineNo: number }[] = [];

  /** Inside the `Build Configuration:` block every line counts, whatever it holds. */
  get inBlock(): boolean {
    return this.inConfig;
  }

  /** Lines passed over unread (they cannot give a wanted event): numbering goes on after them. */
  skip(lines: number): number {
    this.lineNo += lines;
    return this.lineNo;
  }

  push(line: string, onEvent: (event: ConsoleEvent) => void): void {
    const lineNo = ++this.lineNo;
    if (this.inConfig) {
      if (this.pushConfigLine(line, lineNo, onEvent)) return;
    } else if (line.endsWith('Build Configuration:')) {
      this.inConfig = true;
      return;
    }
    onEvent(parseConsoleLine(line, lineNo));
  }

  end(onEvent: (event: ConsoleEvent) => void): void {
    this.flushLayers('', '', onEvent);
    this.inConfig = false;
  }

  // True when the line belonged to the block. The block ends at its first blank line.
  private pushConfigLine(line: string, lineNo: number, onEvent: (event: ConsoleEvent) => void): boolean {
    const m = line.trim() === '' ? null : CONFIG_LINE.exec(line);
    if (!m) {
      this.end(onEvent);
      return line.trim() === '';
    }
    const name = m[1]!;
    const value = m[2];
    if (/^[A-Z][A-Z0-9_]*$/.test(name)) {
      if (value === undefined) return false;
      onEvent({ kind: 'build-config', name, value, lineNo });
      return true;
    }
    if (value === undefined) {
      this.pendingLayers.push({ name, lineNo });
      return true;
    }
    // Git branch names cannot hold ':', so the first ':' separates branch and revision.
    const colon = value.indexOf(':');
    const branch = colon < 0 ? value : value.slice(0, colon);
    const revision = colon < 0 ? '' : value.slice(colon + 1);
    this.flushLayers(branch, revision, onEvent);
    onEvent({ kind: 'layer', name, branch, revision, lineNo });
    return true;
  }

  private flushLayers(branch: string, revision: string, onEvent: (event: ConsoleEvent) => void): void {
    for (const { name, lineNo } of this.pendingLayers)
      onEvent({ kind: 'layer', name, branch, revision, lineNo });
    this.pendingLayers = [];
  }
}

/**
 * Classifies one line outside the Build Configuration block (that block needs the state kept
 * by ConsoleLogParser). Every line gives exactly one event; unknown lines are `text`.
 */
export function parseConsoleLine(line: string, lineNo = 1): ConsoleEvent {
  // The summary is printed without a level and often after progress text on the same line.
  const sstateAt = line.indexOf('Sstate summary:');
  if (sstateAt >= 0) {
    const m = SSTATE.exec(line.slice(sstateAt));
    if (m) {
      const [wanted, local, mirrors, missed, current, match, complete] = m.slice(1).map(Number) as number[];
      const event: ConsoleEvent = {
        kind: 'sstate-summary',
        wanted: wanted!,
        local: local!,
        mirrors: mirrors!,
        missed: missed!,
        current: current!,
        matchPercent: match!,
        completePercent: complete!,
        lineNo,
      };
      // A NOTE: level may precede it; anything else in front is progress text.
      const before = line.slice(0, sstateAt).replace(/NOTE: $/, '');
      if (before !== '') event.progress = before;
      return event;
    }
  }
  // Most lines start with their level: a prefix test instead of the marker search.
  const level = levelAtStart(line);
  if (level !== undefined) return classifyMessage(level, line.slice(level.length + 2), lineNo);
  const marker = line.includes(': ') ? LEVEL_MARKER.exec(line) : null;
  if (!marker) {
    return { kind: 'text', text: line, lineNo };
  }
  const marked = marker[1] as LogLevel;
  const text = line.slice(marker.index + marker[0].length);
  const progress = line.slice(0, marker.index + marker[0].length - marker[1]!.length - 2);
  const event = classifyMessage(marked, text, lineNo);
  if (progress !== '') event.progress = progress;
  return event;
}

// The level a line starts with ('NOTE: …'): where LEVEL_MARKER's leftmost match would be.
function levelAtStart(line: string): LogLevel | undefined {
  switch (line.charCodeAt(0)) {
    case 78: // N
      return line.startsWith('NOTE: ') ? 'NOTE' : undefined;
    case 87: // W
      return line.startsWith('WARNING: ') ? 'WARNING' : undefined;
    case 69: // E
      return line.startsWith('ERROR: ') ? 'ERROR' : undefined;
    case 68: // D
      return line.startsWith('DEBUG: ') ? 'DEBUG' : undefined;
    case 67: // C
      return line.startsWith('CRITICAL: ') ? 'CRITICAL' : undefined;
    default:
      return undefined;
  }
}

function classifyMessage(level: LogLevel, text: string, lineNo: number): ConsoleEvent {
  let m: RegExpExecArray | null = null;
  // Each NOTE form starts with its own letter: one expression tried per line, not four.
  if (level === 'NOTE') {
    switch (text.charCodeAt(0)) {
      case 82: {
        // R
        const run = readTaskRun(text, 0, text.length, lineNo);
        if (run) return run;
        break;
      }
      case 114: // r
        m = RECIPE_TASK.exec(text);
        if (m) {
          const state = m[3] as 'Started' | 'Succeeded' | 'Failed';
          return { kind: 'recipe-task', pf: m[1]!, task: m[2]!, state, lineNo };
        }
        break;
      case 83: // S
        if (text === 'Setscene tasks completed') return { kind: 'setscene-completed', lineNo };
        break;
      case 84: // T
        m = TASKS_SUMMARY.exec(text);
        if (m) {
          const failed = m[3] === undefined ? 0 : Number(m[3]);
          return { kind: 'tasks-summary', attempted: Number(m[1]), notRerun: Number(m[2]), failed, lineNo };
        }
        break;
    }
  } else if (level === 'ERROR') {
    if (text.startsWith('Logfile of failure stored in: '))
      return {
        kind: 'failure-logfile',
        path: text.slice('Logfile of failure stored in: '.length).trim(),
        lineNo,
      };
    m = TASK_FAILED.exec(text);
    if (m) return { kind: 'task-failed', tid: m[1]!, exitCode: Number(m[2]), lineNo };
  } else if (level === 'WARNING') {
    m = SETSCENE_FAILED.exec(text);
    if (m) return { kind: 'setscene-failed', tid: m[1]!, exitCode: Number(m[2]), lineNo };
  }
  m = FROM_TASK.exec(text);
  if (m) return { kind: 'message', level, text: m[3]!, pf: m[1]!, task: m[2]!, lineNo };
  return { kind: 'message', level, text, lineNo };
}

/** All events of a log held in memory (tests, small logs); big logs go through `readConsoleLog`. */
export function parseConsoleLog(lines: Iterable<string>): ConsoleEvent[] {
  const events: ConsoleEvent[] = [];
  const parser = new ConsoleLogParser();
  const push = (e: ConsoleEvent) => {
    events.push(e);
  };
  for (const line of lines) parser.push(line, push);
  parser.end(push);
  return events;
}

export interface ReadConsoleLogOptions extends ReadLinesOptions {
  /** Only events of these kinds are wanted: lines that cannot give one are not even decoded. */
  kinds?: readonly ConsoleEventKind[];
}

/**
 * Streams a console log through the parser with constant memory; lines longer than
 * `maxLineBytes` (1 MiB by default) are skipped and counted, never buffered. With `kinds`,
 * only those events are given, the same as the full parse gives them.
 */
export async function readConsoleLog(
  path: string,
  onEvent: (event: ConsoleEvent) => void,
  options: ReadConsoleLogOptions = {},
): Promise<ReadLinesResult> {
  const parser = new ConsoleLogParser();
  const wanted = options.kinds && new Set<string>(options.kinds);
  const give = wanted
    ? (e: ConsoleEvent) => {
        if (wanted.has(e.kind)) onEvent(e);
      }
    : onEvent;
  const splitter = new LineSplitter(options);
  // No needles (every kind asked for, or one any line can give): every line is read. Even
  // then the chunk is decoded once and task starts are read in place: every event of a
  // 256 MiB log in 1,070 ms instead of the splitter's 1,200–1,250 (12-05).
  const needles = options.kinds && needlesOf(options.kinds);
  const lines = new NeedleLines(needles, splitter, parser);
  const onLine = (line: string) => parser.push(line, give);
  let bytes = 0;
  for await (const chunk of readAhead(path, options.chunkBytes ?? READ_AHEAD_BYTES)) {
    bytes += chunk.length;
    // Windows end after a newline where one is near, so that only a line across two reads is
    // carried (through the splitter's slow path) rather than one per window.
    for (let at = 0; at < chunk.length; ) {
      let end = Math.min(at + DECODE_BYTES, chunk.length);
      if (end < chunk.length) {
        const nl = chunk.lastIndexOf(NEWLINE, end - 1);
        if (nl >= at) end = nl + 1;
      }
      lines.push(chunk.subarray(at, end), onLine, give);
      at = end;
    }
  }
  splitter.end(onLine);
  parser.end(give);
  return { lines: splitter.lines, skippedLongLines: splitter.skippedLongLines, bytes, stopped: false };
}

/** Two buffers this size, reused: the peak RSS does not grow with them as a stream's chunks do. */
const READ_AHEAD_BYTES = 1024 * 1024;
/**
 * The needle search decodes this much at a time. A latin1 string over V8's largest young-space
 * object (128 KiB) is made in its own fresh pages, and on this 2-core VM their page faults cost
 * 2.8 ms per MiB decoded: 256 MiB of a log in 1,095 ms at 256 KiB, 1,326 ms at 128 KiB, 87 ms at
 * 120 KiB and 93 ms at 64 KiB (read, decode and find every newline, one process each, 12-05).
 */
const DECODE_BYTES = 64 * 1024;

/**
 * The file's bytes in chunks, each read in the thread pool while the previous one is parsed
 * (a stream waits for each read). The chunk given is overwritten by the read after the next.
 */
async function* readAhead(path: string, chunkBytes: number): AsyncGenerator<Buffer> {
  // A FIFO or a device (a console log linked to /dev/zero) is refused before it is opened.
  const fd = openCheckedSync(path);
  const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)];
  let position = 0;
  const readInto = (buf: Buffer) =>
    new Promise<number>((resolve, reject) =>
      read(fd, buf, 0, buf.length, position, (err, n) => (err ? reject(err) : resolve(n))),
    );
  let pending = readInto(buffers[0]!);
  try {
    for (let i = 0; ; i ^= 1) {
      const n = await pending;
      if (n === 0) return;
      position += n;
      pending = readInto(buffers[i ^ 1]!);
      yield buffers[i]!.subarray(0, n);
    }
  } finally {
    await pending.catch(() => 0);
    closeSync(fd);
  }
}

// What a line must hold to give an event of a kind: the marker and the start of its text as
// classifyMessage wants them (ASCII, so the same in the bytes and in the decoded line).
// message and text can come from any line: none.
const BLOCK_START = 'Build Configuration:';
const LEVEL_NOTE = 'NOTE: ';
const RUN_NEEDLE = `${LEVEL_NOTE}Running `;
const SSTATE_NEEDLE = 'Sstate summary:';
const NEEDLES: Partial<Record<ConsoleEventKind, string>> = {
  'task-run': RUN_NEEDLE,
  'recipe-task': 'NOTE: recipe ',
  'setscene-completed': 'NOTE: Setscene tasks completed',
  'sstate-summary': SSTATE_NEEDLE,
  'tasks-summary': 'NOTE: Tasks Summary: ',
  'failure-logfile': 'ERROR: Logfile of failure stored in: ',
  'task-failed': 'ERROR: Task (',
  'setscene-failed': 'WARNING: Setscene task (',
  'build-config': BLOCK_START,
  layer: BLOCK_START,
};

/** The strings to look for, or undefined when a wanted kind can come from any line. */
function needlesOf(kinds: readonly ConsoleEventKind[]): string[] | undefined {
  // The block's first line always: inside it lines mean something else (the parser's state).
  const found = new Set<string>([BLOCK_START]);
  for (const kind of kinds) {
    const needle = NEEDLES[kind];
    if (needle === undefined) return undefined;
    found.add(needle);
  }
  return [...found];
}

/**
 * Gives the splitter only the lines that hold a needle (every line inside the Build
 * Configuration block), found by searching a chunk's bytes once per needle; the others are
 * counted as the splitter and the parser would count them, never decoded. A task start at the
 * start of its line is read where it lies, without making the line.
 *
 * Speed, measured on the bench's log shape (272 MB, 2.98 M lines, 40 % task starts; 2-core
 * EPYC at load 3–4; wall time; `grep -c -E` on the task-start pattern: 0.81 s = 320 MiB/s):
 * - before: a stream of 64 KiB chunks, each line decoded, LEVEL_MARKER searched in every
 *   line: every event 3.75–3.96 s (66–69 MiB/s).
 * - the level tested as a prefix, one NOTE expression chosen by the text's first letter:
 *   task-start lines parsed 1.80 → 1.65 s CPU.
 * - RUNNING matched by hand (startsWith/charCodeAt, no match array): 1.65 → 2.14 s, slower
 *   than irregexp (startsWith is a call in V8): dropped.
 * - these needles, searched with Buffer.indexOf per line: task starts only 3.4 s; the chunk
 *   searched as one latin1 string (a string's indexOf is inlined): 2.4 s; a candidate line
 *   decoded by one latin1 toString when the chunk is ASCII instead of the splitter's Buffer
 *   views: −6 %; two reused 256 KiB buffers with the next read in the thread pool while a
 *   chunk is parsed (a stream waits for each): now every event 3.2–3.3 s (78–81 MiB/s), task
 *   starts only 1.87–1.97 s (132–139 MiB/s), churn's three kinds 0.81–0.85 s (307–321 MiB/s).
 * - rejected: the whole chunk decoded once and lines cut as slices of it (the split alone
 *   0.95 → 0.31 s): V8 slices keep their parent string, so a kept event would keep its 256 KiB
 *   chunk alive.
 * - the floor in JS was measured as 0.54 s of CPU to read, decode and find the newlines, and
 *   a log that is 40 % task starts was thought too slow to beat grep. Most of that floor was
 *   page faults (12-05, 256 MiB, grep -c -E 0.61 s): a latin1 string over 128 KiB is made in
 *   fresh pages, 2.8 ms per MiB here; decoding 64 KiB windows of 1 MiB reads took task starts
 *   from 1,680 to 650 ms. Then: jumping from needle to needle, only counting the lines between
 *   (not testing each line), 546 ms; a task start read in place from the chunk by
 *   console-task-run.ts, its tid the only string made, 530 ms; that string made by Buffer's
 *   own latin1 decoder, 490–500 ms (everything else as above, every event 1.2 s, churn's three
 *   kinds 0.89 s).
 * - 12-07, 520 MB of the bench's log, task starts only, medians of 8 alternating runs, grep -c
 *   -E 1.11 s: 1,007–1,040 ms before; the summary's needle checked in the tid, the only free
 *   text of a task start, instead of searched for in every chunk: 942; each number read in one
 *   pass and the literals compared by startsWith: 819; the task-start needle's search result
 *   trusted instead of testing the line again: 676–694 ms (0.78–0.83 s as a whole process).
 */
class NeedleLines {
  /** The strings a line must hold to be read (none when every line is). */
  private readonly needles: string[];
  /** Where each needle is next found in the current chunk (Infinity: not in the rest of it). */
  private readonly next: number[];
  private readonly everyLine: boolean;
  /** Task starts are wanted: read in place. */
  private readonly runs: boolean;
  /** The task-start needle's place in `needles` (-1 when every line is read). */
  private readonly runNeedle: number;
  /** The last chunk ended inside a line, which the splitter holds. */
  private carry = false;

  constructor(
    needles: string[] | undefined,
    private readonly splitter: LineSplitter,
    private readonly parser: ConsoleLogParser,
  ) {
    this.everyLine = needles === undefined;
    this.needles = needles ?? [];
    this.runs = needles === undefined || needles.includes(RUN_NEEDLE);
    this.runNeedle = this.needles.indexOf(RUN_NEEDLE);
    this.next = this.needles.map(() => -1);
  }

  push(chunk: Buffer, onLine: (line: string) => void, onEvent: (event: ConsoleEvent) => void): void {
    const { splitter, parser } = this;
    let start = 0;
    if (this.carry) {
      // The held line ends here; a needle may straddle the two chunks, so it goes whole.
      const nl = chunk.indexOf(NEWLINE);
      if (nl < 0) {
        splitter.push(chunk, onLine);
        return;
      }
      splitter.push(chunk.subarray(0, nl + 1), onLine);
      start = nl + 1;
    }
    // Searched as latin1 text, one char per byte: offsets are byte offsets, the needles are
    // ASCII, and a string's indexOf costs a fraction of a Buffer's per call.
    const text = chunk.toString('latin1');
    // All ASCII (nearly every chunk of a log): a line's latin1 decoding is its UTF-8 decoding.
    const ascii = isAscii(chunk);
    this.next.fill(-1);
    const max = splitter.maxLineBytes;
    for (let s = start; ; ) {
      // The nearest needle from here on; inside the block every line is read.
      const hit = parser.inBlock || this.everyLine ? s : this.nearest(text, s);
      let nl = text.indexOf('\n', s);
      // The lines before the one that holds it are only counted, as LineSplitter counts them:
      // a line over the cap is skipped, and not numbered by the parser.
      let lines = 0;
      let long = 0;
      while (nl >= 0 && nl < hit) {
        lines++;
        if (nl - s > max) long++;
        s = nl + 1;
        nl = text.indexOf('\n', s);
      }
      splitter.lines += lines;
      splitter.skippedLongLines += long;
      parser.skip(lines - long);
      if (nl < 0) {
        this.carry = s < chunk.length;
        if (this.carry) splitter.push(chunk.subarray(s), onLine);
        return;
      }
      if (!ascii) splitter.push(chunk.subarray(s, nl + 1), onLine);
      else {
        // What the splitter would do, without its Buffer views: a copy, not a slice of
        // `text`, so an event kept by the caller does not keep the whole chunk alive.
        splitter.lines++;
        const end = text.charCodeAt(nl - 1) === CARRIAGE_RETURN ? nl - 1 : nl;
        if (nl - s > max) splitter.skippedLongLines++;
        else if (!this.taskRun(chunk, text, s, end, onEvent)) onLine(latin1(chunk, s, end));
      }
      s = nl + 1;
    }
  }

  /**
   * A line that starts with the task-start needle, read where it lies in the chunk: the event
   * the parser would give, without making the line. False: the line goes to the parser.
   */
  private taskRun(
    chunk: Buffer,
    text: string,
    s: number,
    end: number,
    onEvent: (e: ConsoleEvent) => void,
  ): boolean {
    if (!this.runs || this.parser.inBlock) return false;
    // The search found the needle where the line starts, or every line is read.
    if (this.runNeedle >= 0 ? this.next[this.runNeedle] !== s : !text.startsWith(RUN_NEEDLE, s)) return false;
    const event = readTaskRun(text, s + LEVEL_NOTE.length, end, this.parser.skip(0) + 1, chunk, true);
    // The parser tests for the summary first, wherever it stands in the line: in a task start
    // only the tid can hold it (searching every window for it instead cost 130 ms of a 1 s read).
    if (event === undefined || event.tid.includes(SSTATE_NEEDLE)) return false;
    this.parser.skip(1);
    onEvent(event);
    return true;
  }

  /** Where the first needle from `from` on starts (Infinity: none in the rest of the chunk). */
  private nearest(text: string, from: number): number {
    let first = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.needles.length; i++) {
      let at = this.next[i]!;
      if (at < from) {
        at = text.indexOf(this.needles[i]!, from);
        if (at < 0) at = Number.POSITIVE_INFINITY;
        this.next[i] = at;
      }
      if (at < first) first = at;
    }
    return first;
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
