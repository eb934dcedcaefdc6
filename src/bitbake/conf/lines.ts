// Physical lines → logical lines, as ConfHandler.py reads a conf file: right-strip, join lines
// ending in `\` (the next line keeps its leading blanks), skip blank lines and comments.

export interface LogicalLine {
  /** The first physical line (1-based). */
  line: number;
  /**
   * The line BitBake's ConfHandler names in an error about this statement: the last physical
   * line it read for it (its line counter moves on with every continuation), one past the end
   * when the file ends in `\`. Checked with `bitbake -e` (conf differential).
   */
  last: number;
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

/** Physical lines, right-stripped as BitBake's readers do. */
export function physicalLines(text: string): string[] {
  return text.split(NEWLINE).map((l) => l.trimEnd());
}

/**
 * Example: ['A = "x \\', '  y"', '', '# c'] → [{ line: 1, last: 2, text: 'A = "x   y"' }].
 * Comments come out as nothing; a partly commented continuation comes out as a problem.
 * The pieces of a continued line are collected and joined once, so 100k continuation lines
 * cost one pass (repeated concatenation plus endsWith on the growing string was quadratic).
 */
export function splitLogicalLines(text: string): { lines: LogicalLine[]; problems: LineProblem[] } {
  const physical = physicalLines(text);
  const lines: LogicalLine[] = [];
  const problems: LineProblem[] = [];
  let i = 0;
  while (i < physical.length) {
    const first = i + 1;
    let piece = physical[i]!;
    i++;
    if (piece.trim() === '') continue;
    const comment = piece.startsWith('#');
    const parts: string[] = [];
    let badComment = false;
    let last = first;
    while (piece.endsWith('\\')) {
      parts.push(piece.slice(0, -1));
      last++;
      if (i >= physical.length) {
        piece = '';
        break;
      }
      piece = physical[i]!;
      i++;
      if (comment && !piece.startsWith('#')) badComment = true;
    }
    parts.push(piece);
    const s = parts.join('');
    if (badComment) {
      problems.push({ line: first, code: 'continued-comment', text: s });
      continue;
    }
    if (comment) continue;
    lines.push({ line: first, last, text: s });
  }
  return { lines, problems };
}
