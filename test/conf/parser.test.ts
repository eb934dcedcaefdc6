import { describe, expect, it } from 'vitest';
import { parseConf } from '../../src/bitbake/conf/parser.js';

const codes = (text: string) =>
  parseConf(text, 'local.conf').diagnostics.map((d) => [d.line, d.severity, d.code]);
const only = (text: string) => {
  const { statements, diagnostics } = parseConf(text, 'local.conf');
  expect(diagnostics).toEqual([]);
  expect(statements).toHaveLength(1);
  return statements[0]!;
};

describe('parseConf: assignments', () => {
  it('reads every operator, with file and line', () => {
    const ops = ['=', '?=', '??=', ':=', '+=', '=+', '.=', '=.'];
    const { statements, diagnostics } = parseConf(
      ops.map((op, i) => `V${i} ${op} "x${i}"`).join('\n'),
      'a.conf',
    );
    expect(diagnostics).toEqual([]);
    expect(
      statements.map((s) => (s.kind === 'assign' ? [s.name, s.op, s.value, s.loc.line] : s.kind)),
    ).toEqual(ops.map((op, i) => [`V${i}`, op, `x${i}`, i + 1]));
  });

  it('keeps backslashes and the other quote kind inside a value, no escape processing', () => {
    expect(only(`A = 'say "hi" \\n'`)).toMatchObject({ name: 'A', value: 'say "hi" \\n' });
  });

  it('reads export, flags and override-style names', () => {
    expect(only('export FOO:append:qemux86[doc] ?= "d"')).toMatchObject({
      exported: true,
      name: 'FOO:append:qemux86',
      flag: 'doc',
      op: '?=',
      value: 'd',
    });
  });

  it('takes the shortest name, so A+="x" is an append to A', () => {
    expect(only('A += "x"')).toMatchObject({ name: 'A', op: '+=' });
    const { statements, diagnostics } = parseConf('A+="x"', 'l');
    expect(statements[0]).toMatchObject({ name: 'A', op: '+=' });
    expect(diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'missing-blanks']]);
  });

  it('joins continued lines, keeping the blanks of the continuation, and reports the first line', () => {
    const { statements } = parseConf('\n\nA = "one \\\n    two"\nB = "b"', 'l');
    expect(statements[0]).toMatchObject({ name: 'A', value: 'one     two', loc: { line: 3 } });
    expect(statements[1]).toMatchObject({ name: 'B', loc: { line: 5 } });
  });

  it('accepts CRLF line ends', () => {
    const { statements, diagnostics } = parseConf('A = "a"\r\n# c\r\nB = "b \\\r\nc"\r\n', 'l');
    expect(diagnostics).toEqual([]);
    expect(statements.map((s) => (s.kind === 'assign' ? s.value : ''))).toEqual(['a', 'b c']);
  });
});

describe('parseConf: other statements', () => {
  it('reads include, require, include_all, export, unset, addpylib, addfragments', () => {
    const text = [
      'include conf/a.conf conf/b.conf',
      'require ${TOPDIR}/x.inc',
      'include_all conf/distro/include/x.inc',
      'export PATH',
      'unset FOO',
      'unset FOO[doc]',
      'addpylib ${LAYERDIR}/lib oe',
      'addfragments conf/fragments OE_FRAGMENTS OE_FRAGMENTS_METADATA_VARS OE_FRAGMENTS_BUILTIN',
    ].join('\n');
    const { statements, diagnostics } = parseConf(text, 'l');
    expect(diagnostics).toEqual([]);
    expect(statements).toMatchObject([
      { kind: 'include', mode: 'include', paths: 'conf/a.conf conf/b.conf' },
      { kind: 'include', mode: 'require', paths: '${TOPDIR}/x.inc' },
      { kind: 'include', mode: 'include_all', paths: 'conf/distro/include/x.inc' },
      { kind: 'export', name: 'PATH' },
      { kind: 'unset', name: 'FOO' },
      { kind: 'unset', name: 'FOO', flag: 'doc' },
      { kind: 'addpylib', dir: '${LAYERDIR}/lib', namespace: 'oe' },
      {
        kind: 'addfragments',
        args: 'conf/fragments OE_FRAGMENTS OE_FRAGMENTS_METADATA_VARS OE_FRAGMENTS_BUILTIN',
      },
    ]);
  });
});

describe('parseConf: what BitBake refuses', () => {
  it('trailing comment', () => {
    expect(codes('A = "x" # why')).toEqual([[1, 'error', 'trailing-comment']]);
  });

  it('indented comment', () => {
    expect(codes('A = "x"\n  # indented')).toEqual([[2, 'error', 'indented-comment']]);
  });

  it('a comment continued by \\ into a line that is not a comment', () => {
    expect(codes('# note \\\nA = "x"\nB = "b"')).toEqual([[1, 'error', 'continued-comment']]);
    expect(parseConf('# note \\\n# still comment\nB = "b"', 'l').diagnostics).toEqual([]);
  });

  // BitBake's ConfHandler names the last physical line it read for a statement, and one past
  // the end when the file ends in a `\` (both checked with `bitbake -e` in the differential).
  it('an error in a continued statement names its last physical line, as BitBake does', () => {
    expect(codes('# c\nBROKEN = "a \\\n  b\nAFTER = "x"\n')).toEqual([[3, 'error', 'unparsed-line']]);
    expect(codes('M = "q"\nEXTRA = "a \\\n')).toEqual([[3, 'error', 'unparsed-line']]);
    expect(codes('EXTRA = "a \\')).toEqual([[2, 'error', 'unparsed-line']]);
    // The statement itself is still placed at its first line.
    expect(parseConf('\nA = "x \\\n  y"\n', 'l').statements[0]).toMatchObject({ loc: { line: 2 } });
  });

  it('unquoted value, with the valid form', () => {
    const [d] = parseConf('\nDL_DIR = /srv/dl', 'local.conf').diagnostics;
    expect(d).toMatchObject({
      code: 'unquoted-value',
      line: 2,
      file: 'local.conf',
      expected: 'NAME = "value"',
    });
    expect(d?.message).toContain('unparsed line');
  });

  it('old override syntax is an error and the statement is not kept', () => {
    const { statements, diagnostics } = parseConf('IMAGE_INSTALL_append = " x"\nA = "a"', 'l');
    expect(diagnostics).toMatchObject([
      { code: 'old-override-syntax', line: 1, expected: 'IMAGE_INSTALL:append = " x"' },
    ]);
    expect(statements).toHaveLength(1);
  });

  it('inherit in a conf file', () => {
    expect(codes('inherit rm_work')).toEqual([[1, 'error', 'inherit-in-conf']]);
  });

  it('exactly three quotes is not a value', () => {
    expect(codes('A = "a"b"')).toEqual([[1, 'error', 'unparsed-line']]);
  });

  it('anything else is an unparsed line', () => {
    expect(codes('what is this')).toEqual([[1, 'error', 'unparsed-line']]);
  });

  it('binary garbage gives one diagnostic', () => {
    const bytes = String.fromCharCode(...Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    expect(codes(bytes)).toEqual([[undefined, 'error', 'binary-file']]);
  });

  it('a 10 MB single line gives one short diagnostic', () => {
    const { diagnostics } = parseConf(`X${'y'.repeat(10_000_000)} oops`, 'big.conf');
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.message.length).toBeLessThan(200);
  });
});
