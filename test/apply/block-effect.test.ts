// The managed block must take effect: a later plain assignment in local.conf (read after
// auto.conf) is beaten with :forcevariable, one that cannot be beaten (a stronger override, an
// :append or :remove, which BitBake applies after every override) is refused with its own
// file:line, and doctor says when a block on disk does not take effect, naming the same line.

import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forcedLine, linesNotInEffect } from '../../src/apply/block-effect.js';
import { renderBlock } from '../../src/plan/managed-block.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, runRambake } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();

function build(localExtra: string) {
  const ex = copyExample();
  cleanups.push(ex.cleanup);
  appendFileSync(join(ex.topdir, 'conf', 'local.conf'), localExtra);
  const ram = join(ex.root, 'ram');
  // As root, apply mounts the tmpfs: revert unmounts it before the folder is removed.
  cleanups.push(async () => {
    await runRambake(['-B', ex.topdir, '--no-bitbake', 'revert']);
  });
  const apply = (...more: string[]) =>
    runRambake(['-B', ex.topdir, '--no-bitbake', '--json', 'apply', '--path', ram, '--size', '1g', ...more]);
  const doctor = async () =>
    JSON.parse((await runRambake(['-B', ex.topdir, '--no-bitbake', '--json', 'doctor'])).stdout) as {
      findings: Array<{ id: string; file?: string; line?: number; message: string }>;
    };
  return { ex, ram, apply, doctor };
}

describe('the block takes effect, or apply refuses', () => {
  it('beats a plain TMPDIR = in local.conf with :forcevariable, and says so', async () => {
    const b = build('TMPDIR = "${TOPDIR}/tmp"\nBB_NUMBER_THREADS = "64"\n');
    const r = await b.apply();
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.conf.diff).toContain(`+TMPDIR:forcevariable = "${b.ram}"`);
    expect(report.effect.forced[0]).toEqual({
      planned: `TMPDIR = "${b.ram}"`,
      written: `TMPDIR:forcevariable = "${b.ram}"`,
    });
    expect(report.effect.vars.find((v: { name: string }) => v.name === 'TMPDIR')).toEqual({
      name: 'TMPDIR',
      value: b.ram,
      ok: true,
    });
    expect(report.effect.bitbake).toEqual({ confirmed: false, reason: '--no-bitbake' });
    // rambake's own reading now agrees, and doctor finds nothing to say about the block.
    const status = JSON.parse(
      (await runRambake(['-B', b.ex.topdir, '--no-bitbake', '--json', 'status'])).stdout,
    );
    expect(status.vars.TMPDIR.value).toBe(b.ram);
    expect((await b.doctor()).findings.map((f) => f.id)).not.toContain('managed-block-not-in-effect');
  });

  it('refuses a block that cannot win, naming the file:line that wins, and writes nothing', async () => {
    const b = build('TMPDIR:forcevariable = "/elsewhere/tmp"\n');
    const auto = join(b.ex.topdir, 'conf', 'auto.conf');
    const r = await b.apply();
    expect(r.exitCode).toBe(1);
    const local = join(b.ex.topdir, 'conf', 'local.conf');
    const line = readFileSync(local, 'utf8').split('\n').length - 1;
    expect(r.stderr).toMatch(new RegExp(`^rambake: ${local}:${line} sets TMPDIR after rambake's block`, 'm'));
    expect(r.stderr.split('\n').filter((l) => l.startsWith('rambake:'))).toHaveLength(1);
    expect(existsSync(auto)).toBe(false);
    expect(existsSync(join(b.ex.topdir, 'rambake', 'state.json'))).toBe(false);
  });

  it('names the :append in local.conf that beats even :forcevariable (not its own forced line), and writes nothing', async () => {
    // BitBake 2.15.2: TMPDIR:forcevariable = "/r" in auto.conf with TMPDIR:append = "-x" in
    // local.conf gives "/r-x" (test/real/apply.test.ts checks it with the real one).
    const b = build('TMPDIR = "${TOPDIR}/tmp"\nTMPDIR:append = "-x"\nMACHINE = "qemux86-64"\n');
    const local = join(b.ex.topdir, 'conf', 'local.conf');
    const line = readFileSync(local, 'utf8').split('\n').length - 2;
    const r = await b.apply();
    expect(r.exitCode).toBe(1);
    const said = r.stderr.split('\n').filter((l) => l.startsWith('rambake:'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      new RegExp(
        `^rambake: ${local}:${line} appends "-x" to TMPDIR after rambake's block \\(BitBake applies :append after every override, :forcevariable included\\): the RAM build would not take effect`,
      ),
    );
    expect(said[0]).toContain(`TMPDIR would be "${b.ram}-x"`);
    expect(existsSync(join(b.ex.topdir, 'conf', 'auto.conf'))).toBe(false);
    expect(existsSync(join(b.ex.topdir, 'rambake', 'state.json'))).toBe(false);
  });

  it('names an INHERIT:remove that takes rm_work out again', async () => {
    const b = build('INHERIT:remove = "rm_work"\n');
    const local = join(b.ex.topdir, 'conf', 'local.conf');
    const line = readFileSync(local, 'utf8').split('\n').length - 1;
    const r = await b.apply();
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^rambake: ${local}:${line} removes "rm_work" from INHERIT after rambake's block`, 'm'),
    );
    expect(existsSync(join(b.ex.topdir, 'conf', 'auto.conf'))).toBe(false);
  });

  it('doctor names the :append that beats a forced block line, not the forced line', async () => {
    const b = build('TMPDIR = "${TOPDIR}/tmp"\nTMPDIR:append = "-x"\n');
    const local = join(b.ex.topdir, 'conf', 'local.conf');
    const line = readFileSync(local, 'utf8').split('\n').length - 1;
    writeFileSync(
      join(b.ex.topdir, 'conf', 'auto.conf'),
      renderBlock([`TMPDIR:forcevariable = "${b.ram}"`], '\n', false),
    );
    const found = (await b.doctor()).findings.filter((f) => f.id === 'managed-block-not-in-effect');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ file: local, line });
    expect(found[0]!.message).toContain(`gives "${b.ram}-x"`);
    expect(found[0]!.message).toContain(`${local}:${line} appends "-x" to TMPDIR`);
  });

  it('doctor reports a block on disk that loses, at the assignment that wins', async () => {
    const b = build('TMPDIR = "${TOPDIR}/tmp"\n');
    const local = join(b.ex.topdir, 'conf', 'local.conf');
    const line = readFileSync(local, 'utf8').split('\n').length - 1;
    writeFileSync(join(b.ex.topdir, 'conf', 'auto.conf'), renderBlock([`TMPDIR = "${b.ram}"`], '\n', false));
    const found = (await b.doctor()).findings.filter((f) => f.id === 'managed-block-not-in-effect');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ file: local, line });
    expect(found[0]!.message).toContain(`"${join(b.ex.topdir, 'tmp')}"`);
  });
});

