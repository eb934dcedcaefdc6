import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeConfIO } from '../../src/bitbake/conf/node-io.js';
import { readBuildConfig } from '../../src/bitbake/conf/reader.js';
import { RefusedFileError } from '../../src/errors.js';
import { memoryConfIO } from './memory-io.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/conf');
const read = (name: string) => readBuildConfig(path.join(fixtures, name, 'build'), nodeConfIO);
const v = (config: ReturnType<typeof read>, name: string) => config.data.getVar(name)?.value;
const codes = (config: ReturnType<typeof read>) => config.diagnostics.map((d) => `${d.severity} ${d.code}`);

describe('readBuildConfig on a classic build folder', () => {
  const config = read('classic-build');
  const top = config.topdir;

  it('reads files in BitBake order', () => {
    const rel = config.files.map((f) =>
      path.relative(path.join(fixtures, 'classic-build'), path.normalize(f)),
    );
    expect(rel).toEqual([
      'build/conf/bblayers.conf',
      'layers/meta-core/conf/layer.conf',
      'layers/meta-extra/conf/layer.conf',
      'layers/meta-core/conf/bitbake.conf',
      'build/conf/auto.conf',
      'build/conf/local.conf',
      'layers/meta-core/conf/machine/qemux86-64.conf',
      'layers/meta-core/conf/distro/tinydistro.conf',
    ]);
  });

  it('resolves the paths rambake needs, each with the line that set it', () => {
    expect(v(config, 'TMPDIR')).toBe(`${top}/tmp-ram`);
    expect(config.data.getVar('TMPDIR')?.loc).toEqual({ file: path.join(top, 'conf/local.conf'), line: 4 });
    expect(v(config, 'BASE_WORKDIR')).toBe(`${top}/tmp-ram/work`);
    expect(v(config, 'COMPONENTS_DIR')).toBe(`${top}/tmp-ram/sysroots-components`);
    expect(v(config, 'DL_DIR')).toBe(`${top}/../downloads`);
    expect(v(config, 'SSTATE_DIR')).toBe('/srv/sstate');
    expect(v(config, 'SSTATE_MANIFESTS')).toBe(`${top}/tmp-ram/sstate-control`);
    expect(v(config, 'BUILDSTATS_BASE')).toBe(`${top}/buildstats-kept/`);
    expect(v(config, 'DEPLOY_DIR_IMAGE')).toBe(`${top}/tmp-ram/deploy/images/qemux86-64`);
  });

  it('applies machine overrides and distro settings', () => {
    expect(v(config, 'OVERRIDES')).toContain(':qemuall:x86-64:qemux86-64:tinydistro:');
    expect(v(config, 'DISTRO_FEATURES')).toBe('ipv4 ipv6  wayland');
    expect(v(config, 'PACKAGE_CLASSES')).toBe('package_ipk');
    expect(v(config, 'INHERIT')?.trim()).toBe('rm_work');
  });

  it('bakes LAYERDIR into the layer variables and then drops it', () => {
    expect(v(config, 'BBPATH')).toBe(`${top}:${top}/../layers/meta-core:${top}/../layers/meta-extra`);
    expect(config.data.getVar('LAYERDIR')).toBeUndefined();
    expect(v(config, 'BBFILE_PATTERN_extra')).toBe(
      `^${top.replace(/[.]/g, '\\.').replace(/-/g, '\\-')}/\\.\\./layers/meta\\-extra/`,
    );
  });

  it('describes the layers', () => {
    expect(
      config.layers.map(({ collection, priority, seriesCompat, depends, version }) => ({
        collection,
        priority,
        seriesCompat,
        depends,
        version,
      })),
    ).toEqual([
      { collection: 'core', priority: 5, seriesCompat: ['whinlatter'], depends: [], version: '15' },
      {
        collection: 'extra',
        priority: 6,
        seriesCompat: ['whinlatter', 'walnascar'],
        depends: ['core'],
        version: undefined,
      },
    ]);
  });

  it('has no errors, notes that INHERIT classes are not parsed, keeps statements with file:line', () => {
    expect(codes(config)).toEqual(['info classes-not-parsed']);
    const tmp = config.statements.find((s) => s.kind === 'assign' && s.name === 'TMPDIR' && s.op === '=');
    expect(tmp?.loc.line).toBe(4);
  });
});

