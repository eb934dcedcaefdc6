// The RAM build's one hazard across a reboot, end to end: DEPLOY_DIR kept on disk (as apply
// keeps it) while TMPDIR and its sstate manifests are gone. doctor names it, `rambake run`
// warns before starting, BitBake (the fake, as sstate.bbclass does) refuses, and moving the old
// DEPLOY_DIR aside as the fix says lets the build through.

import { appendFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample } from '../helpers/exec.js';
import { buildEnv, rambake } from './helpers.js';

const cleanups = cleanupsAfterEach();

describe('DEPLOY_DIR outliving TMPDIR', () => {
  it('doctor finds it, run warns first, BitBake refuses, and the fix works', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    appendFileSync(join(ex.topdir, 'conf', 'local.conf'), 'DEPLOY_DIR = "${TOPDIR}/deploy"\n');
    const env = buildEnv('small', '0');
    const build = () => rambake(['run', '--', 'bitbake', 'core-image-minimal'], ex.topdir, env);

    const first = await build();
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/before the build/);

    rmSync(join(ex.topdir, 'tmp'), { recursive: true, force: true }); // the tmpfs is gone
    const doctor = await rambake(['doctor', '--json'], ex.topdir, env);
    expect(doctor.exitCode).toBe(1);
    const finding = JSON.parse(doctor.stdout).findings.find(
      (f: { id: string }) => f.id === 'deploy-outlives-tmpdir',
    );
    expect(finding.fix).toBe(
      `move it aside before building, keeping your images: mv ${join(ex.topdir, 'deploy')} ${join(ex.topdir, 'deploy')}.old`,
    );

    const refused = await build();
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.split('\n')[0]).toMatch(
      /^rambake: before the build: DEPLOY_DIR .* has no manifests/,
    );
    expect(refused.stdout).toMatch(
      /is trying to install files into a shared area when those files already exist/,
    );

    renameSync(join(ex.topdir, 'deploy'), join(ex.topdir, 'deploy.old'));
    rmSync(join(ex.topdir, 'tmp'), { recursive: true, force: true });
    const fixed = await build();
    expect(fixed.exitCode, fixed.stdout).toBe(0);
    expect(fixed.stderr).not.toMatch(/before the build/);
  }, 60_000);
});
