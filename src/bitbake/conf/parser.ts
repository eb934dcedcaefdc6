// parseConf: the text of one .conf file → statements with file:line, and what BitBake would say
// about the lines it refuses. Pure: no file system, no evaluation.

import { basename } from 'node:path';
import { parseAssignment } from './assignment.js';
import { splitBBItems } from './bb-lines.js';
import { splitLogicalLines } from './lines.js';
import { oldSyntaxFix } from './old-syntax.js';
import type { ConfDiagnostic, Statement } from './types.js';

export interface ParsedConf {
  statements: Statement[];
  diagnostics: ConfDiagnostic[];
}

const ASSIGN_FORM = 'NAME = "value"';
/** U+FEFF as a UTF-8 file's first character (bytes EF BB BF). */
const BOM = '\ufeff';
const EXCERPT_MAX = 80;

// Other statement forms, each tried on the whole logical line.
// Example: 'include conf/a.conf conf/b.conf' → include, paths 'conf/a.conf conf/b.conf'.
const INCLUDE = /^(include|require|include_all)\s+(\S.*)$/;
// Example: 'export FOO' → export of FOO.
const EXPORT = /^export\s+([A-Za-z0-9\-_+.${}/~]+)$/;
// Example: 'unset FOO[doc]' → unset FOO, flag doc.
const UNSET = /^unset\s+([A-Za-z0-9\-_+.${}/~]+)(?:\[([A-Za-z0-9\-_+.][A-Za-z0-9\-_+.@]+)\])?$/;
// Example: 'addpylib ${LAYERDIR}/lib oe' → dir '${LAYERDIR}/lib', namespace 'oe'.
const ADDPYLIB = /^addpylib\s+(\S+)\s+(\S+)$/;
const ADDFRAGMENTS = /^addfragments\s+(\S.*)$/;
const INHERIT = /^inherit\s/;
/** Names of the old override syntax, fatal in current BitBake (its test: the text anywhere in the name). */
const OLD_OVERRIDE = /_(append|prepend|remove)/;

/** BitBake picks the reader by extension: these go through BBHandler, which also takes Python blocks. */
export const isBBHandlerFile = (file: string): boolean => /\.(inc|bb|bbclass)$/.test(file);

/**
 * Example: parseConf('FOO = "bar"\n', 'local.conf') → one assign statement at local.conf:1.
 * A `.inc` file is read with BBHandler's grammar (python/def blocks, inherit, addtask …) as
 * BitBake does; any other name with ConfHandler's.
 */
export function parseConf(text: string, file: string): ParsedConf {
  const statements: Statement[] = [];
  const diagnostics: ConfDiagnostic[] = [];
  if (text.includes('\0')) {
    diagnostics.push({
      severity: 'error',
      code: 'binary-file',
      message: 'not a conf file: it holds NUL bytes (binary data)',
      file,
      expected: 'a text file of BitBake assignments',
    });
    return { statements, diagnostics };
  }
  if (text.startsWith(BOM)) {
    // BitBake 2.15.2 reads the BOM as part of the first line and stops there ("ParseError at
    // local.conf:1: unparsed line: '\ufeff# …'"), whatever follows it: checked with `bitbake -e`.
    diagnostics.push({
      severity: 'error',
      code: 'utf8-bom',
      message: `a UTF-8 byte-order mark (BOM) at the start of ${basename(file)}: BitBake refuses it; save the file without BOM`,
      file,
    });
    return { statements, diagnostics };
  }
  const error = (line: number, code: string, message: string, expected?: string): void => {
    diagnostics.push({ severity: 'error', code, message, file, line, ...(expected ? { expected } : {}) });
  };
  const feed = (line: number, s: string, last = line) =>
    feedLine(line, s, file, statements, diagnostics, last);
  if (isBBHandlerFile(file)) {
    const { items, problems } = splitBBItems(text, file);
    for (const p of problems) error(p.line, p.code, excerpt(p.message), p.expected);
    for (const item of items) {
      if (item.kind === 'line') feed(item.line, item.text);
      else if (item.kind === 'function' && item.name !== undefined && OLD_OVERRIDE.test(item.name))
        oldSyntax(item.loc.line, item.name, file, diagnostics, ' () { … }');
      else statements.push(item);
    }
    return { statements, diagnostics };
  }
  const { lines, problems } = splitLogicalLines(text);
  for (const p of problems) {
    error(
      p.line,
      'continued-comment',
      `a comment line ends in \\ and continues into a line that is not a comment: '${excerpt(p.text)}'`,
      'every continued line of a comment to start with #, or no \\ at the end of the comment',
    );
  }
  for (const { line, last, text: s } of lines) feed(line, s, last);
  return { statements, diagnostics };
}

