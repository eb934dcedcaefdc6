import { describe, expect, it } from 'vitest';
import { DataStore } from '../../src/bitbake/conf/datastore.js';
import { parseConf } from '../../src/bitbake/conf/parser.js';

/** Apply conf text as BitBake would at parse time (assignments, unset, export only). */
function evalConf(text: string): DataStore {
  const data = new DataStore();
  const { statements, diagnostics } = parseConf(text, 'test.conf');
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  for (const st of statements) {
    if (st.kind === 'assign') data.assign(st);
    else if (st.kind === 'unset')
      st.flag === undefined ? data.delVar(st.name, st.loc) : data.delVarFlag(st.name, st.flag, st.loc);
    else if (st.kind === 'export') data.setVarFlag(st.name, 'export', '1', st.loc);
  }
  return data;
}
const value = (text: string, name = 'A') => evalConf(text).getVar(name)?.value;

describe('DataStore operators', () => {
  it('= sets, the last one wins, and loc is the winning line', () => {
    const v = evalConf('A = "1"\nA = "2"').getVar('A');
    expect(v).toMatchObject({ value: '2', loc: { file: 'test.conf', line: 2 }, needsBitBake: false });
  });

  it('?= sets only if unset now', () => {
    expect(value('A ?= "1"\nA ?= "2"')).toBe('1');
    expect(value('A = "set"\nA ?= "2"')).toBe('set');
  });

  it('question-equals-ignores-weak: ?= sets over a weak default', () => {
    expect(value('A ??= "weak"\nA ?= "strong"')).toBe('strong');
  });

  it('weak-default-last-wins: ??= applies only when nothing else set, last one wins', () => {
    expect(value('A ??= "1"\nA ??= "2"')).toBe('2');
    expect(value('A ??= "1"\nA = "hard"\nA ??= "2"')).toBe('hard');
    expect(evalConf('A ??= "1"\nA ??= "2"').getVar('A')?.loc?.line).toBe(2);
  });

  it(':= expands now, later changes of the referenced variable do not count', () => {
    expect(value('B = "b1"\nA := "${B}"\nB = "b2"')).toBe('b1');
    expect(value('B = "b1"\nA = "${B}"\nB = "b2"')).toBe('b2');
    expect(value('A = "x"\nA := "${A} y"')).toBe('x y');
  });

  it('+= and =+ add a blank, even when unset', () => {
    expect(value('A = "a"\nA += "b"\nA =+ "c"')).toBe('c a b');
    expect(value('A += "b"')).toBe(' b');
  });

  it('plus-equals-drops-weak-default', () => {
    expect(value('A ??= "weak"\nA += "b"')).toBe(' b');
  });

  it('.= and =. add without a blank', () => {
    expect(value('A = "a"\nA .= "b"\nA =. "c"')).toBe('cab');
  });

  it('append-after-set-kept: a parse-time = keeps pending :append, :prepend, :remove', () => {
    expect(value('A = "a"\nA:append = " x"\nA:prepend = "p "\nA = "b"')).toBe('p b x');
  });

  it(':append, :prepend then :remove, in that order, whatever the order written', () => {
    expect(value('A:remove = "x"\nA = "m"\nA:append = " x y"\nA:prepend = "x "')).toBe(' m  y');
  });

  it('remove-whole-words: :remove removes words, not substrings, and leaves the blanks', () => {
    expect(value('A = "foo foobar bar foo"\nA:remove = "foo"')).toBe(' foobar bar ');
    expect(value('A = "a b c"\nB = "b"\nA:remove = "${B}"')).toBe('a  c');
  });

  it('override variants: the one latest in OVERRIDES wins; inactive ones do not count', () => {
    const text =
      'OVERRIDES = "linux:arm:qemuarm:forcevariable"\nA = "base"\nA:qemuarm = "m"\nA:arm = "a"\nA:mips = "x"';
    expect(value(text)).toBe('m');
    expect(value('OVERRIDES = "linux"\nA = "base"\nA:arm = "a"')).toBe('base');
  });

  it('override-latest-wins with combined overrides', () => {
    const text = 'OVERRIDES = "arm:qemuarm:poky"\nA = "base"\nA:arm:poky = "both"\nA:arm = "arm"';
    expect(value(text)).toBe('both');
  });

  it('forcevariable-last: :forcevariable beats every other override', () => {
    const text =
      'OVERRIDES = "arm:qemuarm:forcevariable"\nA:forcevariable = "forced"\nA:qemuarm = "m"\nA = "base"';
    expect(value(text)).toBe('forced');
    expect(evalConf(text).getVar('A')?.loc?.line).toBe(2);
  });

  it('conditional :append:o applies only when o is active', () => {
    const text = 'OVERRIDES = "arm"\nA = "a"\nA:append:arm = " arm"\nA:append:mips = " mips"';
    expect(value(text)).toBe('a arm');
  });

  it('OVERRIDES built from other variables', () => {
    const text = 'MACHINE = "qemuarm"\nOVERRIDES = "linux:${MACHINE}"\nA = "x"\nA:qemuarm = "machine"';
    expect(value(text)).toBe('machine');
  });

  it('OVERRIDES with Python glued to an override (OE-Core qemu machines): what the Python could change is marked', () => {
    const text = [
      "MACHINEOVERRIDES =. \"${@bb.utils.contains('TUNE_FEATURES', 'm32', 'x86:', '', d)}qemuall:\"",
      'MACHINEOVERRIDES .= "qemux86-64"',
      'OVERRIDES = "linux:${MACHINEOVERRIDES}:pn-x:forcevariable"',
      'A = "no"',
      'A:qemuall = "yes"',
      'A:linux = "linux"',
      'B = "b"',
      'B:append:x86 = " x86"',
      'B:append:qemuall = " all"',
      'C = "${B}/c"',
      'D = "d"',
      'D:x86 = "x86"',
      'E = "e"',
      'E:forcevariable = "forced"',
      'F:forcevariable = "forced"',
      'F:x86:forcevariable = "x86 forced"',
      'G = "plain"',
    ].join('\n');
    const data = evalConf(text);
    const python = { file: 'test.conf', line: 1 };
    const guessed = { needsBitBake: true, overridesPythonAt: python };
    const known = (value: string) => {
      expect(data.getVar(value.split('=')[0]!)).toMatchObject({
        value: value.split('=')[1],
        needsBitBake: false,
      });
      expect(data.getVar(value.split('=')[0]!)?.overridesPythonAt).toBeUndefined();
    };
    // qemuall comes after the Python, whatever it gives ('x86:' or ''): BitBake takes A:qemuall.
    known('A=yes');
    // Whether x86 is active is the Python's to say: a conditional append on it is a guess, and so
    // is a value referring to it; one on qemuall is not.
    expect(data.getVar('B')).toMatchObject({ value: 'b all', ...guessed });
    expect(data.getVar('C')).toMatchObject({ value: 'b all/c', ...guessed });
    expect(data.getVar('C')?.needsBitBake).toBe(true); // from the cache too
    // No variant applies unless the Python gives x86.
    expect(data.getVar('D')).toMatchObject({ value: 'd', ...guessed });
    // :forcevariable, after the Python, wins whatever it gives (rambake's own block)…
    known('E=forced');
    // …unless a combined variant with a part only the Python gives could still apply.
    expect(data.getVar('F')).toMatchObject({ value: 'forced', ...guessed });
    known('G=plain');
  });

  it('flags, with operators', () => {
    const data = evalConf('A[doc] = "one"\nA[doc] += "two"\nA[weak] ??= "w"\nA = "v"');
    expect(data.getVarFlag('A', 'doc')?.value).toBe('one two');
    expect(data.getVarFlag('A', 'weak')?.value).toBe('w');
    expect(data.getVarFlag('A', 'none')).toBeUndefined();
  });

  it('unset VAR and unset VAR[flag]', () => {
    const data = evalConf(
      'A = "a"\nA:append = " x"\nA[doc] = "d"\nB = "b"\nB[doc] = "d"\nunset A\nunset B[doc]',
    );
    expect(data.getVar('A')).toBeUndefined();
    expect(data.getVar('B')?.value).toBe('b');
    expect(data.getVarFlag('B', 'doc')).toBeUndefined();
  });

  it('export VAR and export VAR = …', () => {
    expect(evalConf('export A = "a"\nB = "b"\nexport B\nC = "c"').exportedNames().sort()).toEqual(['A', 'B']);
  });
});

