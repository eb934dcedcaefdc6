// Trust nothing in the build directory as root: state.json is user-writable, so revert unmounts
// only this build's tmpfs (source rambake-<sha1(TOPDIR)>) at the recorded path, verified in
// mountinfo; a damaged state file is one line and exit 2; holders are found as `fuser -m` does.

import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tmpfsSourceName } from '../../src/plan/mount-commands.js';
import { findHolders, mapsDev, parseMaps } from '../../src/system/tmpfs.js';
import { copyExample, runRambake } from '../helpers/exec.js';

const isRoot = process.getuid?.() === 0;
const rootIt = isRoot ? it : it.skip;
const ROOT_REASON = isRoot ? '' : ' (skipped: needs root to mount tmpfs)';

let ex: ReturnType<typeof copyExample>;
const mounts: string[] = [];
beforeEach(() => {
  ex = copyExample();
});
afterEach(() => {
  for (const m of mounts.splice(0).reverse()) execFileSync('umount', ['-l', m]);
  ex.cleanup();
});

const mounted = (path: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[4] === path);

function mountTmpfs(path: string, source: string): void {
  mkdirSync(path, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', source, path]);
  mounts.push(path);
}

function writeState(extra: Record<string, unknown>): string {
  const file = join(ex.topdir, 'rambake', 'state.json');
  mkdirSync(join(ex.topdir, 'rambake'), { recursive: true });
  const state = {
    schemaVersion: 1,
    topdir: ex.topdir,
    scope: 'tmpdir',
    previousTmpdir: join(ex.topdir, 'tmp'),
    ...extra,
  };
  writeFileSync(file, JSON.stringify(state));
  return file;
}

const revert = () => runRambake(['revert', '-B', ex.topdir, '--no-bitbake'], { timeout: 30_000 });

describe('state.json is checked before revert acts on it', () => {
  it('a foreign tmpfs source is refused: one line, exit 2, the file stays', async () => {
    const file = writeState({ mount: { path: '/dev/shm', source: 'tmpfs', createdFolder: false } });
    const r = await revert();
    expect(r.stderr.split('\n')[0]).toMatch(
      new RegExp(
        `state\\.json: the tmpfs source "tmpfs" is not this build's \\(${tmpfsSourceName(ex.topdir)}\\): refused, nothing changed$`,
      ),
    );
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.exitCode).toBe(2);
    expect(existsSync(file)).toBe(true);
    expect(mounted('/dev/shm')).toBe(true);
  });

  it('a conf file outside the build’s conf folder is refused, and left as it was', async () => {
    const outside = join(ex.root, 'victim.conf');
    writeFileSync(outside, '# rambake:begin\nTMPDIR = "/x"\n# rambake:end\n');
    writeState({ conf: { file: outside, existed: false } });
    const r = await revert();
    expect(r.stderr.split('\n')[0]).toMatch(
      /the conf file .*victim\.conf is not one of .*\/conf\/\{auto,local,site\}\.conf/,
    );
    expect(r.exitCode).toBe(2);
    expect(existsSync(outside)).toBe(true);
  });

  const damaged: [string, string, RegExp][] = [
    ['truncated JSON', '{"schemaVersion":1,', /not valid JSON/],
    ['null', 'null', /not a state file rambake wrote \(not a JSON object\)/],
    [
      'a mount entry that is a number',
      '{"schemaVersion":1,"topdir":"/b","scope":"tmpdir","previousTmpdir":"/b/tmp","mount":5}',
      /a damaged mount entry/,
    ],
    ['another schema', '{"schemaVersion":99}', /schemaVersion 99/],
  ];
  for (const [what, text, message] of damaged) {
    for (const command of [['revert'], ['apply', '--dry-run']]) {
      it(`${what}: ${command[0]} says so in one line, exit 2`, async () => {
        mkdirSync(join(ex.topdir, 'rambake'));
        writeFileSync(join(ex.topdir, 'rambake', 'state.json'), text);
        const r = await runRambake([...command, '-B', ex.topdir, '--no-bitbake'], { timeout: 30_000 });
        expect(r.stderr.split('\n')[0]).toMatch(message);
        expect(r.stderr).not.toMatch(/unexpected error/);
        expect(r.exitCode).toBe(2);
      });
    }
  }
});

