// Which DEPLOY_DIR files the next build's sstate install refuses: those no manifest in
// sstate-control lists, licenses included (sstate.bbclass's SSTATE_ALLOW_OVERLAP_FILES does
// not name them), except the overlap rules that lie in DEPLOY_DIR (sources, a few image folders).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeDeploy, readDeployOwnership } from '../../src/plan/deploy-owners.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { tempDir } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();

describe('DEPLOY_DIR against the sstate manifests', () => {
  it('counts files no manifest lists; the overlap rules in DEPLOY_DIR pass', () => {
    const deploy = '/b/rambake-keep/deploy';
    const listed = new Set([`${deploy}/deb/all/a_1.0_all.deb`]);
    const files = [
      'deb/all/a_1.0_all.deb',
      'licenses/a/COPYING',
      'sources/a-1.0.tar.gz',
      'images/qemux86-64/ovmf/OVMF.fd',
      'images/qemux86-64/core-image.ext4',
      // Written outside sstate, never installed over: no clash (seen on the real BitBake).
      'spdx/3.0.1/bitbake.spdx.json',
      'licenses/qemux86_64/core-image-20261203/license.manifest',
      'deb/all/Packages.gz',
      'rpm/repodata/repomd.xml',
    ].map((rel) => ({ rel, link: false }));
    files.push({ rel: 'licenses/qemux86_64/core-image', link: true });
    expect(judgeDeploy(deploy, files, listed)).toEqual({
      files: 10,
      unowned: 2,
      example: 'licenses/a/COPYING',
    });
  });

  it('reads the folder and the manifests: one manifest left by a failed build does not cover the old files', async () => {
    const top = tempDir('rambake-deploy-owners-');
    cleanups.push(() => top.cleanup());
    const deploy = join(top.path, 'deploy');
    const manifests = join(top.path, 'tmp', 'sstate-control');
    mkdirSync(join(deploy, 'deb', 'all'), { recursive: true });
    mkdirSync(join(deploy, 'licenses', 'b'), { recursive: true });
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(deploy, 'deb', 'all', 'a.deb'), 'a');
    writeFileSync(join(deploy, 'deb', 'all', 'b.deb'), 'b');
    writeFileSync(join(deploy, 'licenses', 'b', 'COPYING'), 'b');
    // The failed build installed b's license and b's package, then stopped on a's.
    writeFileSync(
      join(manifests, 'manifest-allarch-b.populate_lic'),
      `${deploy}/licenses/b/\n${deploy}/licenses/b/COPYING\n`,
    );
    writeFileSync(join(manifests, 'manifest-allarch-b.package_write_deb'), `${deploy}/deb/all/b.deb\n`);
    // A sysroot manifest may name anything; it is never read (and never lists DEPLOY_DIR).
    writeFileSync(join(manifests, 'manifest-allarch-a.populate_sysroot'), `${deploy}/deb/all/a.deb\n`);
    writeFileSync(join(manifests, 'index-allarch'), `${deploy}/deb/all/a.deb\n`);
    expect(await readDeployOwnership(deploy, manifests)).toEqual({
      files: 3,
      unowned: 1,
      example: 'deb/all/a.deb',
    });
    writeFileSync(join(manifests, 'manifest-allarch-a.package_write_deb'), `${deploy}/deb/all/a.deb\n`);
    expect(await readDeployOwnership(deploy, manifests)).toEqual({ files: 3, unowned: 0 });
  });

  it('says nothing of an absent or empty DEPLOY_DIR', async () => {
    const top = tempDir('rambake-deploy-owners-');
    cleanups.push(() => top.cleanup());
    expect(await readDeployOwnership(join(top.path, 'none'), join(top.path, 'm'))).toBeUndefined();
    mkdirSync(join(top.path, 'empty', 'deb'), { recursive: true });
    expect(await readDeployOwnership(join(top.path, 'empty'), join(top.path, 'm'))).toBeUndefined();
  });
});
