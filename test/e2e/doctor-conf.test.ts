// `rambake doctor` and `status` on the named conf fixtures, end to end: a renamed variable is an
// error finding in doctor and exit 2 in status (BitBake stops on it); a path rambake cannot
// resolve is a doctor finding with the variable and file:line, and marked in status.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyFixture, runRambake } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();

function fixtureBuild(name: string): string {
  const fx = copyFixture(`conf/${name}`);
  cleanups.push(fx.cleanup);
  return join(fx.path, 'build');
}

describe('a renamed variable (LICENSE_FLAGS_WHITELIST)', () => {
  const message = /LICENSE_FLAGS_WHITELIST has been renamed to LICENSE_FLAGS_ACCEPTED/;

  it('is an error finding in doctor, with file:line, exit 1', async () => {
    const build = fixtureBuild('renamed-variable-license-flags-whitelist');
    const r = await runRambake(['doctor', '--json', '--no-bitbake', '-B', build]);
    expect(r.exitCode, r.stderr).toBe(1);
    const finding = JSON.parse(r.stdout).findings.find((f: { id: string }) => f.id === 'renamed-variable');
    expect(finding).toMatchObject({ severity: 'error', file: join(build, 'conf', 'local.conf'), line: 3 });
    expect(finding.message).toMatch(message);
    const text = await runRambake(['doctor', '--no-bitbake', '-B', build]);
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toMatch(/^error +renamed-variable +conf\/local\.conf:3$/m);
  });

  it('stops status with one line naming file:line, exit 2', async () => {
    const build = fixtureBuild('renamed-variable-license-flags-whitelist');
    for (const args of [['status'], ['status', '--json']]) {
      const r = await runRambake([...args, '--no-bitbake', '-B', build]);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      const first = r.stderr.split('\n')[0] ?? '';
      expect(first).toMatch(new RegExp(`^rambake: ${join(build, 'conf', 'local.conf')}:3: `));
      expect(first).toMatch(message);
    }
  });
});

describe('a path rambake cannot resolve (sstate-dir-python-unresolved)', () => {
  it('doctor names the variable and file:line and says its checks are skipped', async () => {
    const build = fixtureBuild('sstate-dir-python-unresolved');
    const r = await runRambake(['doctor', '--json', '--no-bitbake', '-B', build]);
    const found = JSON.parse(r.stdout).findings.filter((f: { id: string }) => f.id === 'path-unresolved');
    expect(found.map((f: { message: string; line: number }) => [f.message.split(' ')[0], f.line])).toEqual([
      ['DL_DIR', 4],
      ['SSTATE_DIR', 3],
    ]);
    expect(found[1].message).toMatch(/the file-system checks for SSTATE_DIR are skipped/);
    const text = await runRambake(['doctor', '--no-bitbake', '-B', build]);
    expect(text.stdout).toMatch(/^warning +path-unresolved +conf\/local\.conf:3$/m);
  });

  it('status marks it needsBitBake and notes it, in JSON and text', async () => {
    const build = fixtureBuild('sstate-dir-python-unresolved');
    const r = await runRambake(['status', '--json', '--no-bitbake', '-B', build]);
    expect(r.exitCode, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.vars.SSTATE_DIR).toMatchObject({ source: 'conf', line: 3, needsBitBake: true });
    expect(s.vars.DL_DIR).toMatchObject({ value: 'relative/downloads', needsBitBake: true });
    expect(s.notes).toContain(
      "SSTATE_DIR needs BitBake (${@os.path.join(d.getVar('TOPDIR'), 'elsewhere')}): not resolved; its file-system checks are skipped",
    );
    const text = (await runRambake(['status', '--no-bitbake', '-B', build])).stdout;
    expect(text).toMatch(
      /^ {2}SSTATE_DIR +.+ +needs BitBake +conf\/local\.conf:3: needs BitBake: not resolved, so no file-system check looks at it$/m,
    );
    // The Paths table shows the value as read, not bitbake.conf's default folder and its disk.
    expect(s.paths.sstateDir).toEqual({
      variable: 'SSTATE_DIR',
      path: "${@os.path.join(d.getVar('TOPDIR'), 'elsewhere')}",
      exists: false,
      unresolved: true,
    });
    expect(s.paths.dlDir).toMatchObject({ path: 'relative/downloads', unresolved: true });
    expect(s.paths.tmpdir.unresolved).toBeUndefined();
    expect(text).toMatch(/^ {2}DL_DIR +relative\/downloads \(not resolved, see the note\)$/m);
    expect(text).not.toMatch(/^ {2}SSTATE_DIR +\$\{TOPDIR\}\/sstate-cache/m);
    expect(text).toMatch(/^note: SSTATE_DIR needs BitBake .*its file-system checks are skipped$/m);
  });
});
