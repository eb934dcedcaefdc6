// `rambake plan --predict` through the built binary: without a target and without a recorded
// run it is exit 2 with a form it accepts; that form then runs, and with nothing measured it
// gives no peak and no "fits", and the plan's verdict alone decides the exit code.

import { afterEach, describe, expect, it } from 'vitest';
import { copyExample, runRambake } from '../helpers/exec.js';

describe('rambake plan --predict (e2e)', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('without a target or a run: exit 2, suggesting a form it accepts, which then works', async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    const env = { PATH: '/usr/bin:/bin' };
    const bare = await runRambake(['-B', ex.topdir, '--no-bitbake', 'plan', '--predict'], { env });
    expect(bare.exitCode).toBe(2);
    const form = /rambake plan --predict --target TARGET/.exec(bare.stderr)?.[0];
    expect(form, bare.stderr).toBeDefined();

    const argv = form!.replace('TARGET', 'core-image-minimal').split(' ').slice(1);
    const r = await runRambake(['-B', ex.topdir, '--no-bitbake', '--json', ...argv], { env });
    expect(r.stderr).not.toMatch(/unknown option|error: /);
    const doc = JSON.parse(r.stdout);
    expect(doc.prediction).toMatchObject({
      predicted: false,
      targets: ['core-image-minimal'],
      peakRecipes: [],
    });
    expect(doc.prediction.fits).toBeUndefined();
    expect(doc.prediction.peakBytes).toBeUndefined();
    expect(r.exitCode).toBe(doc.verdict.fits ? 0 : 1);

    const text = await runRambake(['-B', ex.topdir, '--no-bitbake', ...argv], { env });
    expect(text.stdout).toMatch(/not predicted: no task graph/);
    expect(text.stdout).not.toMatch(/Predicted tmpfs peak[^\n]*: 0 B/);
  });
});
