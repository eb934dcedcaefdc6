// What revert touches is this build's and nothing else, whatever state.json (a file anyone who
// can write the build directory can write) names: a state whose topdir is another folder is
// refused before anything is written; an empty folder is removed only where this build's tmpfs
// was mounted or at the plan's own ${TOPDIR}/tmp-ram; a tmpfs under the short name of an earlier
// rambake is unmounted only at ${TOPDIR}/tmp-ram; and, without any state, a conf file that is a
// link is edited through it (test/fixtures/hostile/symlinked-local-conf-block).

import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOCK_BEGIN } from '../../src/plan/managed-block.js';
import { legacyTmpfsSourceName, tmpfsSourceName } from '../../src/plan/mount-commands.js';
import { runRambake, tempDir } from '../helpers/exec.js';
import { copyHostile, type HostileBuild } from './hostile-build.js';

const isRoot = process.getuid?.() === 0;
const rootIt = isRoot ? it : it.skip;

const builds: HostileBuild[] = [];
const mounts: string[] = [];
const scratch: (() => void)[] = [];
afterEach(() => {
  for (const m of mounts.splice(0).reverse()) execFileSync('umount', ['-l', m]);
  for (const b of builds.splice(0)) b.cleanup();
  for (const c of scratch.splice(0)) c();
});

function build(name = 'plain-build'): HostileBuild {
  const b = copyHostile(name);
  builds.push(b);
  return b;
}

const mounted = (path: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[4] === path);

function mountTmpfs(path: string, source: string): void {
  mkdirSync(path, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', source, path]);
  mounts.push(path);
}

function writeState(b: HostileBuild, extra: Record<string, unknown>): string {
  const file = join(b.topdir, 'rambake', 'state.json');
  mkdirSync(join(b.topdir, 'rambake'), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({
      schemaVersion: 1,
      topdir: b.topdir,
      scope: 'tmpdir',
      previousTmpdir: join(b.topdir, 'tmp'),
      ...extra,
    }),
  );
  return file;
}

const revert = (b: HostileBuild) =>
  runRambake(['revert', '-B', b.topdir, '--no-bitbake'], { timeout: 30_000 });

/** stderr is one message line (and perhaps its hint). */
function oneLine(stderr: string): string {
  const [first, ...rest] = stderr.trimEnd().split('\n');
  expect(
    rest.filter((l) => !l.startsWith('  hint: ')),
    stderr,
  ).toEqual([]);
  return first!;
}

describe('state.json names another build directory', () => {
  for (const command of [['revert'], ['apply', '--dry-run']]) {
    it(`${command[0]}: refused, one line, exit 2; nothing is written there`, async () => {
      const b = build();
      const other = tempDir('rambake-other-topdir-');
      scratch.push(other.cleanup);
      // A block in auto.conf: revert would cut it and write the state back, to <topdir>/rambake.
      writeFileSync(join(b.topdir, 'conf', 'auto.conf'), '');
      writeState(b, {
        topdir: other.path,
        conf: { file: join(b.topdir, 'conf', 'auto.conf'), existed: true },
      });
      const r = await runRambake([...command, '-B', b.topdir, '--no-bitbake'], { timeout: 30_000 });
      expect(oneLine(r.stderr)).toMatch(
        /state\.json: its topdir ".*rambake-other-topdir-.*" is not this build directory \(.*\): refused, nothing changed$/,
      );
      expect(r.exitCode).toBe(2);
      expect(existsSync(join(other.path, 'rambake'))).toBe(false);
    });
  }

  it('the same folder through a link is this build directory', async () => {
    const b = build();
    const link = join(b.root, 'link-to-build');
    symlinkSync(b.topdir, link);
    const file = writeState(b, { topdir: link });
    const r = await revert(b);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});

describe('the folder apply made is removed only where this build’s tmpfs is or would be', () => {
  it('another empty folder named in state.json is left, and a note says why', async () => {
    const b = build();
    const victim = join(b.root, 'someone-elses-empty-folder');
    mkdirSync(victim);
    writeState(b, { mount: { path: victim, source: tmpfsSourceName(b.topdir), createdFolder: true } });
    const r = await revert(b);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(victim)).toBe(true);
    expect(r.stdout).toMatch(
      /someone-elses-empty-folder: not removed: it is neither where this build's tmpfs was mounted nor .*\/build\/tmp-ram/,
    );
  });

  it('a link named tmp-ram pointing at another folder is not the plan’s folder', async () => {
    const b = build();
    const victim = join(b.root, 'elsewhere');
    mkdirSync(victim);
    symlinkSync(victim, join(b.topdir, 'tmp-ram'));
    writeState(b, {
      mount: { path: join(b.topdir, 'tmp-ram'), source: tmpfsSourceName(b.topdir), createdFolder: true },
    });
    const r = await revert(b);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(victim)).toBe(true);
    expect(lstatSync(join(b.topdir, 'tmp-ram')).isSymbolicLink()).toBe(true);
  });

  it('the plan’s own ${TOPDIR}/tmp-ram, empty and unmounted (after a reboot), is removed', async () => {
    const b = build();
    const ram = join(b.topdir, 'tmp-ram');
    mkdirSync(ram);
    writeState(b, { mount: { path: ram, source: tmpfsSourceName(b.topdir), createdFolder: true } });
    const r = await revert(b);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(ram)).toBe(false);
  });
});

