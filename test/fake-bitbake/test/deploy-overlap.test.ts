// sstate's refusal to install over files it does not know (sstate.bbclass sstate_install): a
// DEPLOY_DIR kept on disk while TMPDIR, and its sstate-control manifests, were lost (a tmpfs
// after a reboot). Moving the old DEPLOY_DIR aside lets the next build through.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, makeConfig, makeTopdir } from './helpers.js';

let top: string;
beforeAll(() => {
  top = makeTopdir();
});
afterAll(() => fs.rmSync(top, { recursive: true, force: true }));

describe('DEPLOY_DIR outliving TMPDIR', () => {
  it('fails the first install into it with BitBake words, then builds once it is moved aside', async () => {
    const cfg = makeConfig(top, { deployDir: path.join(top, 'deploy') });
    expect((await build(cfg, 'small')).exitCode).toBe(0);
    // A second build with every manifest in place: its own files are no overlap.
    fs.rmSync(path.join(cfg.stampsDir), { recursive: true, force: true });
    expect((await build(cfg, 'small', { buildNumber: 2 })).exitCode).toBe(0);

    fs.rmSync(cfg.tmpdir, { recursive: true, force: true }); // the tmpfs is gone
    const lost = await build(cfg, 'small', { buildNumber: 3 });
    expect(lost.exitCode).toBe(1);
    // Every task that installs into DEPLOY_DIR and is already running fails (licenses too: they
    // are not among SSTATE_ALLOW_OVERLAP_FILES); no new one starts.
    expect(lost.failed.length).toBeGreaterThanOrEqual(1);
    for (const t of lost.failed)
      expect(t).toMatch(/:do_(package_write_ipk|deploy|image_complete|populate_lic)_setscene$/);
    const log = fs.readFileSync(lost.consoleLog, 'utf8');
    expect(log).toMatch(
      /^ERROR: \S+ do_\w+_setscene: Recipe \S+ is trying to install files into a shared area when those files already exist\. The files and the manifests listing them are:$/m,
    );
    expect(log).toMatch(new RegExp(`^  ${cfg.deployDir}/\\S+\\n    \\(not matched to any task\\)$`, 'm'));
    expect(log).toMatch(/^NOTE: recipe \S+: task do_\w+_setscene: Failed$/m);

    fs.renameSync(cfg.deployDir, `${cfg.deployDir}.old`);
    fs.rmSync(cfg.tmpdir, { recursive: true, force: true });
    expect((await build(cfg, 'small', { buildNumber: 4 })).exitCode).toBe(0);
  });
});
