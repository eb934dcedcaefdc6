// With a `bitbake` on PATH, apply succeeds only on BitBake's word. When `bitbake -e` uses other
// values than the block's, or fails, apply refuses with one line (the line that wins, or
// BitBake's own ERROR line) and leaves the build dir exactly as it was: the conf files byte for
// byte, no backup, no state file, no mount, no folder it made. The `bitbake` here is a shell
// script standing in for BitBake's answer; what the real one does is checked in test/real/.

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ApplyPlan, applyPlan } from '../../src/apply/apply.js';
import { loadBuildDir } from '../../src/bitbake/builddir.js';
import { RefusedError } from '../../src/errors.js';
import { tmpfsSourceName } from '../../src/plan/mount-commands.js';
import { readMountinfo } from '../../src/system/mounts.js';
import { mountAt } from '../../src/system/tmpfs.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, runRambake } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();
const isRoot = process.getuid?.() === 0;

// The managed block's assignments as BitBake would print them once it uses them: `NAME="value"`,
// with the few references the block holds replaced by the values this fake prints for them.
const BLOCK_AS_BITBAKE_PRINTS = [
  `sed -n '/^# >>> rambake managed block/,/^# <<< rambake managed block/p' conf/auto.conf conf/local.conf 2>/dev/null |`,
  `  grep -v -e '^#' -e '^INHERIT' -e "^$SKIP" |`,
  `  sed -e 's/:forcevariable = /=/' -e 's/ = /=/' -e "s#\\\${TOPDIR}#$T#g" -e 's#\\\${MACHINE}#qemux86-64#g' \\`,
  `    -e 's#\\\${DATETIME}#20261203120000#g' -e "s#\\\${DL_DIR}#$T/downloads#g" -e "s#\\\${SSTATE_DIR}#$T/sstate-cache#g"`,
].join('\n');

/**
 * A `bitbake -e` whose OVERRIDES hold `myovr` (as `${@'myovr'}` in local.conf gives BitBake,
 * and not rambake, which runs no Python): `VAR:myovr` in local.conf beats the block's VAR.
 */
