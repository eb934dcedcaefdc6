// Physical lines → logical lines, as ConfHandler.py reads a conf file: right-strip, join lines
// ending in `\` (the next line keeps its leading blanks), skip blank lines and comments.

export interface LogicalLine {
  /** The first physical line (1-based). */
  line: number;
  text: string;
}

export interface LineProblem {
  line: number;
  /** A `#` line continued by `\` into a line that is not a comment (BitBake: fatal). */
  code: 'continued-comment';
  text: string;
}

/** CRLF, LF and lone CR all end a line (Python's universal newlines). */
const NEWLINE = /\r\n|\r|\n/;

/**
 * Example: ['A = "x \\', '  y"', '', '# c'] → [{ line: 1, text: 'A = "x   y"' }].
 * Comments come out as nothing; a partly commented continuation comes out as a problem.
 */
export function splitLogicalLines(text: string): { lines: LogicalLine[]; problems: LineProblem[] } {
  const physical = text.split(NEWLINE);
  const lines: LogicalLine[] = [];
  const problems: LineProblem[] = [];
  let i = 0;
  while (i < physical.length) {
    const first = i + 1;
    let s = physical[i]!.trimEnd();
    i++;
    if (s.trim() === '') continue;
    let badComment = false;
    while (s.endsWith('\\')) {
      if (i >= physical.length) {
        s = s.slice(0, -1);
        break;
      }
      const next = physical[i]!.trimEnd();
      i++;
      if (s.startsWith('#') && !next.startsWith('#')) badComment = true;
      s = s.slice(0, -1) + next;
    }
    if (badComment) {
      problems.push({ line: first, code: 'continued-comment', text: s });
      continue;
    }
    if (s.startsWith('#')) continue;
    lines.push({ line: first, text: s });
  }
  return { lines, problems };
}
