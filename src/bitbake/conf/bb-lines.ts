// How BitBake reads a .inc (or .bb/.bbclass) file: BBHandler.py, not ConfHandler.py. Line by
// line, it first collects function blocks (`python () {` … `}`), `def` blocks (the `def` line
// and the indented, empty or comment lines after it), and its own statements (inherit, addtask,
// …); every other logical line goes to the conf grammar. A .conf file never gets this: there,
// `python () {` is an unparsed line.

import { physicalLines } from './lines.js';
import type { BBDirective, Location, Statement } from './types.js';

/** A logical line for the conf grammar, or a statement only BBHandler knows. */
export type BBItem = { kind: 'line'; line: number; text: string } | Statement;

export interface BBProblem {
  line: number;
  code: string;
  message: string;
  expected: string;
}

// Example: 'python () {' → anonymous; 'python do_it () {' → name do_it; 'do_install:append() {' → shell.
const FUNC_REST = /^([\w.\-+{}$:]+)?\s*\(\s*\)\s*\{$/;
// `python` / `fakeroot` keywords before the name, each any number of times (BBHandler's group).
const FUNC_KEYWORD = /^(?:(python)(?=[\s(])|(fakeroot)(?=\s))\s*/;
// Example: 'def get_flags(d):' → def get_flags.
const DEF = /^def\s+(\w+).*:/;
// A line that stays in a def body: indented, empty, or a comment.
const DEF_BODY = /^(?:\s+.*|$|#)/;
// Example: 'addtask deploy after do_install' → addtask, args 'deploy after do_install'.
const DIRECTIVES: ReadonlyArray<[BBDirective, RegExp]> = [
  ['EXPORT_FUNCTIONS', /^EXPORT_FUNCTIONS\s+(.+)/],
  ['addtask', /^addtask\s+([^#\n]+)/],
  ['deltask', /^deltask\s+([^#\n]+)/],
  ['addhandler', /^addhandler\s+(.+)/],
  ['inherit', /^inherit\s+(.+)/],
  ['inherit_defer', /^inherit_defer\s+(.+)/],
];

/** `python fakeroot name () {` → its parts; undefined when the line opens no function. */
export function matchFunctionStart(
  s: string,
): { name?: string; python: boolean; fakeroot: boolean } | undefined {
  let rest = s;
  let python = false;
  let fakeroot = false;
  for (let m = FUNC_KEYWORD.exec(rest); m; m = FUNC_KEYWORD.exec(rest)) {
    if (m[1]) python = true;
    if (m[2]) fakeroot = true;
    rest = rest.slice(m[0].length);
  }
  const m = FUNC_REST.exec(rest);
  if (!m) return undefined;
  return { ...(m[1] ? { name: m[1] } : {}), python, fakeroot };
}

/**
 * Example: ['A = "1"', 'python () {', '    d.setVar("B", "2")', '}'] →
 * [{ kind: 'line', line: 1, text: 'A = "1"' }, { kind: 'function', python: true, body: ['    d.setVar("B", "2")'] }].
 */
export function splitBBItems(text: string, file: string): { items: BBItem[]; problems: BBProblem[] } {
  const items: BBItem[] = [];
  const problems: BBProblem[] = [];
  const lines = physicalLines(text);
  let func: { loc: Location; name?: string; python: boolean; fakeroot: boolean; body: string[] } | undefined;
  let def: { loc: Location; name: string; body: string[] } | undefined;
  let residue: string[] = [];
  let residueLine = 0;
  for (let i = 0; i < lines.length; i++) {
    const s = lines[i]!;
    const line = i + 1;
    if (func) {
      if (s === '}') {
        items.push({ kind: 'function', ...func });
        func = undefined;
      } else func.body.push(s);
      continue;
    }
    if (def) {
      if (DEF_BODY.test(s)) {
        def.body.push(s);
        continue;
      }
      items.push({ kind: 'def', ...def });
      def = undefined;
    }
    const inResidue = residue.length > 0;
    const residueIsComment = inResidue && residue[0]!.startsWith('#');
    if (s.startsWith('#') && inResidue && !residueIsComment) {
      problems.push({
        line,
        code: 'comment-in-continuation',
        message: `a comment in the middle of a multiline expression: '${s}'`,
        expected: 'the comment before or after the continued lines',
      });
      residue = [];
      continue;
    }
    if (residueIsComment && !s.startsWith('#')) {
      problems.push({
        line: residueLine,
        code: 'continued-comment',
        message: `a comment line ends in \\ and continues into a line that is not a comment`,
        expected: 'every continued line of a comment to start with #, or no \\ at the end of the comment',
      });
      residue = [];
      continue;
    }
    if (s.endsWith('\\')) {
      if (!inResidue) residueLine = line;
      residue.push(s.slice(0, -1));
      continue;
    }
    const first = inResidue ? residueLine : line;
    const joined = inResidue ? residue.join('') + s : s;
    residue = [];
    if (joined === '' || joined.startsWith('#')) continue;
    const loc = { file, line: first };
    const start = matchFunctionStart(joined);
    if (start) {
      func = { loc, ...start, body: [] };
      continue;
    }
    const d = DEF.exec(joined);
    if (d) {
      def = { loc, name: d[1]!, body: [joined] };
      continue;
    }
    const directive = matchDirective(joined);
    if (directive) {
      items.push({ kind: 'directive', loc, ...directive });
      continue;
    }
    items.push({ kind: 'line', line: first, text: joined });
  }
  if (def) items.push({ kind: 'def', ...def });
  if (residue.length > 0) {
    problems.push({
      line: residueLine,
      code: 'unparsed-line',
      message: `unparsed lines at the end of the file (the last line ends in \\): '${residue.join('')}'`,
      expected: 'no \\ at the end of the last line',
    });
  }
  if (func) {
    problems.push({
      line: func.loc.line,
      code: 'unclosed-function',
      message: `function ${func.name ?? '(anonymous python)'} is never closed`,
      expected: 'a line holding only } to end the function',
    });
  }
  return { items, problems };
}

function matchDirective(s: string): { keyword: BBDirective; args: string } | undefined {
  for (const [keyword, re] of DIRECTIVES) {
    const m = re.exec(s);
    if (m) return { keyword, args: m[1]!.trim() };
  }
  return undefined;
}
