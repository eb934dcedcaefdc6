// BitBake's conf syntax (ConfHandler.py, as bitbake-formats.md §1 records it), parsed into
// statements with file and line. Pure: text in, statements out; reading files is read.ts's job.

export type Operator = '=' | '?=' | '??=' | ':=' | '+=' | '=+' | '.=' | '=.';

export type Statement = { file: string; line: number } & (
  | { kind: 'assign'; name: string; flag?: string; op: Operator; value: string; exported: boolean }
  | { kind: 'include' | 'require' | 'include_all'; path: string }
  | { kind: 'export'; name: string }
  | { kind: 'unset'; name: string; flag?: string }
  /** addfragments, addpylib: accepted, not modelled. */
  | { kind: 'ignored'; text: string }
);

/** BitBake stops with `ParseError at <file>:<line>: <message>`. */
export class ConfParseError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`ParseError at ${file}:${line}: ${reason}`);
  }
}

// `export TMPDIR ?= "${TOPDIR}/tmp"` → export, TMPDIR, no flag, ?=, ${TOPDIR}/tmp
const ASSIGN =
  /^(export\s+)?([A-Za-z0-9\-_+.${}/~:]+?)(?:\[([A-Za-z0-9\-_+.][A-Za-z0-9\-_+.@/]*)\])?\s*(\?\?=|\?=|:=|\+=|=\+|=\.|\.=|=)\s*(["'])(.*)\5$/;
const NAME = '[A-Za-z0-9\\-_+.${}/~:]+';
const INCLUDE = /^(include|require|include_all)\s+(.+)$/;
const EXPORT = new RegExp(`^export\\s+(${NAME})$`);
const UNSET = new RegExp(`^unset\\s+(${NAME})(?:\\[([^\\]]+)\\])?$`);
const IGNORED = /^(addfragments|addpylib)\s/;
// `python () {`, `python name () {`, `fakeroot name() {`: a function body up to a line `}`.
const FUNC_OPEN = /^(?:(?:fakeroot\s+)?python\s+[\w.-]*\s*\(\s*\)|[\w.-]+\s*\(\s*\))\s*\{\s*$/;
// `def name(d):` starts a Python block of indented lines.
const DEF = /^def\s+\w+\s*\(.*\)\s*:\s*$/;

export function parseConf(text: string, file: string): Statement[] {
  const raw = text.split('\n');
  const out: Statement[] = [];
  let i = 0;
  while (i < raw.length) {
    const first = i + 1;
    let s = (raw[i++] ?? '').trimEnd();
    if (s.trim() === '') continue;
    if (FUNC_OPEN.test(s)) {
      while (i < raw.length && (raw[i] ?? '').trimEnd() !== '}') i++;
      i++;
      continue;
    }
    if (DEF.test(s)) {
      while (i < raw.length && /^(\s|$)/.test(raw[i] ?? '')) i++;
      continue;
    }
    // A trailing backslash joins the next line as it is (its leading blanks kept, no newline).
    while (s.endsWith('\\') && i < raw.length) {
      const next = (raw[i++] ?? '').trimEnd();
      if (s.startsWith('#') && !next.startsWith('#')) {
        throw new ConfParseError(
          file,
          first,
          'There is a confusing multiline, partially commented expression',
        );
      }
      s = s.slice(0, -1) + next;
    }
    if (s.startsWith('#')) continue;
    out.push({ file, line: first, ...parseLine(s, file, first) } as Statement);
  }
  return out;
}

function parseLine(s: string, file: string, line: number) {
  const a = ASSIGN.exec(s);
  if (a) {
    const name = a[2] ?? '';
    // Old override syntax is fatal in current BitBake (data_smart.setVar).
    if (/_append|_prepend|_remove/.test(name) && !name.startsWith('__anon_')) {
      throw new ConfParseError(
        file,
        line,
        `Variable ${name} contains an operation using the old override syntax. Please convert this layer/metadata before attempting to use with a newer bitbake.`,
      );
    }
    return {
      kind: 'assign',
      name,
      ...(a[3] ? { flag: a[3] } : {}),
      op: a[4] as Operator,
      value: a[6] ?? '',
      exported: a[1] !== undefined,
    };
  }
  const inc = INCLUDE.exec(s);
  if (inc) return { kind: inc[1], path: (inc[2] ?? '').trim() };
  const ex = EXPORT.exec(s);
  if (ex) return { kind: 'export', name: ex[1] };
  const un = UNSET.exec(s);
  if (un) return { kind: 'unset', name: un[1], ...(un[2] ? { flag: un[2] } : {}) };
  if (IGNORED.test(s)) return { kind: 'ignored', text: s };
  throw new ConfParseError(file, line, `unparsed line: '${s}'`);
}
