// The console log's task-start line, 'Running [setscene |noexec ]task N of M (tid)' after the
// 'NOTE: ' level, read in place: on a decoded line, or inside a chunk of the log decoded as
// latin1 by the bulk reader (consolelog.ts), where the line itself is never made. It accepts
// exactly what /^Running (?:(setscene|noexec) )?task (\d+) of (\d+) \((.+)\)$/ accepts;
// test/records/console-task-run.test.ts holds the two side by side.
//
// Why by hand: in a log that is 40 % task starts, the expression's match array, its four
// capture strings and the copy of each line cost more than the rest of the read together.

import { latin1 } from './lines.js';

export type TaskRunMode = 'normal' | 'setscene' | 'noexec';

export interface TaskRunEvent {
  kind: 'task-run';
  mode: TaskRunMode;
  index: number;
  total: number;
  tid: string;
  lineNo: number;
}

// What `.` refuses besides '\n', which no line holds.
const NOT_DOT = /[\r\u2028\u2029]/;
const ZERO = 48;
const NINE = 57;
const BLANK = 32;
const OPEN = 40;
const CLOSE = 41;
const LOWER_S = 115;
const LOWER_N = 110;

/**
 * Reads `text[from, to)` as a task start; undefined when it is not one. The tid is a slice of
 * `text`, or, given `bytes` (an ASCII chunk `text` was decoded from), a copy of them: a kept
 * event then does not keep the whole chunk alive. `running`: the caller already found
 * 'Running ' at `from` (the bulk reader's needle search), not tested again.
 *   'Running setscene task 11 of 12 (/l/zlib_1.3.1.bb:do_package_setscene)' → setscene, 11, 12, tid
 */
export function readTaskRun(
  text: string,
  from: number,
  to: number,
  lineNo: number,
  bytes?: Buffer,
  running = false,
): TaskRunEvent | undefined {
  if (!running && !text.startsWith('Running ', from)) return undefined;
  let i = from + 8;
  let mode: TaskRunMode = 'normal';
  // The literals hold no newline, so none of them can match past the line's end. Their first
  // letter is tested first: most task starts are normal, and their lines skip both calls.
  const c = text.charCodeAt(i);
  if (c === LOWER_S && text.startsWith('setscene ', i)) {
    mode = 'setscene';
    i += 9;
  } else if (c === LOWER_N && text.startsWith('noexec ', i)) {
    mode = 'noexec';
    i += 7;
  }
  if (!text.startsWith('task ', i)) return undefined;
  const indexFrom = i + 5;
  const indexTo = readNumber(text, indexFrom, to);
  const index = numberRead;
  if (indexTo === indexFrom || !text.startsWith(' of ', indexTo)) return undefined;
  const totalFrom = indexTo + 4;
  const totalTo = readNumber(text, totalFrom, to);
  const total = numberRead;
  // ' (' then at least one character, and ')' last.
  if (totalTo === totalFrom || totalTo + 3 >= to) return undefined;
  if (text.charCodeAt(totalTo) !== BLANK || text.charCodeAt(totalTo + 1) !== OPEN) return undefined;
  if (text.charCodeAt(to - 1) !== CLOSE) return undefined;
  const tid = bytes === undefined ? text.slice(totalTo + 2, to - 1) : latin1(bytes, totalTo + 2, to - 1);
  // Bytes given are ASCII, where only '\r' is not a `.`.
  if (bytes === undefined ? NOT_DOT.test(tid) : tid.includes('\r')) return undefined;
  return { kind: 'task-run', mode, index, total, tid, lineNo };
}

/** The number readNumber read last: a second result without an object per call. */
let numberRead = 0;

/**
 * Reads the digits from `from` (before `to`) into numberRead and returns where they end. Summed
 * digit by digit while that is exact (below 2^53); longer runs as Number() rounds them.
 */
function readNumber(text: string, from: number, to: number): number {
  let i = from;
  let n = 0;
  for (let c = text.charCodeAt(i); i < to && c >= ZERO && c <= NINE; c = text.charCodeAt(++i))
    n = n * 10 + c - ZERO;
  numberRead = i - from > 15 ? Number(text.slice(from, i)) : n;
  return i;
}
