// The fake's own conf reader: BitBake's file order, operators and overrides (bitbake-formats.md
// §1–2, §12), on miniature build dirs. Values are what the real BitBake gives for the same files.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { escapeValue, formatEnv } from '../src/conf/emit.js';
import { ConfParseError, parseConf } from '../src/conf/parse.js';
import { readBuildConf } from '../src/conf/read.js';
import { configFromConf } from '../src/config.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

/** A build dir (conf files by name) with one layer holding `layerFiles` (paths under the layer). */
function buildDir(conf: Record<string, string>, layerFiles: Record<string, string> = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-conf-'));
  roots.push(root);
  const layer = path.join(root, 'meta');
  const topdir = path.join(root, 'build');
  const files: Record<string, string> = {
    [path.join(layer, 'conf', 'layer.conf')]: 'BBPATH .= ":${LAYERDIR}"\nBBFILE_COLLECTIONS += "core"\n',
    [path.join(topdir, 'conf', 'bblayers.conf')]: `BBPATH = "\${TOPDIR}"\nBBLAYERS = "${layer}/"\n`,
  };
  for (const [name, text] of Object.entries(conf)) files[path.join(topdir, 'conf', name)] = text;
  for (const [name, text] of Object.entries(layerFiles)) files[path.join(layer, name)] = text;
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
  }
  return { topdir, layer };
}

const read = (topdir: string, env: NodeJS.ProcessEnv = { HOME: '/home/builder' }) =>
  readBuildConf(topdir, env).store;

describe('which file wins', () => {
  it('a plain TMPDIR = in local.conf beats auto.conf (read before it); ?= in local.conf does nothing', () => {
    const { topdir } = buildDir({
      'auto.conf': 'TMPDIR = "${TOPDIR}/tmp-auto"\nDEPLOY_DIR = "/srv/deploy"\n',
      'local.conf': 'TMPDIR = "${TOPDIR}/tmp"\nSTAMPS_DIR ?= "/ignored"\nDL_DIR ?= "${TOPDIR}/dl"\n',
    });
    const s = read(topdir);
    expect(s.get('TMPDIR')).toBe(`${topdir}/tmp`);
    expect(s.get('DEPLOY_DIR')).toBe('/srv/deploy');
    expect(s.get('STAMPS_DIR')).toBe(`${topdir}/tmp/stamps`);
    // DL_DIR's default comes after local.conf, so its ?= there works
    expect(s.get('DL_DIR')).toBe(`${topdir}/dl`);
    expect(s.get('SSTATE_DIR')).toBe(`${topdir}/sstate-cache`);
  });

  it('site, auto, toolcfg, local in that order; the distro conf after them all', () => {
    const { topdir } = buildDir(
      {
        'site.conf': 'A = "site"\nB = "site"\nC = "site"\nD = "site"\n',
        'auto.conf': 'B = "auto"\nC = "auto"\nD = "auto"\n',
        'toolcfg.conf': 'C = "toolcfg"\nD = "toolcfg"\n',
        'local.conf': 'D = "local"\nDISTRO = "pathy"\nTMPDIR = "${TOPDIR}/tmp-local"\n',
      },
      { 'conf/distro/pathy.conf': 'TMPDIR = "${TOPDIR}/tmp-pathy"\n' },
    );
    const s = read(topdir);
    expect([s.get('A'), s.get('B'), s.get('C'), s.get('D')]).toEqual(['site', 'auto', 'toolcfg', 'local']);
    expect(s.get('TMPDIR')).toBe(`${topdir}/tmp-pathy`);
  });

  it('a layer bitbake.conf replaces the built-in one', () => {
    const { topdir } = buildDir(
      { 'local.conf': 'MACHINE = "m"\n' },
      { 'conf/bitbake.conf': 'TMPDIR = "/fixed"\ninclude conf/local.conf\n' },
    );
    const conf = readBuildConf(topdir, {});
    expect(conf.bitbakeConf).toMatch(/meta\/conf\/bitbake\.conf$/);
    expect(conf.store.get('TMPDIR')).toBe('/fixed');
    expect(conf.store.get('MACHINE')).toBe('m');
    expect(conf.store.get('DL_DIR')).toBeUndefined();
  });

  it('classes come last: BUILDSTATS_BASE moves only with :forcevariable; rm_work sets BB_SCHEDULER ?=', () => {
    const plain = buildDir({ 'local.conf': 'BUILDSTATS_BASE = "/elsewhere"\nINHERIT += "rm_work"\n' });
    expect(read(plain.topdir).get('BUILDSTATS_BASE')).toBe(`${plain.topdir}/tmp/buildstats/`);
    expect(read(plain.topdir).get('BB_SCHEDULER')).toBe('completion');
    const forced = buildDir({
      'auto.conf': 'BUILDSTATS_BASE:forcevariable = "/keep/buildstats"\n',
      'local.conf': 'BUILDSTATS_BASE = "/elsewhere"\nBB_SCHEDULER = "speed"\nINHERIT += "rm_work"\n',
    });
    expect(read(forced.topdir).get('BUILDSTATS_BASE')).toBe('/keep/buildstats');
    expect(read(forced.topdir).get('BB_SCHEDULER')).toBe('speed');
  });

  it('TMPDIR:forcevariable in auto.conf beats a plain TMPDIR = in local.conf', () => {
    const { topdir } = buildDir({
      'auto.conf': 'TMPDIR:forcevariable = "/ram/tmp"\n',
      'local.conf': 'TMPDIR = "${TOPDIR}/tmp"\n',
    });
    const s = read(topdir);
    expect(s.get('TMPDIR')).toBe('/ram/tmp');
    expect(s.get('BASE_WORKDIR')).toBe('/ram/tmp/work');
  });
});

