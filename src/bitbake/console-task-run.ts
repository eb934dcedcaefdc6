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

/**
 * Reads `text[from, to)` as a task start; undefined when it is not one. The tid is a slice of
 * `text`, or, given `bytes` (an ASCII chunk `text` was decoded from), a copy of them: a kept
 * event then does not keep the whole chunk alive.
 *   'Running setscene task 11 of 12 (/l/zlib_1.3.1.bb:do_package_setscene)' → setscene, 11, 12, tid
 */
export function readTaskRun(
  text: string,
  from: number,
  to: number,
  lineNo: number,
  bytes?: Buffer,
): TaskRunEvent | undefined {
  if (!at(text, from, 'Running ')) return undefined;
  let i = from + 8;
  let mode: TaskRunMode = 'normal';
  // The literals hold no newline, so none of them can match past the line's end.
  if (at(text, i, 'setscene ')) {
    mode = 'setscene';
    i += 9;
  } else if (at(text, i, 'noexec ')) {
    mode = 'noexec';
    i += 7;
  }
  if (!at(text, i, 'task ')) return undefined;
  const indexFrom = i + 5;
  const indexTo = digitsEnd(text, indexFrom, to);
  if (indexTo === indexFrom || !at(text, indexTo, ' of ')) return undefined;
  const totalFrom = indexTo + 4;
  const totalTo = digitsEnd(text, totalFrom, to);
  // ' (' then at least one character, and ')' last.
  if (totalTo === totalFrom || totalTo + 3 >= to) return undefined;
  if (text.charCodeAt(totalTo) !== BLANK || text.charCodeAt(totalTo + 1) !== OPEN) return undefined;
  if (text.charCodeAt(to - 1) !== CLOSE) return undefined;
  const tid = bytes === undefined ? text.slice(totalTo + 2, to - 1) : latin1(bytes, totalTo + 2, to - 1);
  // Bytes given are ASCII, where only '\r' is not a `.`.
  if (bytes === undefined ? NOT_DOT.test(tid) : tid.includes('\r')) return undefined;
  const index = digits(text, indexFrom, indexTo);
  const total = digits(text, totalFrom, totalTo);
  return { kind: 'task-run', mode, index, total, tid, lineNo };
}

// `lit` at `text[i]`: compared in place (startsWith is a call that TurboFan does not inline).
function at(text: string, i: number, lit: string): boolean {
  for (let k = 0; k < lit.length; k++) if (text.charCodeAt(i + k) !== lit.charCodeAt(k)) return false;
  return true;
}

function digitsEnd(text: string, from: number, to: number): number {
  let i = from;
  for (let c = text.charCodeAt(i); i < to && c >= ZERO && c <= NINE; c = text.charCodeAt(++i));
  return i;
}

// Summed digit by digit while that is exact (below 2^53); longer runs as Number() rounds them.
function digits(text: string, from: number, to: number): number {
  if (to - from > 15) return Number(text.slice(from, to));
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + text.charCodeAt(i) - ZERO;
  return n;
}
