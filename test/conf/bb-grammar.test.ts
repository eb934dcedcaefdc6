import { describe, expect, it } from 'vitest';
import { matchFunctionStart } from '../../src/bitbake/conf/bb-lines.js';
import { DataStore } from '../../src/bitbake/conf/datastore.js';
import { evaluateText, newEvalContext } from '../../src/bitbake/conf/evaluate.js';
import { oldSyntaxFix } from '../../src/bitbake/conf/old-syntax.js';
import { parseConf } from '../../src/bitbake/conf/parser.js';
import { pythonSets } from '../../src/bitbake/conf/python-sets.js';
import { withCpuMs } from '../helpers/cpu-time.js';
import { memoryConfIO } from './memory-io.js';

const ARM_INC = [
  'TUNEVALID[thumb] = "Support Thumb instructions"',
  "ARM_THUMB_OPT = \"${@['arm', 'thumb'][d.getVar('ARM_INSTRUCTION_SET') == 'thumb']}\"",
  '',
  'python () {',
  "    if bb.utils.contains('TUNE_FEATURES', 'thumb', False, True, d):",
  '        return',
  '',
  '# a comment inside the body stays in the body',
  "    selected = d.getVar('ARM_INSTRUCTION_SET')",
  '}',
  '',
  'ARM_THUMB_SUFFIX = "t2"',
].join('\n');

describe('a .inc file is read with BBHandler grammar', () => {
  it('accepts an anonymous python block and keeps reading after it', () => {
    const { statements, diagnostics } = parseConf(
      ARM_INC,
      '/l/conf/machine/include/arm/feature-arm-thumb.inc',
    );
    expect(diagnostics).toEqual([]);
    expect(statements.map((s) => [s.kind, s.loc.line])).toEqual([
      ['assign', 1],
      ['assign', 2],
      ['function', 4],
      ['assign', 12],
    ]);
    expect(statements[2]).toMatchObject({
      python: true,
      fakeroot: false,
      body: expect.arrayContaining(['        return']),
    });
    expect(statements[2]).not.toHaveProperty('name');
  });

  it('rejects the same block in a .conf file, as ConfHandler does', () => {
    const { diagnostics } = parseConf(ARM_INC, '/b/conf/local.conf');
    expect(diagnostics[0]).toMatchObject({ severity: 'error', code: 'unparsed-line', line: 4 });
    expect(diagnostics[0]!.message).toContain("'python () {'");
  });

  it('reads named python, fakeroot and shell functions, def blocks and directives', () => {
    const text = [
      'python do_it () {',
      '    pass',
      '}',
      'fakeroot python do_pack() {',
      '}',
      'do_install:append () {',
      '    install -d ${D}',
      '}',
      'def helper(d):',
      '    return "x"',
      '',
      'A = "a"',
      'inherit rm_work',
      'addtask deploy after do_install',
    ].join('\n');
    const { statements, diagnostics } = parseConf(text, 'x.inc');
    expect(diagnostics).toEqual([]);
    expect(statements).toMatchObject([
      { kind: 'function', name: 'do_it', python: true, fakeroot: false, loc: { line: 1 } },
      { kind: 'function', name: 'do_pack', python: true, fakeroot: true, loc: { line: 4 } },
      { kind: 'function', name: 'do_install:append', python: false, body: ['    install -d ${D}'] },
      { kind: 'def', name: 'helper', body: ['def helper(d):', '    return "x"', ''], loc: { line: 9 } },
      { kind: 'assign', name: 'A', loc: { line: 12 } },
      { kind: 'directive', keyword: 'inherit', args: 'rm_work' },
      { kind: 'directive', keyword: 'addtask', args: 'deploy after do_install' },
    ]);
  });

  it('reports an unclosed function and a comment inside a continued line', () => {
    expect(parseConf('python () {\n    pass\n', 'x.inc').diagnostics).toMatchObject([
      { code: 'unclosed-function', line: 1 },
    ]);
    expect(parseConf('A = "a \\\n# c\nb"', 'x.inc').diagnostics[0]).toMatchObject({
      code: 'comment-in-continuation',
      line: 2,
    });
  });

  it('matches function starts as BitBake does', () => {
    expect(matchFunctionStart('python () {')).toEqual({ python: true, fakeroot: false });
    expect(matchFunctionStart('python(){')).toEqual({ python: true, fakeroot: false });
    expect(matchFunctionStart('python fakeroot do_x () {')).toEqual({
      name: 'do_x',
      python: true,
      fakeroot: true,
    });
    expect(matchFunctionStart('python_helper () {')).toEqual({
      name: 'python_helper',
      python: false,
      fakeroot: false,
    });
    expect(matchFunctionStart('A = "() {"')).toBeUndefined();
    expect(matchFunctionStart('python () { ')).toBeUndefined(); // callers right-strip first
  });
});

