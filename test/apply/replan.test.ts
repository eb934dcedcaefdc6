// Planning after `rambake apply` reads the build as the user wrote it, not rambake's own block.

import { isAbsolute } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runApply } from '../../src/apply/apply.js';
import { loadBuildDirForPlan, makePlan } from '../../src/plan/sizing.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();

describe('plan after apply', () => {
  it('keeps rm_work and the same block, so a second apply changes nothing', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const load = { buildDir: ex.topdir, env: {} };
    const first = await makePlan(load, { target: 'core-image-minimal' });
    expect(first.conf).toContain('INHERIT += "rm_work"');
    await runApply(load, { target: 'core-image-minimal' }, { dryRun: false, isRoot: false });
    const bd = await loadBuildDirForPlan(load);
    expect(bd.rmWork).toBe(false); // the user's own conf has no rm_work
    expect(isAbsolute(bd.paths.tmpdir) && bd.paths.tmpdir).toBe(`${ex.topdir}/tmp`);
    const second = await makePlan(load, { target: 'core-image-minimal' });
    expect(second.conf).toEqual(first.conf);
    const again = await runApply(load, { target: 'core-image-minimal' }, { dryRun: false, isRoot: false });
    expect(again.conf?.changed ?? false).toBe(false);
  });
});
