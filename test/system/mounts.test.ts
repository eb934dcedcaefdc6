import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  decodeMountField,
  findMount,
  isNoexec,
  isNosuid,
  isReadOnly,
  parseMountinfo,
  readMountFor,
  resolveExistingPath,
} from '../../src/system/mounts.js';
import { parseMemSize, parseTmpfsOptions, tmpfsSizeBytes } from '../../src/system/tmpfs-size.js';
import { fixture } from './fixture.js';

const entries = parseMountinfo(fixture('mountinfo-tmpfs-noexec-space'));
const at = (p: string) => findMount(entries, p);

describe('parseMountinfo', () => {
  it('reads every field of a line', () => {
    const root = entries[0]!;
    expect(root).toMatchObject({
      id: 21,
      parentId: 1,
      major: 254,
      minor: 1,
      root: '/',
      mountPoint: '/',
      mountOptions: ['rw', 'relatime'],
      optionalFields: ['shared:1'],
      fstype: 'ext4',
      source: '/dev/mapper/vg-root',
      superOptions: ['rw', 'errors=remount-ro'],
    });
    expect(root.options).toEqual(['rw', 'relatime', 'errors=remount-ro']);
    expect(root.tmpfs).toBeUndefined();
  });

  it('decodes octal escapes in the mount point', () => {
    expect(entries.find((e) => e.id === 60)!.mountPoint).toBe('/media/usb disk');
    expect(decodeMountField('a\\011b\\134c\\012')).toBe('a\tb\\c\n');
  });

  it('parses tmpfs size= and nr_inodes= (the kernel prints size in k)', () => {
    const tmpdir = entries.find((e) => e.id === 52)!;
    expect(tmpdir.source).toBe('rambake-tmpdir');
    expect(tmpdir.tmpfs).toEqual({ sizeBytes: 8 * 2 ** 30, nrInodes: 409600 });
    expect(entries.find((e) => e.id === 61)!.tmpfs).toEqual({ sizePercent: 50 });
    expect(entries.find((e) => e.id === 25)!.tmpfs).toEqual({});
  });

  it('keeps the bind-mounted root folder', () => {
    expect(entries.find((e) => e.id === 62)!.root).toBe('/dev/src');
  });

  it('names the line of a malformed entry', () => {
    expect(() => parseMountinfo('21 1 254:1 / / rw\nbroken line\n', '/m')).toThrow('/m:1');
    expect(() => parseMountinfo('21 1 254:1 / / rw - ext4 /dev/x rw\nbroken line\n', '/m')).toThrow('/m:2');
  });
});

describe('findMount', () => {
  it('matches whole path components: /tmp is not a prefix of /tmpfoo', () => {
    expect(at('/tmpfoo/build').mountPoint).toBe('/');
    expect(at('/tmp').mountPoint).toBe('/tmp');
    expect(at('/tmp/x/y').mountPoint).toBe('/tmp');
  });

  it('takes the longest prefix and, among stacked mounts, the last', () => {
    expect(at('/home/dev/poky/build/tmp/work').source).toBe('over-mounted');
    expect(at('/home/dev/poky/build/conf').mountPoint).toBe('/home');
    expect(at('/media/usb disk/a').fstype).toBe('vfat');
    expect(at('/media/usb').mountPoint).toBe('/');
  });

  it('normalises the path before matching', () => {
    expect(at('/home/../tmp/./x').mountPoint).toBe('/tmp');
  });

  it('flags noexec, nosuid and read-only mounts', () => {
    expect(isNoexec(at('/tmp/x'))).toBe(true);
    expect(isNosuid(at('/tmp/x'))).toBe(true);
    expect(isNoexec(at('/home/x'))).toBe(false);
    expect(isReadOnly(at('/home/x'))).toBe(false);
    const ro = parseMountinfo('1 0 8:1 / / ro,relatime - ext4 /dev/sda1 rw\n');
    expect(isReadOnly(ro[0]!)).toBe(true);
  });

  it('throws when nothing holds the path', () => {
    expect(() => findMount([], '/x')).toThrow('no mount holds /x');
  });
});

describe('tmpfs sizes', () => {
  it('reads k, m, g suffixes as binary units', () => {
    expect(parseMemSize('400k')).toBe(409600);
    expect(parseMemSize('8g')).toBe(8589934592);
    expect(parseMemSize('512M')).toBe(512 * 2 ** 20);
    expect(parseMemSize('1t')).toBe(2 ** 40);
    expect(() => parseMemSize('8 gb')).toThrow('bad size');
  });

  it('reads fstab-style options', () => {
    expect(parseTmpfsOptions(['rw', 'size=8g', 'nr_inodes=400k', 'mode=1777'])).toEqual({
      sizeBytes: 8 * 2 ** 30,
      nrInodes: 409600,
    });
  });

  it('resolves percentages, the unprinted default (half of RAM) and size=0 (unlimited)', () => {
    const ram = 16 * 2 ** 30;
    expect(tmpfsSizeBytes({ sizePercent: 25 }, ram)).toBe(4 * 2 ** 30);
    expect(tmpfsSizeBytes({}, ram)).toBe(8 * 2 ** 30);
    expect(tmpfsSizeBytes({ sizeBytes: 0 }, ram)).toBeUndefined();
  });
});

describe.runIf(process.platform === 'linux')('readMountFor', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rambake-mounts-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('walks up to the nearest existing folder and resolves symlinks there', async () => {
    fs.mkdirSync(path.join(dir, 'real'));
    fs.symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
    const resolved = await resolveExistingPath(path.join(dir, 'link', 'not', 'yet'));
    expect(resolved).toBe(path.join(fs.realpathSync(dir), 'real', 'not', 'yet'));
  });

  it('finds the mount of a path that does not exist yet', async () => {
    const mount = await readMountFor(path.join(dir, 'build', 'tmp'));
    const all = parseMountinfo(fs.readFileSync('/proc/self/mountinfo', 'utf8'));
    expect(mount).toEqual(findMount(all, fs.realpathSync(dir)));
  });
});
