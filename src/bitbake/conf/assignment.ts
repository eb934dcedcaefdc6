// The assignment grammar of a conf line (ConfHandler's __config_regexp__), written as a scanner
// so a 10 MB line costs one pass: [export ]NAME[[flag]] OP "value" or 'value' to end of line.

import type { AssignOp } from './types.js';

export interface ParsedAssignment {
  exported: boolean;
  name: string;
  flag?: string;
  op: AssignOp;
  value: string;
  /** No blank before or after the operator (BitBake warns). */
  missingBlanks: boolean;
}

/** Why a line that has a name and an operator is still not an assignment. */
export type AssignmentFailure = 'unquoted-value' | 'trailing-comment' | 'unparsed-line' | 'empty-name';

/** Name characters `[A-Za-z0-9-_+.${}/~:]` as a table: a 10 MB name is scanned without regex calls. */
const NAME_CHARS = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+.${}/~:') {
  NAME_CHARS[c.charCodeAt(0)] = 1;
}
const isNameChar = (code: number): boolean => code < 128 && NAME_CHARS[code] === 1;
const FLAG_FIRST = /[A-Za-z0-9\-_+.]/;
const FLAG_CHAR = /[A-Za-z0-9\-_+.@/]/;
const BLANK = /\s/;
/** Longest first, in the order BitBake's alternation tries them. */
const OPS: readonly AssignOp[] = [':=', '??=', '?=', '+=', '=+', '=.', '.=', '='];

/**
 * Example: 'export FOO[doc] ?= "a b"' → { exported: true, name: 'FOO', flag: 'doc', op: '?=', value: 'a b' }.
 * Returns a failure kind when an operator was found but the value is not a quoted string,
 * or undefined when the line does not look like an assignment at all.
 */
export function parseAssignment(s: string): ParsedAssignment | AssignmentFailure | undefined {
  let failure: AssignmentFailure | undefined;
  const exportMatch = /^export\s+/.exec(s);
  const starts = exportMatch ? [exportMatch[0].length, 0] : [0];
  for (const start of starts) {
    let end = start;
    while (end < s.length && isNameChar(s.charCodeAt(end))) end++;
    // The name is matched lazily, so an operator may begin on its last character (`A+=`, `A:=`).
    for (const nameEnd of [end - 1, end]) {
      if (nameEnd < start) continue;
      const got = parseAfterName(s, start, nameEnd);
      if (got === undefined) continue;
      if (typeof got !== 'string') return { ...got, exported: start > 0 };
      failure ??= got;
    }
  }
  return failure;
}

function parseAfterName(
  s: string,
  start: number,
  nameEnd: number,
): Omit<ParsedAssignment, 'exported'> | AssignmentFailure | undefined {
  let pos = nameEnd;
  let flag: string | undefined;
  if (s[pos] === '[') {
    let f = pos + 1;
    if (!FLAG_FIRST.test(s[f] ?? '')) return undefined;
    while (f < s.length && FLAG_CHAR.test(s[f]!)) f++;
    if (s[f] !== ']') return undefined;
    flag = s.slice(pos + 1, f);
    pos = f + 1;
  }
  const ws1 = pos;
  while (pos < s.length && BLANK.test(s[pos]!)) pos++;
  const op = OPS.find((o) => s.startsWith(o, pos));
  if (!op) return undefined;
  const blankBefore = pos > ws1;
  pos += op.length;
  const ws2 = pos;
  while (pos < s.length && BLANK.test(s[pos]!)) pos++;
  const name = s.slice(start, nameEnd);
  const quote = s[pos];
  if (quote !== '"' && quote !== "'") return pos >= s.length ? 'unparsed-line' : 'unquoted-value';
  if (s.length - pos < 2 || s[s.length - 1] !== quote) {
    return s.indexOf('#', s.indexOf(quote, pos + 1)) > 0 && s.indexOf(quote, pos + 1) > 0
      ? 'trailing-comment'
      : 'unparsed-line';
  }
  // BitBake refuses exactly three quotes of the kind used: `"a"b"` is not a value.
  let quotes = 0;
  for (let i = pos; i < s.length && quotes < 4; i++) if (s[i] === quote) quotes++;
  if (quotes === 3) return 'unparsed-line';
  if (name === '') return 'empty-name';
  return {
    name,
    ...(flag !== undefined ? { flag } : {}),
    op,
    value: s.slice(pos + 1, s.length - 1),
    missingBlanks: !blankBefore || pos === ws2,
  };
}
