import { describe, expect, it } from 'vitest';
import { splitPF } from '../../src/bitbake/pf.js';
import { parseTid, pnFromTid, recipeFromBbPath } from '../../src/bitbake/tid.js';

describe('splitPF', () => {
  it.each([
    ['gcc-cross-x86_64-14.2.0-r0', { pn: 'gcc-cross-x86_64', pv: '14.2.0', pr: 'r0' }],
    ['linux-yocto-6.12.9+git-r0', { pn: 'linux-yocto', pv: '6.12.9+git', pr: 'r0' }],
    ['python3-3.13.1-r0', { pn: 'python3', pv: '3.13.1', pr: 'r0' }],
    ['glibc-locale-2.40+git-r0', { pn: 'glibc-locale', pv: '2.40+git', pr: 'r0' }],
    ['zlib-1.3.1-r0', { pn: 'zlib', pv: '1.3.1', pr: 'r0' }],
    ['gettext-minimal-native-0.22.5-r0', { pn: 'gettext-minimal-native', pv: '0.22.5', pr: 'r0' }],
    ['tzdata-2_2025a-r0', { pn: 'tzdata', pe: '2', pv: '2025a', pr: 'r0' }],
    ['packagegroup-core-boot-1.0-r17', { pn: 'packagegroup-core-boot', pv: '1.0', pr: 'r17' }],
    // No part starting with a digit: the part after the last '-' is the version.
    ['foo-bar-git-r0', { pn: 'foo-bar', pv: 'git', pr: 'r0' }],
  ])('%s', (pf, parts) => {
    expect(splitPF(pf)).toEqual(parts);
  });

  it('keeps a PF without any dash whole as the PN', () => {
    expect(splitPF('oddname')).toEqual({ pn: 'oddname', pv: '', pr: '' });
  });
});

describe('parseTid', () => {
  const zlib = '/l/meta/recipes-core/zlib/zlib_1.3.1.bb';
  it.each([
    [`${zlib}:do_compile`, { file: zlib, task: 'do_compile', setscene: false }],
    [`${zlib}:do_package_setscene`, { file: zlib, task: 'do_package', setscene: true }],
    [`mc:arm:${zlib}:do_fetch`, { mc: 'arm', file: zlib, task: 'do_fetch', setscene: false }],
    [
      `virtual:native:${zlib}:do_populate_sysroot_setscene`,
      { virtual: 'native', file: zlib, task: 'do_populate_sysroot', setscene: true },
    ],
    [
      `virtual:nativesdk:${zlib}:do_install`,
      { virtual: 'nativesdk', file: zlib, task: 'do_install', setscene: false },
    ],
    [
      `mc:arm:virtual:multilib:lib32:${zlib}:do_build`,
      { mc: 'arm', virtual: 'multilib:lib32', file: zlib, task: 'do_build', setscene: false },
    ],
  ])('%s', (tid, parsed) => {
    expect(parseTid(tid)).toEqual(parsed);
  });

  it('rejects text that is not a tid', () => {
    expect(parseTid('/l/zlib_1.3.1.bb')).toBeUndefined();
    expect(parseTid('virtual:native:relative.bb:do_x')).toBeUndefined();
    expect(parseTid(':do_fetch')).toBeUndefined();
  });
});

describe('recipeFromBbPath and pnFromTid', () => {
  it('takes name_version[_revision] from the file name', () => {
    expect(recipeFromBbPath('/l/meta/recipes-core/zlib/zlib_1.3.1.bb')).toEqual({ pn: 'zlib', pv: '1.3.1' });
    expect(recipeFromBbPath('/l/x/busybox_1.37.0_r1.bbappend')).toEqual({
      pn: 'busybox',
      pv: '1.37.0',
      pr: 'r1',
    });
    expect(recipeFromBbPath('/l/x/core-image-minimal.bb')).toEqual({ pn: 'core-image-minimal' });
  });

  it('renames PN as the native, nativesdk and multilib classes do', () => {
    const pn = (tid: string) => pnFromTid(parseTid(tid)!);
    expect(pn('virtual:native:/l/m4_1.4.19.bb:do_build')).toBe('m4-native');
    expect(pn('/l/cmake-native_3.31.bb:do_build')).toBe('cmake-native');
    expect(pn('virtual:nativesdk:/l/m4_1.4.19.bb:do_build')).toBe('nativesdk-m4');
    expect(pn('virtual:multilib:lib32:/l/zlib_1.3.1.bb:do_build')).toBe('lib32-zlib');
  });
});
