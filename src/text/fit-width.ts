// Fitting text to a terminal's width, pure. Used only when stdout is a terminal: piped output
// stays unwrapped so grep and awk see whole lines.
//
// A line from an aligned table (cells separated by runs of two or more spaces) wraps its last
// cell under itself, so the columns stay readable; prose wraps at spaces under its own indent;
// a word longer than the room (a long path) stays whole on its own line, for copying. Colour codes are dropped from a line that
// has to be fitted (measuring and cutting through escapes is not worth the risk of a broken
// escape on the screen); lines that fit keep theirs.

import { stripAnsi, visibleLength } from './format.js';

/** Below this many columns fitting makes things worse: print as is. */
const MIN_WIDTH = 20;

/** One logical line → the physical lines it takes at `width` columns. */
export function fitLine(line: string, width: number): string[] {
  if (width < MIN_WIDTH || visibleLength(line) <= width) return [line];
  const text = stripAnsi(line);
  const indent = /^ */.exec(text)![0].length;
  // The last cell of a table row: after the last run of 2+ spaces that follows text.
  const cell = /^(.*\S {2,})(\S.*)$/.exec(text);
  if (cell?.[1] && cell[2] && width - cell[1].length >= Math.min(30, width / 3)) {
    const under = ' '.repeat(cell[1].length);
    const rest = wrapWords(cell[2], width - cell[1].length);
    return rest.map((part, i) => (i === 0 ? cell[1] : under) + part);
  }
  const hanging = Math.min(indent + 2, Math.floor(width / 2));
  const first = wrapWords(text.slice(indent), width - indent);
  const head = first[0] ?? '';
  const tail = first.slice(1).join(' ');
  const out = [' '.repeat(indent) + head];
  if (tail !== '') for (const part of wrapWords(tail, width - hanging)) out.push(' '.repeat(hanging) + part);
  return out;
}

/** One physical line: cut with "…" (the live view redraws by rows, so a line must not wrap). */
export function truncateLine(line: string, width: number): string {
  if (width < MIN_WIDTH || visibleLength(line) <= width) return line;
  return `${stripAnsi(line).slice(0, width - 1)}…`;
}

/** Words → lines of at most `room` characters, but for a single word longer than that. */
function wrapWords(text: string, room: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/ +/)) {
    if (current === '') current = word;
    else if (current.length + 1 + word.length <= room) current += ` ${word}`;
    else {
      lines.push(current);
      current = word;
    }
  }
  lines.push(current);
  return lines;
}