describe(`a tmpfs under an earlier rambake's short name${isRoot ? '' : ' (skipped: needs root)'}`, () => {
  it('the short name is the first 8 of the 16 hex digits the name has now', () => {
    const topdir = '/home/user/poky/build';
    expect(tmpfsSourceName(topdir)).toMatch(/^rambake-[0-9a-f]{16}$/);
    expect(tmpfsSourceName(topdir).startsWith(legacyTmpfsSourceName(topdir))).toBe(true);
    expect(legacyTmpfsSourceName(topdir)).toMatch(/^rambake-[0-9a-f]{8}$/);
  });

  rootIt('at another path: refused, one line, exit 2, still mounted', async () => {
    const b = build();
    const other = join(b.root, 'other-ram');
    mountTmpfs(other, legacyTmpfsSourceName(b.topdir));
    writeFileSync(join(other, 'precious'), 'data');
    writeState(b, { mount: { path: other, source: legacyTmpfsSourceName(b.topdir), createdFolder: true } });
    const r = await revert(b);
    expect(oneLine(r.stderr)).toMatch(
      /other-ram is mounted under rambake-[0-9a-f]{8}, the short name of an earlier rambake that another build directory can share, and is not this build's .*\/build\/tmp-ram: refused, nothing changed$/,
    );
    expect(r.exitCode).toBe(2);
    expect(mounted(realpathSync(other))).toBe(true);
    expect(readFileSync(join(other, 'precious'), 'utf8')).toBe('data');
  });

  rootIt('at ${TOPDIR}/tmp-ram: unmounted and its folder removed, as before', async () => {
    const b = build();
    const ram = join(b.topdir, 'tmp-ram');
    mountTmpfs(ram, legacyTmpfsSourceName(b.topdir));
    writeState(b, { mount: { path: ram, source: legacyTmpfsSourceName(b.topdir), createdFolder: true } });
    const r = await revert(b);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(mounted(`${realpathSync(b.topdir)}/tmp-ram`)).toBe(false);
    mounts.pop();
    expect(existsSync(ram)).toBe(false);
  });
});

describe('a symlinked conf reverted without state.json (test/fixtures/hostile/symlinked-local-conf-block)', () => {
  it('the block goes from the link’s target; the link stays a link', async () => {
    const b = build('symlinked-local-conf-block');
    const link = join(b.topdir, 'conf', 'local.conf');
    const target = join(b.root, 'shared', 'local.conf');
    expect(readFileSync(target, 'utf8')).toContain(BLOCK_BEGIN);
    const r = await revert(b);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('note: no state file from rambake apply: only the conf block was looked for');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target).equals(readFileSync(`${target}.before-apply`))).toBe(true);
    expect(r.stdout).toContain(realpathSync(target));
  });
});