describe('pure rules', () => {
  it('forces = with :forcevariable and += with :append, and nothing already overridden', () => {
    expect(forcedLine('TMPDIR = "/r"')).toBe('TMPDIR:forcevariable = "/r"');
    expect(forcedLine('INHERIT += "rm_work"')).toBe('INHERIT:append = " rm_work"');
    expect(forcedLine('BUILDSTATS_BASE:forcevariable = "/k/"')).toBeUndefined();
    expect(forcedLine('WORKDIR:pn-x = "/d"')).toBeUndefined();
  });

  it('judges values whole, appended words by word, and per-recipe lines not at all', () => {
    const vars = new Map([
      ['TOPDIR', '/b'],
      ['DEPLOY_DIR', '/b/rambake-keep/deploy'],
      ['INHERIT', 'buildstats rm_work'],
      ['TMPDIR', '/b/tmp'],
    ]);
    const lost = linesNotInEffect(
      [
        'DEPLOY_DIR = "${TOPDIR}/rambake-keep/deploy"',
        'INHERIT:append = " rm_work"',
        'TMPDIR = "/r"',
        'WORKDIR:pn-webkitgtk = "/d"',
      ],
      (n) => vars.get(n),
    );
    expect(lost).toEqual([{ line: 'TMPDIR = "/r"', name: 'TMPDIR', expected: '/r', actual: '/b/tmp' }]);
  });
});

describe('values read at another second', () => {
  it('match a block value holding ${DATETIME} whatever time BitBake printed', () => {
    const vars = new Map([
      ['TOPDIR', '/b'],
      ['DATETIME', '20261203115948'],
      ['BB_CONSOLELOG', '/b/rambake-keep/log/20261203115947.log'],
    ]);
    const line = 'BB_CONSOLELOG = "${TOPDIR}/rambake-keep/log/${DATETIME}.log"';
    expect(linesNotInEffect([line], (n) => vars.get(n))).toEqual([]);
    vars.set('BB_CONSOLELOG', '/b/tmp/log/20261203115947.log');
    expect(linesNotInEffect([line], (n) => vars.get(n))).toHaveLength(1);
  });
});
