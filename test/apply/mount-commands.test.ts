import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UnsafeMountError } from '../../src/errors.js';
import {
  escapeFstabField,
  type MountSpec,
  mountArgv,
  mountUnitName,
  readTemplate,
  renderFstabLine,
  renderMountUnit,
  sudoCommands,
} from '../../src/plan/mount-commands.js';
import { quoteShellWord, renderShellCommand } from '../../src/text/shell.js';

const OPTIONS = ['size=8589934592', 'nr_inodes=409600', 'mode=0755', 'uid=1000', 'gid=1000', 'noatime'];
const spec = (path: string): MountSpec => ({ source: 'rambake-1a2b3c', path, options: OPTIONS });
const NASTY = "/mnt/my build/it's $(touch pwned)/`id`/tmp";

describe('mount argv and shell text', () => {
  it('builds the mount argv with the options joined and no shell', () => {
    expect(mountArgv(spec('/mnt/rambake/tmp'))).toEqual([
      'mount',
      '-t',
      'tmpfs',
      '-o',
      OPTIONS.join(','),
      'rambake-1a2b3c',
      '/mnt/rambake/tmp',
    ]);
  });

  it('quotes words so that the shell gives back exactly the argv', () => {
    expect(quoteShellWord('/plain/path-1.0')).toBe('/plain/path-1.0');
    expect(quoteShellWord("it's")).toBe("'it'\\''s'");
    expect(quoteShellWord('')).toBe("''");
    const argv = ['printf', '%s\\n', NASTY, 'a b', '', '$HOME', ';rm -rf /'];
    const line = renderShellCommand(argv);
    const out = execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8', cwd: '/' });
    expect(out).toBe(`${argv.slice(2).join('\n')}\n`);
  });

  it('prints mkdir only for a missing folder, and sudo before each command', () => {
    expect(sudoCommands(spec('/mnt/r'), true)).toEqual([
      `sudo mount -t tmpfs -o ${OPTIONS.join(',')} rambake-1a2b3c /mnt/r`,
    ]);
    expect(sudoCommands(spec('/mnt/a b'), false)[0]).toBe("sudo mkdir -p '/mnt/a b'");
  });

  it('refuses noexec, relative paths and odd source names', () => {
    expect(() => mountArgv({ ...spec('/mnt/r'), options: [...OPTIONS, 'noexec'] })).toThrow(UnsafeMountError);
    expect(() => mountArgv(spec('mnt/r'))).toThrow(/absolute/);
    expect(() => mountArgv({ ...spec('/mnt/r'), source: 'rambake x' })).toThrow(UnsafeMountError);
  });
});

describe('fstab line', () => {
  it('escapes blanks and backslashes as octal', () => {
    expect(escapeFstabField('/mnt/my build\\x\ty')).toBe('/mnt/my\\040build\\134x\\011y');
    expect(renderFstabLine(readTemplate('fstab.line'), spec('/mnt/my build/tmp'))).toBe(
      `rambake-1a2b3c /mnt/my\\040build/tmp tmpfs ${OPTIONS.join(',')} 0 0`,
    );
  });
});

describe('systemd mount unit', () => {
  const cases: [string, string][] = [
    ['/mnt/rambake/tmp', 'mnt-rambake-tmp.mount'],
    ['/home/me/poky/build/tmp-ram', 'home-me-poky-build-tmp\\x2dram.mount'],
    ['/srv/my build/', 'srv-my\\x20build.mount'],
    ['//srv//x', 'srv-x.mount'],
    ['/.hidden/a.b', '\\x2ehidden-a.b.mount'],
    ['/caf\u00e9', 'caf\\xc3\\xa9.mount'],
    ['/', '-.mount'],
  ];
  it.each(cases)('names the unit for %s like systemd-escape', (path, name) => {
    expect(mountUnitName(path)).toBe(name);
  });

  it.skipIf(!existsSync('/usr/bin/systemd-escape'))('agrees with systemd-escape on a nasty path', () => {
    const expected = execFileSync('systemd-escape', ['--path', '--suffix=mount', NASTY], {
      encoding: 'utf8',
    }).trim();
    expect(mountUnitName(NASTY)).toBe(expected);
  });

  it('writes the sections and keys systemd needs, options unquoted, % doubled', () => {
    const text = renderMountUnit(readTemplate('rambake-tmpfs.mount'), spec('/mnt/50% off'));
    expect(text).toContain(`\nOptions=${OPTIONS.join(',')}\n`);
    expect(text).toContain('\nWhere=/mnt/50%% off\n');
    const parsed = unitSections(text);
    expect(parsed.Mount).toMatchObject({ What: 'rambake-1a2b3c', Type: 'tmpfs' });
    expect(parsed.Install).toEqual({ WantedBy: 'local-fs.target' });
    expect(parsed.Unit?.Description).toContain('/mnt/50%% off');
  });
});

/** A systemd unit file as systemd.syntax(7) reads it: `[Section]` headers and `Key=Value` lines. */
function unitSections(text: string): Record<string, Record<string, string>> {
  const sections: Record<string, Record<string, string>> = {};
  let current: Record<string, string> | undefined;
  for (const line of text.split('\n')) {
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header?.[1]) sections[header[1]] = current = {};
    else if (line.includes('=') && current) {
      const at = line.indexOf('=');
      current[line.slice(0, at)] = line.slice(at + 1);
    } else expect(line.trim() === '' || line.startsWith('#'), `unit line ${JSON.stringify(line)}`).toBe(true);
  }
  return sections;
}