describe('DataStore expansion', () => {
  it('expands until stable, undefined references stay literal and are listed', () => {
    const v = evalConf('A = "${B}/${NOPE}"\nB = "${C}"\nC = "c"').getVar('A');
    expect(v).toMatchObject({ value: 'c/${NOPE}', unresolved: ['NOPE'] });
  });

  it('a reference built from another reference', () => {
    expect(value('A = "${X_${WHICH}}"\nWHICH = "b"\nX_b = "found"')).toBe('found');
  });

  it('inline Python is never run: the value needs BitBake', () => {
    const v = evalConf('A = "-j ${@oe.utils.cpu_count()}"').getVar('A');
    expect(v).toMatchObject({ value: '-j ${@oe.utils.cpu_count()}', needsBitBake: true });
  });

  it('what the configuration hash expands: an active override variant, not an unused plain value', () => {
    const cycle = (variant: string) =>
      evalConf(`OVERRIDES = "arm:forcevariable"\nR_A = "\${R_B}"\nR_B${variant} = "\${R_A}"`);
    // Through an active variant BitBake stops (RecursionError) though nothing reads R_A or R_B.
    const forced = cycle(':forcevariable');
    forced.expandLikeConfigHash();
    expect(forced.diagnostics).toMatchObject([
      { severity: 'error', code: 'expansion-cycle', message: 'variable R_A references itself (through R_B)' },
    ]);
    // A plain cycle, or one through an inactive variant, is read unexpanded: BitBake goes on.
    for (const variant of ['', ':mips']) {
      const data = cycle(variant);
      data.expandLikeConfigHash();
      expect(data.diagnostics).toEqual([]);
    }
    // The hash skips BB_HASHCONFIG_IGNORE_VARS.
    const ignored = cycle(':forcevariable');
    ignored.setVar('BB_HASHCONFIG_IGNORE_VARS', 'R_B');
    ignored.expandLikeConfigHash();
    expect(ignored.diagnostics).toEqual([]);
  });

  it('a reference cycle gives a diagnostic, not a hang', () => {
    const data = evalConf('A = "${B}"\nB = "x${A}"');
    // BitBake stops with an ExpansionError; rambake keeps the text as written.
    expect(data.getVar('A')?.value).toBe('${B}');
    expect(data.diagnostics.map((d) => d.code)).toEqual(['expansion-cycle']);
  });

  it('history lists every operation with its place', () => {
    const h = evalConf('A ??= "w"\nA = "a"\nA:append = " x"\nA ?= "no"').history('A');
    expect(h.map((e) => [e.op, e.name, e.loc?.line, e.ignored ?? false])).toEqual([
      ['??=', 'A', 1, false],
      ['=', 'A', 2, false],
      [':append', 'A:append', 3, false],
      ['?=', 'A', 4, true],
    ]);
  });

  it('setVar for the reader, names()', () => {
    const data = new DataStore();
    data.setVar('TOPDIR', '/b');
    data.setVar('TMPDIR', '${TOPDIR}/tmp');
    expect(data.getVar('TMPDIR')).toMatchObject({ value: '/b/tmp', unresolved: [] });
    expect(data.names().sort()).toEqual(['TMPDIR', 'TOPDIR']);
  });
});