function disagreeingBitbake(bin: string, name: string, value: string): void {
  writeFileSync(
    join(bin, 'bitbake'),
    [
      '#!/bin/sh',
      '[ "$1" = -e ] || exit 2',
      'T="$PWD"',
      `SKIP='${name}'`,
      'echo "TOPDIR=\\"$T\\""',
      `echo 'MACHINE="qemux86-64"'`,
      `echo 'DATETIME="20261203120000"'`,
      'echo "DL_DIR=\\"$T/downloads\\""',
      'echo "SSTATE_DIR=\\"$T/sstate-cache\\""',
      `echo 'OVERRIDES="linux:x86-64:pn-defaultpkgname:myovr:forcevariable"'`,
      `echo 'INHERIT="buildstats rm_work"'`,
      `echo "${name}=\\"${value}\\""`,
      BLOCK_AS_BITBAKE_PRINTS,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
}

/** A `bitbake -e` that answers until the block is in a conf file, then fails as a parse error does. */
function failingBitbake(bin: string, always = false): void {
  writeFileSync(
    join(bin, 'bitbake'),
    [
      '#!/bin/sh',
      '[ "$1" = -e ] || exit 2',
      `if ${always ? 'true' : "grep -q '^# >>> rambake managed block' conf/auto.conf conf/local.conf 2>/dev/null"}; then`,
      '  echo "NOTE: Started PRServer with DBfile"',
      `  echo "ERROR: ParseError at $PWD/conf/local.conf:12: unparsed line: 'oops'" >&2`,
      '  exit 1',
      'fi',
      'echo "TOPDIR=\\"$PWD\\""',
      'echo "TMPDIR=\\"$PWD/tmp\\""',
      `echo 'MACHINE="qemux86-64"'`,
      `echo 'INHERIT="buildstats rm_work"'`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
}

/** Every file of conf/ with its bytes, and rambake's folder: what a refused apply must leave. */
function snapshot(topdir: string) {
  const conf = join(topdir, 'conf');
  return {
    conf: Object.fromEntries(
      readdirSync(conf).map((f) => [f, readFileSync(join(conf, f)).toString('base64')]),
    ),
    rambakeDir: existsSync(join(topdir, 'rambake')),
  };
}

function setUp(localExtra: string) {
  const ex = copyExample();
  cleanups.push(ex.cleanup);
  // A revert in case a failed test left a mount (runs before the folder goes).
  cleanups.push(async () => {
    await runRambake(['-B', ex.topdir, '--no-bitbake', 'revert']);
  });
  const local = join(ex.topdir, 'conf', 'local.conf');
  writeFileSync(local, readFileSync(local, 'latin1') + localExtra, 'latin1');
  const bin = join(ex.root, 'bin');
  mkdirSync(bin);
  const env = { PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: join(ex.root, 'cache') };
  const lineOf = (text: string) => readFileSync(local, 'utf8').split('\n').indexOf(text) + 1;
  return { ex, bin, env, local, lineOf, ram: join(ex.root, 'ram') };
}

async function mountedAt(path: string): Promise<boolean> {
  return mountAt(await readMountinfo(), path) !== undefined;
}

const said = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('rambake:'));

describe('apply as root: BitBake disagrees or fails after the write', () => {
  it.skipIf(!isRoot)(
    "refuses naming the line BitBake's OVERRIDES make win, and undoes the conf, backup, state and mount",
    async () => {
      const s = setUp(`OVERRIDES .= ":\${@'myovr'}"\nTMPDIR:myovr = "\${TOPDIR}/tmp-ovr"\n`);
      disagreeingBitbake(s.bin, 'TMPDIR', '$T/tmp-ovr');
      const before = snapshot(s.ex.topdir);
      const r = await runRambake(
        ['-B', s.ex.topdir, 'apply', '--conf', 'local', '--path', s.ram, '--size', '1g'],
        { env: s.env, timeout: 120_000 },
      );
      expect(r.exitCode, r.stdout + r.stderr).toBe(1);
      expect(said(r.stderr)).toEqual([
        `rambake: BitBake does not use the block: TMPDIR is "${s.ex.topdir}/tmp-ovr" (the block says "${s.ram}"): ${s.local}:${s.lineOf('TMPDIR:myovr = "${TOPDIR}/tmp-ovr"')} sets TMPDIR: ${s.local} restored, nothing changed`,
      ]);
      expect(snapshot(s.ex.topdir)).toEqual(before);
      expect(existsSync(`${s.local}.rambake-bak`)).toBe(false);
      expect(existsSync(join(s.ex.topdir, 'rambake', 'state.json'))).toBe(false);
      expect(await mountedAt(s.ram)).toBe(false);
      expect(existsSync(s.ram)).toBe(false);
    },
  );

  it.skipIf(!isRoot)(
    "refuses when bitbake -e fails once the block is in, with BitBake's ERROR line, and undoes everything",
    async () => {
      const s = setUp('');
      failingBitbake(s.bin);
      const before = snapshot(s.ex.topdir);
      const r = await runRambake(
        ['-B', s.ex.topdir, 'apply', '--conf', 'local', '--path', s.ram, '--size', '1g'],
        { env: s.env, timeout: 120_000 },
      );
      expect(r.exitCode, r.stdout + r.stderr).toBe(1);
      expect(said(r.stderr)).toEqual([
        `rambake: BitBake could not confirm the block: bitbake -e failed: ERROR: ParseError at ${s.ex.topdir}/conf/local.conf:12: unparsed line: 'oops': ${s.local} restored, nothing changed`,
      ]);
      expect(r.stderr).toContain('--no-bitbake');
      expect(snapshot(s.ex.topdir)).toEqual(before);
      expect(existsSync(`${s.local}.rambake-bak`)).toBe(false);
      expect(existsSync(join(s.ex.topdir, 'rambake', 'state.json'))).toBe(false);
      expect(await mountedAt(s.ram)).toBe(false);
      expect(existsSync(s.ram)).toBe(false);
    },
  );
});

describe('apply without mounting (any user): BitBake disagrees or fails after the write', () => {
  // No TMPDIR in this block: BitBake is asked without a tmpfs (it would write into TMPDIR).
  const plan = (s: ReturnType<typeof setUp>): ApplyPlan => ({
    tmpfs: { path: s.ram, size: 16 * 2 ** 20, nrInodes: 2000, scope: 'workdir' },
    conf: ['INHERIT += "rm_work"', 'BB_NUMBER_THREADS = "1"', 'PARALLEL_MAKE = "-j 1"'],
    mount: { source: tmpfsSourceName(s.ex.topdir), options: ['size=16m', 'nr_inodes=2000'] },
  });
  const load = (s: ReturnType<typeof setUp>) =>
    loadBuildDir({ buildDir: s.ex.topdir, env: s.env, sources: { eventlog: false } });

  it('names the override that wins in BitBake and leaves local.conf, its backup and state as they were', async () => {
    const s = setUp(`OVERRIDES .= ":\${@'myovr'}"\nBB_NUMBER_THREADS:myovr = "8"\n`);
    disagreeingBitbake(s.bin, 'BB_NUMBER_THREADS', '8');
    const before = snapshot(s.ex.topdir);
    const err = await applyPlan(await load(s), plan(s), { conf: 'local', isRoot: false, env: s.env }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RefusedError);
    expect((err as RefusedError).exitCode).toBe(1);
    expect((err as Error).message).toBe(
      `BitBake does not use the block: BB_NUMBER_THREADS is "8" (the block says "1"): ${s.local}:${s.lineOf('BB_NUMBER_THREADS:myovr = "8"')} sets BB_NUMBER_THREADS: ${s.local} restored, nothing changed`,
    );
    expect(snapshot(s.ex.topdir)).toEqual(before);
  });

  it('refuses a bitbake -e that fails, and says when it failed before the block too', async () => {
    const s = setUp('');
    failingBitbake(s.bin, true);
    const before = snapshot(s.ex.topdir);
    const bd = await load(s);
    const err = await applyPlan(bd, plan(s), { isRoot: false, env: s.env }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect((err as Error).message).toMatch(
      /^BitBake could not confirm the block: bitbake -e failed: ERROR: ParseError .*'oops' \(it failed before the block was written too\): .*auto\.conf restored, nothing changed$/,
    );
    expect(snapshot(s.ex.topdir)).toEqual(before);
  });

  it('without bitbake on PATH, or with --no-bitbake, goes on rambake reading and says BitBake did not confirm it', async () => {
    const s = setUp('');
    failingBitbake(s.bin, true);
    const report = await applyPlan(await load(s), plan(s), { isRoot: false, env: s.env, bitbake: false });
    expect(report.effect.bitbake).toEqual({ confirmed: false, reason: '--no-bitbake' });
    expect(existsSync(join(s.ex.topdir, 'rambake', 'state.json'))).toBe(true);
    const s2 = setUp('');
    const env = { PATH: '/nonexistent', XDG_CACHE_HOME: s2.env.XDG_CACHE_HOME };
    const report2 = await applyPlan(await load({ ...s2, env }), plan(s2), { isRoot: false, env });
    expect(report2.effect.bitbake).toEqual({ confirmed: false, reason: 'bitbake is not on PATH' });
  });
});