describe('anonymous python marks what it sets', () => {
  it('finds literal names of set/append/prepend/del/rename and flag calls', () => {
    expect(
      pythonSets([
        "    d.setVar('A', '1')",
        '    d.appendVar("B", " x"); d.prependVar(\'C\', "y")',
        "    d.setVarFlag('D', 'doc', 'x')",
        "    d.renameVar('E', 'F')",
        '    d.setVar(name, v)',
        "    d.getVar('G')",
      ]),
    ).toEqual({ targets: ['A', 'B', 'C', 'D[doc]', 'E', 'F'], computed: 1 });
  });

  it('marks the value, and values that reference it, needsBitBake with where', () => {
    const files = {
      '/l/x.inc': "TMPDIR = \"/t\"\npython () {\n    d.setVar('TMPDIR', '/elsewhere')\n}\n",
    };
    const data = new DataStore();
    const ctx = newEvalContext(memoryConfIO(files), data);
    data.setVar('DEPLOY_DIR', '${TMPDIR}/deploy');
    data.setVar('OTHER', 'plain');
    evaluateText(ctx, files['/l/x.inc'], '/l/x.inc');
    expect(ctx.diagnostics).toEqual([]);
    expect(data.getVar('TMPDIR')).toMatchObject({
      value: '/t',
      needsBitBake: true,
      pythonSetAt: { file: '/l/x.inc', line: 2 },
    });
    expect(data.getVar('DEPLOY_DIR')).toMatchObject({ value: '/t/deploy', needsBitBake: true });
    // read again (from the cache): still marked
    expect(data.getVar('DEPLOY_DIR')?.needsBitBake).toBe(true);
    expect(data.getVar('OTHER')?.needsBitBake).toBe(false);
  });
});

describe('the fix offered for the old override syntax is the form that works', () => {
  it.each([
    ['PACKAGECONFIG_append_pn-qemu-native', 'PACKAGECONFIG:append:pn-qemu-native'],
    ['IMAGE_INSTALL_append', 'IMAGE_INSTALL:append'],
    ['SRC_URI_prepend', 'SRC_URI:prepend'],
    ['DISTRO_FEATURES_remove', 'DISTRO_FEATURES:remove'],
    ['EXTRA_OECONF_class-native_remove', 'EXTRA_OECONF:class-native:remove'],
    ['EXTRA_OECONF_remove_class-native', 'EXTRA_OECONF:remove:class-native'],
    ['FOO_qemux86_append_pn-bar', 'FOO:qemux86:append:pn-bar'],
    ['RDEPENDS_${PN}_append', 'RDEPENDS:${PN}:append'],
    ['FOO_append_libc-musl_x86', 'FOO:append:libc-musl:x86'],
    ['do_install_append', 'do_install:append'],
    ['pkg_postinst_${PN}_append', 'pkg_postinst:${PN}:append'],
    ['FOO:qemux86_append', 'FOO:qemux86:append'],
  ])('%s → %s', (old, fixed) => {
    expect(oldSyntaxFix(old)).toBe(fixed);
  });

  it('is what the diagnostic says, with the operator and value kept', () => {
    const [d] = parseConf('PACKAGECONFIG_append_pn-qemu-native = " sdl"', 'local.conf').diagnostics;
    expect(d).toMatchObject({
      code: 'old-override-syntax',
      expected: 'PACKAGECONFIG:append:pn-qemu-native = " sdl"',
    });
  });
});

describe('line joining', () => {
  it('joins 100k continuation lines (10 MB) in linear time', () => {
    const lines = ['A = "start \\'];
    for (let i = 0; i < 100_000; i++) lines.push(`${'x'.repeat(98)} \\`);
    lines.push('end"');
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(10_000_000);
    const first = withCpuMs(() => parseConf(text, 'local.conf'));
    const { statements, diagnostics } = first.result;
    expect(diagnostics).toEqual([]);
    expect(statements).toHaveLength(1);
    expect(first.cpuMs).toBeLessThan(3000);
    expect(withCpuMs(() => parseConf(text, 'big.inc')).cpuMs).toBeLessThan(3000);
  });
});
