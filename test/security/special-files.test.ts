// Bounded, non-blocking reads: a FIFO, a device or a /proc file where rambake expects a file it
// reads is refused with one line, before it is opened; a file larger than its kind allows is
// refused; nothing blocks and nothing is read without bound.

import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readBuildstatsBuild } from '../../src/bitbake/buildstats.js';
import { readConsoleLog } from '../../src/bitbake/consolelog.js';
import { readAllVariables } from '../../src/bitbake/eventlog.js';
import { RefusedFileError } from '../../src/errors.js';
import { openCheckedStream, READ_LIMITS, readText, readTextSync } from '../../src/system/read-file.js';
import { runRambake, tempDir } from '../helpers/exec.js';
import { copyHostile, type HostileBuild } from './hostile-build.js';

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);
const disposers: (() => void)[] = [];
afterEach(() => {
  for (const d of disposers.splice(0)) d();
});
const scratch = () => {
  const dir = tempDir('rambake-special-');
  disposers.push(dir.cleanup);
  return dir.path;
};

describe('the one bounded reader (system/read-file.ts)', () => {
  it('reads a regular file, through a link too; a missing file is undefined', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'a.conf'), 'A = "1"\n');
    symlinkSync(join(dir, 'a.conf'), join(dir, 'link.conf'));
    expect(readTextSync(join(dir, 'link.conf'), 'conf')).toBe('A = "1"\n');
    expect(await readText(join(dir, 'a.conf'), 'conf')).toBe('A = "1"\n');
    expect(readTextSync(join(dir, 'gone.conf'), 'conf')).toBeUndefined();
    expect(await readText(join(dir, 'gone', 'x.conf'), 'conf')).toBeUndefined();
  });

  const refusals: [string, (dir: string) => string, RegExp][] = [
    [
      'a FIFO',
      (d) => {
        mkfifo(join(d, 'f'));
        return join(d, 'f');
      },
      /a FIFO, not a regular file/,
    ],
    ['/dev/zero', () => '/dev/zero', /a character device, not a regular file/],
    [
      'a link to /dev/zero',
      (d) => {
        symlinkSync('/dev/zero', join(d, 'z'));
        return join(d, 'z');
      },
      /a character device/,
    ],
    ['/proc/self/pagemap', () => '/proc/self/pagemap', /a file of procfs/],
    ['/proc/kmsg', () => '/proc/kmsg', /a file of procfs/],
    ['a folder', (d) => d, /a folder, not a regular file/],
  ];
  for (const [what, make, message] of refusals) {
    it(`refuses ${what}, sync and async, without blocking`, async () => {
      const path = make(scratch());
      expect(() => readTextSync(path, 'conf')).toThrow(message);
      await expect(readText(path, 'record')).rejects.toThrow(RefusedFileError);
      await expect(openCheckedStream(path)).rejects.toThrow(message);
    });
  }

  it('refuses a file larger than its kind allows (sparse: no disk used)', async () => {
    const file = join(scratch(), 'big.json');
    writeFileSync(file, '');
    truncateSync(file, READ_LIMITS.state + 1);
    expect(() => readTextSync(file, 'state')).toThrow(/larger than 1 MiB/);
    await expect(readText(file, 'state')).rejects.toThrow(/larger than 1 MiB/);
    expect(readTextSync(file, 'conf')).toHaveLength(READ_LIMITS.state + 1);
  });
});

describe('build records: a special file is refused, not read', () => {
  it('a FIFO buildstats entry and /dev/zero as one', async () => {
    const dir = scratch();
    mkdirSync(join(dir, 'zlib-1.3-r0'));
    writeFileSync(join(dir, 'zlib-1.3-r0', 'do_fetch'), 'Started: 1.0\nEnded: 2.0\n');
    mkfifo(join(dir, 'zlib-1.3-r0', 'do_compile'));
    await expect(readBuildstatsBuild(dir)).rejects.toThrow(/do_compile: a FIFO/);
    rmSync(join(dir, 'zlib-1.3-r0', 'do_compile'));
    symlinkSync('/dev/zero', join(dir, 'zlib-1.3-r0', 'do_compile'));
    await expect(readBuildstatsBuild(dir)).rejects.toThrow(/do_compile: a character device/);
    // Read by the worker thread (a big folder's way): it leaves the special entry to the checked
    // reader, which refuses it the same way.
    await expect(readBuildstatsBuild(dir, { worker: true })).rejects.toThrow(
      /do_compile: a character device/,
    );
    rmSync(join(dir, 'zlib-1.3-r0', 'do_compile'));
    mkfifo(join(dir, 'zlib-1.3-r0', 'do_compile'));
    await expect(readBuildstatsBuild(dir, { worker: true })).rejects.toThrow(/do_compile: a FIFO/);
  });

  it('a FIFO event log; a console log linked to /dev/zero', async () => {
    const dir = scratch();
    mkfifo(join(dir, '20250101120000.json'));
    await expect(readAllVariables(join(dir, '20250101120000.json'))).rejects.toThrow(/a FIFO/);
    symlinkSync('/dev/zero', join(dir, 'console-latest.log'));
    await expect(readConsoleLog(join(dir, 'console-latest.log'), () => {})).rejects.toThrow(
      /a character device/,
    );
  });
});