/** One logical line of conf grammar (ConfHandler's feeder) → a statement or a diagnostic. */
function feedLine(
  line: number,
  s: string,
  file: string,
  statements: Statement[],
  diagnostics: ConfDiagnostic[],
  /** The line BitBake names in an error about a continued statement (LogicalLine.last). */
  errorLine = line,
): void {
  const error = (code: string, message: string, expected?: string): void => {
    diagnostics.push({
      severity: 'error',
      code,
      message,
      file,
      line: errorLine,
      ...(expected ? { expected } : {}),
    });
  };
  const loc = { file, line };
  const assignment = parseAssignment(s);
  if (assignment !== undefined && typeof assignment !== 'string') {
    const { exported, name, flag, op, value, missingBlanks } = assignment;
    if (flag === undefined && op !== '??=' && OLD_OVERRIDE.test(name)) {
      oldSyntax(errorLine, name, file, diagnostics, ` ${op} "${excerpt(value)}"`);
      return;
    }
    if (missingBlanks) {
      diagnostics.push({
        severity: 'warning',
        code: 'missing-blanks',
        message: `no blank around the operator ${op}: '${excerpt(s)}'`,
        file,
        line,
        expected: `${name} ${op} "value"`,
      });
    }
    statements.push({
      kind: 'assign',
      loc,
      exported,
      name,
      ...(flag !== undefined ? { flag } : {}),
      op,
      value,
    });
    return;
  }
  const other = parseOther(s, loc);
  if (other) {
    statements.push(other);
    return;
  }
  const [code, why, expected] = explainUnparsed(s, assignment);
  error(code, `unparsed line${why}: '${excerpt(s)}'`, expected);
}

/** BitBake's setVar refuses any name holding `_append`, `_prepend` or `_remove`. */
function oldSyntax(
  line: number,
  name: string,
  file: string,
  diagnostics: ConfDiagnostic[],
  tail: string,
): void {
  diagnostics.push({
    severity: 'error',
    code: 'old-override-syntax',
    message: `${name} uses the old override syntax (_append, _prepend, _remove); BitBake refuses it`,
    file,
    line,
    expected: `${oldSyntaxFix(name)}${tail}`,
  });
}

function parseOther(s: string, loc: { file: string; line: number }): Statement | undefined {
  let m = INCLUDE.exec(s);
  if (m) return { kind: 'include', loc, mode: m[1] as 'include' | 'require' | 'include_all', paths: m[2]! };
  m = EXPORT.exec(s);
  if (m) return { kind: 'export', loc, name: m[1]! };
  m = UNSET.exec(s);
  if (m) return { kind: 'unset', loc, name: m[1]!, ...(m[2] ? { flag: m[2] } : {}) };
  m = ADDPYLIB.exec(s);
  if (m) return { kind: 'addpylib', loc, dir: m[1]!, namespace: m[2]! };
  m = ADDFRAGMENTS.exec(s);
  // BitBake wants four arguments: path prefix, fragments variable, flagged-variables list, built-ins.
  if (m && m[1]!.trim().split(/\s+/).length >= 4) return { kind: 'addfragments', loc, args: m[1]!.trim() };
  return undefined;
}

function explainUnparsed(
  s: string,
  failure: string | undefined,
): [code: string, why: string, expected: string] {
  if (/^\s+#/.test(s))
    return ['indented-comment', ' (a comment must start in the first column)', '# comment'];
  if (INHERIT.test(s))
    return ['inherit-in-conf', ' (inherit is not valid in a .conf file)', 'INHERIT += "class"'];
  switch (failure) {
    case 'trailing-comment':
      return [
        'trailing-comment',
        ' (a comment cannot follow a value)',
        `${ASSIGN_FORM} with the comment on its own line`,
      ];
    case 'unquoted-value':
      return ['unquoted-value', ' (the value must be quoted)', ASSIGN_FORM];
    case 'empty-name':
      return ['unparsed-line', ' (empty variable name)', ASSIGN_FORM];
    default:
      return ['unparsed-line', '', ASSIGN_FORM];
  }
}

/** A line as shown in messages: at most 80 characters, so a 10 MB line stays one short message. */
function excerpt(s: string): string {
  return s.length <= EXCERPT_MAX ? s : `${s.slice(0, EXCERPT_MAX)}… (${s.length} characters)`;
}