describe('operators', () => {
  it('?=, ??= (last wins, ignored by ?= and dropped by +=), :=, +=, =+, .=, =.', () => {
    const { topdir } = buildDir({
      'local.conf': [
        'W ??= "weak1"',
        'W ??= "weak2"',
        'Q ?= "q1"',
        'Q ?= "q2"',
        'P ??= "weak"',
        'P ?= "set"',
        'X ??= "weak"',
        'X += "more"',
        'A = "a"',
        'I := "${A}-now"',
        'L = "${A}-late"',
        'A = "b"',
        'S = "mid"',
        'S += "end"',
        'S =+ "start"',
        'S .= "."',
        'S =. "<"',
      ].join('\n'),
    });
    const s = read(topdir);
    expect(s.get('W')).toBe('weak2');
    expect(s.get('Q')).toBe('q1');
    expect(s.get('P')).toBe('set');
    expect(s.get('X')).toBe(' more');
    expect(s.get('I')).toBe('a-now');
    expect(s.get('L')).toBe('b-late');
    expect(s.get('S')).toBe('<start mid end.');
  });

  it(':append, :prepend, :remove (words go, blanks stay), conditional :append, unset, export', () => {
    const { topdir } = buildDir({
      'local.conf': [
        'MACHINE = "qemux86-64"',
        'V = "a b c"',
        'V:append = " d"',
        'V:prepend = "z "',
        'V:remove = "b"',
        'V:append:qemux86-64 = " m"',
        'V:append:qemuarm = " arm"',
        'V = "x b y"',
        'G = "gone"',
        'unset G',
        'export E = "1"',
        'F = "2"',
        'export F',
      ].join('\n'),
    });
    const s = read(topdir);
    // a parse-time = keeps the queued :append/:prepend/:remove
    expect(s.get('V')).toBe('z x  y d m');
    expect(s.get('G')).toBeUndefined();
    expect(s.isExported('E')).toBe(true);
    expect(s.isExported('F')).toBe(true);
    expect(s.isExported('V')).toBe(false);
  });

  it('include beside the file, then along BBPATH; require of a missing file fails with file:line', () => {
    const { topdir, layer } = buildDir(
      {
        'local.conf': 'include extra.inc\ninclude conf/shared.inc\ninclude conf/missing.inc\n',
        'extra.inc': 'A = "beside"\n',
      },
      { 'conf/shared.inc': 'B = "bbpath ${A}"\n' },
    );
    expect(read(topdir).get('B')).toBe('bbpath beside');
    fs.appendFileSync(path.join(topdir, 'conf', 'local.conf'), 'require conf/missing.inc\n');
    expect(() => read(topdir)).toThrow(
      `ParseError at ${topdir}/conf/local.conf:4: Could not include required file conf/missing.inc`,
    );
    expect(fs.existsSync(layer)).toBe(true);
  });

  it('continuation lines, ${HOME} from the environment, ${@…} left unevaluated', () => {
    const { topdir } = buildDir({
      'local.conf':
        'DL_DIR = "${HOME}/downloads"\nBB_DISKMON_DIRS = "\\\n    STOPTASKS,${TMPDIR},1G,100K \\\n    HALT,${TMPDIR},100M,1K"\nP = "${@d.getVar(\'X\') + \'y\'}"\n',
    });
    const conf = readBuildConf(topdir, { HOME: '/home/builder', SECRET: 'no' });
    expect(conf.store.get('DL_DIR')).toBe('/home/builder/downloads');
    expect(conf.store.isExported('HOME')).toBe(true);
    expect(conf.store.get('SECRET')).toBeUndefined();
    expect(conf.store.get('BB_DISKMON_DIRS')).toBe(
      `    STOPTASKS,${topdir}/tmp,1G,100K     HALT,${topdir}/tmp,100M,1K`,
    );
    expect(formatEnv(conf)).toMatch(/^# \$P holds Python the fake BitBake cannot evaluate: left out$/m);
    expect(configFromConf(conf).diskmon?.dirs).toContain('STOPTASKS');
  });

  it('refuses what BitBake refuses: old override syntax, an unparsed line', () => {
    expect(() => parseConf('FOO_append = "x"\n', 'l.conf')).toThrow(/old override syntax/);
    expect(() => parseConf('A = "x" # trailing\n', 'l.conf')).toThrow(ConfParseError);
    expect(() => parseConf('inherit rm_work\n', 'l.conf')).toThrow(/ParseError at l\.conf:1: unparsed line/);
    // python blocks are skipped, as BitBake accepts them
    expect(parseConf('python () {\n    d.setVar("A", "1")\n}\nB = "2"\n', 'm.inc')).toHaveLength(1);
  });
});

describe('what the engine gets', () => {
  it('WORKDIR:pn-<pn> places that recipe only; paths come from the reader', () => {
    const { topdir } = buildDir({
      'local.conf': 'TMPDIR = "/ram"\nWORKDIR:pn-zlib = "/disk/zlib-work"\nDEPLOY_DIR = "/keep/deploy"\n',
    });
    const cfg = configFromConf(readBuildConf(topdir, {}));
    expect(cfg.workdirOf?.({ pn: 'zlib', pv: '1.3.1', arch: 'core2-64-poky-linux' })).toBe('/disk/zlib-work');
    expect(cfg.workdirOf?.({ pn: 'busybox', pv: '1.37.0', arch: 'core2-64-poky-linux' })).toBe(
      '/ram/work/core2-64-poky-linux/busybox/1.37.0',
    );
    expect(cfg.deployDir).toBe('/keep/deploy');
    expect(cfg.buildstatsBase).toBe('/ram/buildstats');
    expect(cfg.sstateManifests).toBe('/ram/sstate-control');
  });

  it('bitbake -e escapes as emit_var does', () => {
    expect(escapeValue('a "q" $x\nb')).toBe('a \\"q\\" \\$x \\\nb');
  });
});