describe('status on hostile conf trees: one line, exit 2, no hang', () => {
  const cases: [string, (b: HostileBuild) => void, RegExp][] = [
    [
      'fifo-as-bblayers-conf',
      (b) => {
        rmSync(join(b.topdir, 'conf', 'bblayers.conf'));
        mkfifo(join(b.topdir, 'conf', 'bblayers.conf'));
      },
      /bblayers\.conf: cannot read: a FIFO, not a regular file/,
    ],
    [
      'fifo-as-layer-conf',
      (b) => {
        const file = join(b.root, 'layers', 'meta-core', 'conf', 'layer.conf');
        rmSync(file);
        mkfifo(file);
      },
      /layer\.conf: cannot read: a FIFO/,
    ],
    [
      'dev-zero-as-local-conf',
      (b) => {
        renameSync(join(b.topdir, 'conf', 'local.conf'), join(b.topdir, 'conf', 'was-local'));
        symlinkSync('/dev/zero', join(b.topdir, 'conf', 'local.conf'));
      },
      /cannot read .*local\.conf: a character device/,
    ],
    [
      'include-proc-kmsg',
      (b) => {
        symlinkSync('/proc/kmsg', join(b.topdir, 'conf', 'kmsg.inc'));
        appendFileSync(join(b.topdir, 'conf', 'local.conf'), 'include conf/kmsg.inc\n');
      },
      /local\.conf:3: cannot read .*kmsg\.inc: a file of procfs/,
    ],
    [
      'include-proc-self-pagemap',
      (b) => {
        symlinkSync('/proc/self/pagemap', join(b.topdir, 'conf', 'pagemap.inc'));
        appendFileSync(join(b.topdir, 'conf', 'local.conf'), 'require conf/pagemap.inc\n');
      },
      /local\.conf:3: cannot read .*pagemap\.inc: a file of procfs/,
    ],
    [
      'include-fifo-by-absolute-path',
      (b) => {
        mkfifo(join(b.root, 'fifo.inc'));
        appendFileSync(join(b.topdir, 'conf', 'local.conf'), `include ${join(b.root, 'fifo.inc')}\n`);
      },
      /local\.conf:3: cannot read .*fifo\.inc: a FIFO/,
    ],
  ];
  for (const [name, edit, message] of cases) {
    it(name, async () => {
      const build = copyHostile('plain-build');
      disposers.push(build.cleanup);
      edit(build);
      const r = await runRambake(['status', '--build-dir', build.topdir], { timeout: 20_000 });
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
    });
  }
});

describe('TOPDIR/bitbake.lock that is not a regular file: one line, exit 2, no hang', () => {
  const locks: [string, (file: string) => void, RegExp][] = [
    ['a FIFO', (f) => mkfifo(f), /bitbake\.lock: a FIFO, not a regular file/],
    ['a link to /dev/zero', (f) => symlinkSync('/dev/zero', f), /bitbake\.lock: a character device/],
  ];
  for (const [what, make, message] of locks) {
    for (const command of ['status', 'doctor']) {
      it(`${command} with ${what} as bitbake.lock`, async () => {
        const build = copyHostile('plain-build');
        disposers.push(build.cleanup);
        make(join(build.topdir, 'bitbake.lock'));
        const r = await runRambake([command, '--build-dir', build.topdir], { timeout: 20_000 });
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
        expect(r.stderr).toMatch(message);
        expect(r.exitCode).toBe(2);
      });
    }
  }
});