describe('readBuildConfig: the ?= traps of bitbake.conf order (built-in excerpt)', () => {
  it('tmpdir-question-equals-in-local-is-noop', () => {
    const config = read('tmpdir-question-equals-in-local-is-noop');
    expect(v(config, 'TMPDIR')).toBe(`${config.topdir}/tmp`);
    expect(config.data.getVar('TMPDIR')?.loc?.file).toBe('<built-in bitbake.conf>');
    expect(v(config, 'STAMPS_DIR')).toBe(`${config.topdir}/tmp/stamps`);
    expect(codes(config)).toContain('info builtin-bitbake-conf');
  });

  it('dl-dir-question-equals-works', () => {
    const config = read('dl-dir-question-equals-works');
    expect(v(config, 'DL_DIR')).toBe('/srv/downloads');
    expect(v(config, 'SSTATE_DIR')).toBe('/srv/sstate');
    expect(v(config, 'TMPDIR')).toBe(`${config.topdir}/tmp`);
  });
});

describe('readBuildConfig: includes', () => {
  it('include-beside-then-bbpath: beside the including file first, then BBPATH in order', () => {
    const config = read('include-beside-then-bbpath');
    expect(v(config, 'FOUND_SETTINGS')).toBe('beside local.conf');
    expect(v(config, 'FOUND_ONLY')).toBe('meta-core');
    expect(v(config, 'FOUND_ORDER')).toBe('meta-core');
    expect(config.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('include-cycle is an error and reading goes on', () => {
    const config = read('include-cycle');
    const cycle = config.diagnostics.find((d) => d.code === 'include-cycle');
    expect(cycle).toMatchObject({ severity: 'error', file: path.join(config.topdir, 'conf/b.inc'), line: 2 });
    expect(v(config, 'IN_B')).toBe('b');
    expect(v(config, 'AFTER_CYCLE')).toBe('still read');
  });

  it('missing-require is an error at the require line; a missing include is silent', () => {
    const config = read('missing-require');
    expect(config.diagnostics.filter((d) => d.severity === 'error')).toMatchObject([
      { code: 'missing-require', file: path.join(config.topdir, 'conf/local.conf'), line: 2 },
    ]);
    expect(v(config, 'AFTER_REQUIRE')).toBe('still read');
  });

  it('re-inclusion without a cycle only warns', () => {
    const io = memoryConfIO({
      '/b/conf/bblayers.conf': 'BBPATH = "${TOPDIR}"\nBBLAYERS = "/l/core"\n',
      '/l/core/conf/layer.conf':
        'BBFILE_COLLECTIONS += "core"\nLAYERSERIES_CORENAMES = "w"\nLAYERSERIES_COMPAT_core = "w"\n',
      '/b/conf/local.conf': 'include x.inc\ninclude x.inc\n',
      '/b/conf/x.inc': 'N .= "x"\n',
    });
    const config = readBuildConfig('/b', io);
    expect(config.data.getVar('N')?.value).toBe('xx');
    expect(config.diagnostics.filter((d) => d.code === 'duplicate-inclusion')).toMatchObject([
      { severity: 'warning', line: 2 },
    ]);
  });

  it('an include path that needs Python is not followed, and says so', () => {
    const io = memoryConfIO({
      '/b/conf/bblayers.conf': 'BBPATH = "${TOPDIR}"\nBBLAYERS = "/l/core"\n',
      '/l/core/conf/layer.conf':
        'BBFILE_COLLECTIONS += "core"\nLAYERSERIES_CORENAMES = "w"\nLAYERSERIES_COMPAT_core = "w"\n',
      '/b/conf/local.conf':
        'require ${@"conf/mc/${BB_CURRENT_MC}.conf" if "${BB_CURRENT_MC}" != "" else ""}\n',
    });
    const config = readBuildConfig('/b', io);
    expect(config.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(config.diagnostics.map((d) => d.code)).toContain('include-needs-bitbake');
  });

  it('include_all reads the path under every BBPATH entry; fragments and env BBPATH', () => {
    const io = memoryConfIO({
      '/b/conf/bblayers.conf': 'BBPATH .= ":${TOPDIR}"\nBBLAYERS = "/l/core /l/other/"\n',
      '/l/core/conf/layer.conf':
        'BBPATH .= ":${LAYERDIR}"\nBBFILE_COLLECTIONS += "core"\nLAYERSERIES_CORENAMES = "w"\nLAYERSERIES_COMPAT_core = "w"\n',
      '/l/other/conf/layer.conf':
        'BBPATH .= ":${LAYERDIR}"\nBBFILE_COLLECTIONS += "other"\nLAYERSERIES_COMPAT_other = "w"\n',
      '/l/core/conf/all.inc': 'SEEN += "core"\n',
      '/l/other/conf/all.inc': 'SEEN += "other"\n',
      '/l/other/conf/fragments/fast.conf': 'FRAGMENT = "fast"\n',
      '/b/conf/toolcfg.conf': 'OE_FRAGMENTS += "machine/qemuarm64 other/fast"\n',
      '/b/conf/local.conf': 'include_all conf/all.inc\n',
    });
    const config = readBuildConfig('/b', io, { BBPATH: '/env' });
    expect(config.data.getVar('BBPATH')?.value).toBe('/env:/b:/l/core:/l/other');
    expect(config.data.getVar('SEEN')?.value).toBe(' core other');
    expect(config.data.getVar('MACHINE')?.value).toBe('qemuarm64');
    expect(config.data.getVar('FRAGMENT')?.value).toBe('fast');
    expect(config.layers.map((l) => l.path)).toEqual(['/l/core', '/l/other']);
  });
});

describe('readBuildConfig: bblayers.conf and layers', () => {
  it('empty BBLAYERS is an error', () => {
    const config = readBuildConfig(
      '/b',
      memoryConfIO({ '/b/conf/bblayers.conf': 'BBLAYERS ?= " \\\n  "\n' }),
    );
    expect(config.diagnostics.filter((d) => d.severity === 'error')).toMatchObject([
      { code: 'empty-bblayers', file: '/b/conf/bblayers.conf', line: 1 },
    ]);
  });

  it('a missing layer folder is an error at the BBLAYERS line', () => {
    const io = memoryConfIO({
      '/b/conf/bblayers.conf': '# layers\nBBPATH = "${TOPDIR}"\nBBLAYERS = "/l/core /l/gone"\n',
      '/l/core/conf/layer.conf':
        'BBFILE_COLLECTIONS += "core"\nLAYERSERIES_CORENAMES = "w"\nLAYERSERIES_COMPAT_core = "w"\n',
    });
    const errors = readBuildConfig('/b', io).diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toMatchObject([{ code: 'missing-layer', file: '/b/conf/bblayers.conf', line: 3 }]);
    expect(errors[0]!.message).toContain('/l/gone');
  });

  it('a missing bblayers.conf is an error', () => {
    expect(readBuildConfig('/b', memoryConfIO({})).diagnostics.map((d) => d.code)).toContain(
      'missing-bblayers',
    );
  });

  it('duplicate collection ids are an error', () => {
    const config = read('layers-duplicate-collection');
    expect(config.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual([
      'duplicate-collection',
    ]);
  });

  it('incompatible series, unset compat and a missing dependency', () => {
    const config = read('layers-incompatible');
    const got = config.diagnostics
      .filter((d) => d.code.startsWith('layer-'))
      .map((d) => `${d.severity} ${d.code}`);
    expect(got).toEqual([
      'error layer-incompatible',
      'error layer-depends-missing',
      'warning layer-compat-unset',
    ]);
    const dep = config.diagnostics.find((d) => d.code === 'layer-depends-missing');
    expect(dep?.message).toContain('openembedded-layer');
    expect(dep?.file).toMatch(/meta-old\/conf\/layer\.conf$/);
    expect(config.layers[1]?.depends).toEqual(['core', 'openembedded-layer (>= 12)']);
  });
});

describe('nodeConfIO', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('reads files, reports missing ones as undefined and a folder as a refused file', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rambake-conf-'));
    fs.writeFileSync(path.join(dir, 'a.conf'), 'A = "a"\n');
    expect(nodeConfIO.readFile(path.join(dir, 'a.conf'))).toBe('A = "a"\n');
    expect(nodeConfIO.readFile(path.join(dir, 'none.conf'))).toBeUndefined();
    expect(nodeConfIO.isFile(path.join(dir, 'a.conf'))).toBe(true);
    expect(nodeConfIO.isDir(dir)).toBe(true);
    expect(() => nodeConfIO.readFile(dir!)).toThrow(RefusedFileError);
    expect(() => nodeConfIO.readFile(dir!)).toThrow(/a folder, not a regular file/);
  });
});