describe(`revert as root against a real foreign tmpfs${ROOT_REASON}`, () => {
  rootIt(
    'this build’s source name at a path where another tmpfs is mounted: refused, still mounted',
    async () => {
      const other = join(ex.root, 'someone-else');
      mountTmpfs(other, 'tmpfs');
      writeFileSync(join(other, 'precious'), 'data');
      writeState({ mount: { path: other, source: tmpfsSourceName(ex.topdir), createdFolder: false } });
      const r = await revert();
      expect(r.stderr.split('\n')[0]).toMatch(
        /someone-else is tmpfs tmpfs, not this build's tmpfs rambake-[0-9a-f]{16}: refused/,
      );
      expect(r.exitCode).toBe(2);
      expect(readFileSync(join(other, 'precious'), 'utf8')).toBe('data');
    },
  );

  rootIt(
    'a mount stacked inside ours: refused before the conf is touched (its umount would fail)',
    async () => {
      const ram = join(ex.topdir, 'tmp-ram');
      mountTmpfs(ram, tmpfsSourceName(ex.topdir));
      mountTmpfs(join(ram, 'inner'), 'tmpfs');
      writeState({ mount: { path: ram, source: tmpfsSourceName(ex.topdir), createdFolder: false } });
      const r = await revert();
      expect(r.stderr.split('\n')[0]).toMatch(
        /inner is mounted inside .*tmp-ram: its umount would fail, nothing changed/,
      );
      expect(r.exitCode).toBe(1);
      expect(mounted(ram)).toBe(true);
    },
  );
});

describe(`holders as fuser -m finds them${ROOT_REASON}`, () => {
  it('parses maps lines and their devices', () => {
    expect(
      parseMaps(
        '7f00-7f01 r-xp 00000000 00:2d 1234      /mnt/t/bin/tool\n7f02-7f03 rw-p 00000000 00:00 0 \n',
      ),
    ).toEqual([{ dev: '00:2d', inode: '1234', path: '/mnt/t/bin/tool' }]);
    expect(mapsDev('00:2d')).toBe(45);
    expect(mapsDev('fe:00')).toBe(0xfe00);
    expect(mapsDev('103:02')).toBe(0x10302);
  });

  rootIt(
    'a binary run from the tmpfs (no fd, cwd elsewhere), and one only mapped by the loader',
    async () => {
      const ram = join(ex.topdir, 'tmp-ram');
      mountTmpfs(ram, tmpfsSourceName(ex.topdir));
      copyFileSync('/bin/sleep', join(ram, 'sleep'));
      execFileSync('chmod', ['755', join(ram, 'sleep')]);
      const runner = spawn(join(ram, 'sleep'), ['30'], { cwd: '/', stdio: 'ignore' });
      // Run through the dynamic loader: the binary is only mapped (exe is ld.so, no fd stays open).
      const loader = ['/lib64/ld-linux-x86-64.so.2', '/lib/ld-linux-aarch64.so.1'].find((p) =>
        existsSync(p),
      )!;
      const mapper = spawn(loader, [join(ram, 'sleep'), '30'], { cwd: '/', stdio: 'ignore' });
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const holders = await findHolders(ram);
        expect(holders.find((h) => h.pid === runner.pid)).toMatchObject({ what: 'exe' });
        expect(holders.find((h) => h.pid === mapper.pid)?.what).toMatch(/^mapped .*tmp-ram\/sleep$/);
        writeState({ mount: { path: ram, source: tmpfsSourceName(ex.topdir), createdFolder: false } });
        const r = await revert();
        expect(r.stderr.split('\n')[0]).toMatch(
          new RegExp(`processes use .*tmp-ram: .*${runner.pid} \\(sleep: exe\\)`),
        );
        expect(r.exitCode).toBe(1);
        expect(mounted(ram)).toBe(true);
      } finally {
        runner.kill('SIGKILL');
        mapper.kill('SIGKILL');
      }
    },
  );
});
