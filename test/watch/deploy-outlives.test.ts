// The RAM build's one hazard across a reset, end to end: DEPLOY_DIR kept on disk (as apply
// keeps it) while TMPDIR and its sstate manifests are gone (`rm -rf tmp`, a reboot). doctor
// names it; `rambake run` does not start BitBake and says how to go on; with --ignore-doctor
// BitBake (the fake, as sstate.bbclass does) starts and refuses; `run --move-old-deploy` moves
// the old folder aside under a dated name (every file kept), doctor is clean, the build passes.

import { appendFileSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample } from '../helpers/exec.js';
import { buildEnv, listFiles, rambake } from './helpers.js';

const cleanups = cleanupsAfterEach();

describe('DEPLOY_DIR outliving TMPDIR', () => {
  it('run refuses with the fix, --ignore-doctor lets BitBake fail, --move-old-deploy fixes it', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    appendFileSync(join(ex.topdir, 'conf', 'local.conf'), 'DEPLOY_DIR = "${TOPDIR}/deploy"\n');
    const env = buildEnv('small', '0');
    const deploy = join(ex.topdir, 'deploy');
    const build = (...flags: string[]) =>
      rambake(['run', ...flags, '--', 'bitbake', 'core-image-minimal'], ex.topdir, env);
    const doctorIds = async () => {
      const d = await rambake(['doctor', '--json'], ex.topdir, env);
      return (JSON.parse(d.stdout).findings as { id: string }[]).map((f) => f.id);
    };

    const first = await build();
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/doctor error/);
    const images = listFiles(deploy).sort();
    expect(images.length).toBeGreaterThan(0);

    rmSync(join(ex.topdir, 'tmp'), { recursive: true, force: true }); // the usual reset
    const doctor = await rambake(['doctor', '--json'], ex.topdir, env);
    expect(doctor.exitCode).toBe(1);
    const finding = JSON.parse(doctor.stdout).findings.find(
      (f: { id: string }) => f.id === 'deploy-outlives-tmpdir',
    );
    expect(finding.fix).toBe(
      `move it aside before building, keeping your images: rambake run --move-old-deploy -- <your bitbake command> does it and checks again, or mv ${deploy} ${deploy}.old-$(date -u +%Y%m%d-%H%M%S)`,
    );

    // Stopped before BitBake: no lock taken, no TMPDIR made, one line per error, then how to go on.
    const refused = await build();
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe('');
    expect(existsSync(join(ex.topdir, 'tmp'))).toBe(false);
    const lines = refused.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      `rambake: doctor error: deploy-outlives-tmpdir: ${finding.message}; fix: ${finding.fix}`,
      'rambake: to move it aside and build: rambake run --move-old-deploy -- bitbake core-image-minimal',
      'rambake: the build was not started: this error makes it fail; fix it, or add --ignore-doctor to start it anyway',
    ]);
    const json = await rambake(['run', '--json', '--', 'bitbake', 'core-image-minimal'], ex.topdir, env);
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      schemaVersion: 1,
      started: false,
      findings: [{ id: 'deploy-outlives-tmpdir', severity: 'error' }],
    });

    // The warning was right: started anyway, BitBake refuses at the first install into deploy.
    const forced = await build('--ignore-doctor');
    expect(forced.exitCode).toBe(1);
    expect(forced.stderr).toMatch(
      /^rambake: doctor error \(--ignore-doctor: starting anyway\): deploy-outlives/,
    );
    expect(forced.stdout).toMatch(
      /is trying to install files into a shared area when those files already exist/,
    );

    rmSync(join(ex.topdir, 'tmp'), { recursive: true, force: true });
    const fixed = await build('--move-old-deploy');
    expect(fixed.exitCode, fixed.stdout.slice(-2000)).toBe(0);
    const moved = /^rambake: moved the old DEPLOY_DIR aside, nothing deleted: (\S+) → (\S+) \(/.exec(
      fixed.stderr,
    );
    expect(moved?.[1]).toBe(deploy);
    const aside = moved?.[2] ?? '';
    expect(aside).toMatch(/\/deploy\.old-\d{8}-\d{6}$/);
    expect(readdirSync(ex.topdir).filter((n) => n.startsWith('deploy.old-'))).toEqual([
      aside.slice(ex.topdir.length + 1),
    ]);
    // Nothing lost: every file of the old deploy is in the folder it was moved to.
    expect(listFiles(aside).sort()).toEqual(images);
    expect(fixed.stderr).not.toMatch(/doctor error/);
    expect(await doctorIds()).not.toContain('deploy-outlives-tmpdir');

    // Nothing in the way: the flag moves nothing.
    const again = await build('--move-old-deploy');
    expect(again.exitCode).toBe(0);
    expect(again.stderr).not.toMatch(/moved the old DEPLOY_DIR/);
    expect(readdirSync(ex.topdir).filter((n) => n.startsWith('deploy.old-'))).toHaveLength(1);
  }, 120_000);
});
