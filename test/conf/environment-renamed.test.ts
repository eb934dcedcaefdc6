import { describe, expect, it } from 'vitest';
import { approvedNames, inheritedEnvironment } from '../../src/bitbake/conf/environment.js';
import { readBuildConfig } from '../../src/bitbake/conf/reader.js';
import { memoryConfIO } from './memory-io.js';

const BBLAYERS = 'BBPATH = "${TOPDIR}"\nBBLAYERS = "/l"\n';
const LAYER =
  'BBPATH .= ":${LAYERDIR}"\nBBFILE_COLLECTIONS += "l"\nLAYERSERIES_CORENAMES = "whinlatter"\nLAYERSERIES_COMPAT_l = "whinlatter"\n';
const build = (local: string, bitbakeConf = 'include conf/local.conf\n') =>
  memoryConfIO({
    '/b/conf/bblayers.conf': BBLAYERS,
    '/b/conf/local.conf': local,
    '/l/conf/layer.conf': LAYER,
    '/l/conf/bitbake.conf': bitbakeConf,
  });

describe('environment variables, as BitBake lets them through', () => {
  it('keeps the preserved set and the additions, drops the rest', () => {
    const env = {
      HOME: '/home/u',
      EDITOR: 'vi',
      PATH: '/bin',
      BB_ENV_PASSTHROUGH_ADDITIONS: 'DL_DIR',
      DL_DIR: '/srv/dl',
    };
    expect(inheritedEnvironment(env)).toEqual([
      { name: 'HOME', value: '/home/u', exported: true },
      { name: 'PATH', value: '/bin', exported: true },
      { name: 'BB_ENV_PASSTHROUGH_ADDITIONS', value: 'DL_DIR', exported: false },
      { name: 'DL_DIR', value: '/srv/dl', exported: false },
    ]);
  });

  it('BB_ENV_PASSTHROUGH replaces the preserved set; BB_PRESERVE_ENV keeps everything', () => {
    expect([...approvedNames({ BB_ENV_PASSTHROUGH: 'A B', HOME: '/h' })].sort()).toEqual([
      'A',
      'B',
      'BB_ENV_PASSTHROUGH',
    ]);
    expect(approvedNames({ BB_PRESERVE_ENV: '1', X: 'y' })).toEqual(new Set(['BB_PRESERVE_ENV', 'X']));
  });

  it('expands ${HOME} in local.conf and says where HOME came from', () => {
    const config = readBuildConfig(
      '/b',
      build('SSTATE_DIR ?= "${HOME}/.cache/sstate-cache"\nX = "${EDITOR}"\n'),
      { HOME: '/home/u', EDITOR: 'vi' },
    );
    expect(config.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(config.data.getVar('SSTATE_DIR')).toMatchObject({
      value: '/home/u/.cache/sstate-cache',
      loc: { file: '/b/conf/local.conf', line: 1 },
    });
    expect(config.data.getVar('X')?.value).toBe('${EDITOR}');
    expect(config.data.getVar('HOME')?.loc?.file).toBe('<environment>');
  });
});

describe('renamed variables stop BitBake', () => {
  const bitbakeConf =
    'BB_RENAMED_VARIABLES[LICENSE_FLAGS_WHITELIST] = "LICENSE_FLAGS_ACCEPTED"\ninclude conf/local.conf\n';
  const errors = (local: string, env = {}) =>
    readBuildConfig('/b', build(local, bitbakeConf), env).diagnostics.filter((d) => d.severity === 'error');

  it('gives BitBake words with file:line, for the table in bitbake.conf', () => {
    expect(errors('A = "a"\nLICENSE_FLAGS_WHITELIST = "commercial"\n')).toEqual([
      {
        severity: 'error',
        code: 'renamed-variable',
        message: 'Variable LICENSE_FLAGS_WHITELIST has been renamed to LICENSE_FLAGS_ACCEPTED',
        file: '/b/conf/local.conf',
        line: 2,
        expected: 'LICENSE_FLAGS_ACCEPTED in place of LICENSE_FLAGS_WHITELIST',
      },
    ]);
  });

  it('covers overrides, operations and flags of the old name', () => {
    const got = errors('LICENSE_FLAGS_WHITELIST:append = " x"\nLICENSE_FLAGS_WHITELIST[doc] = "d"\n');
    expect(got.map((d) => [d.line, d.message])).toEqual([
      [
        1,
        'Variable LICENSE_FLAGS_WHITELIST has been renamed to LICENSE_FLAGS_ACCEPTED (referenced as: LICENSE_FLAGS_WHITELIST:append)',
      ],
      [2, 'Variable LICENSE_FLAGS_WHITELIST has been renamed to LICENSE_FLAGS_ACCEPTED'],
    ]);
    expect(got[0]!.expected).toBe('LICENSE_FLAGS_ACCEPTED:append in place of LICENSE_FLAGS_WHITELIST:append');
  });

  it("knows BitBake's own list, including the removed ones", () => {
    expect(
      errors('MULTI_PROVIDER_WHITELIST = "x"\nBB_STAMP_POLICY = "full"\n').map((d) => d.message),
    ).toEqual([
      'Variable MULTI_PROVIDER_WHITELIST has been renamed to BB_MULTI_PROVIDER_ALLOWED',
      'Variable BB_STAMP_POLICY is a deprecated variable and support has been removed',
    ]);
  });

  it('an old name in the shell environment is fatal too', () => {
    expect(errors('', { BB_ENV_EXTRAWHITE: 'X' }).map((d) => d.message)).toEqual([
      'Shell environment variable BB_ENV_EXTRAWHITE has been renamed to BB_ENV_PASSTHROUGH_ADDITIONS',
    ]);
  });

  it('the new name and the table itself are fine', () => {
    expect(errors('LICENSE_FLAGS_ACCEPTED = "commercial"\nBB_RENAMED_VARIABLES[X_OLD] = "X_NEW"\n')).toEqual(
      [],
    );
  });
});
