// `rambake steps` through the built binary.

import { afterEach, describe, expect, it } from 'vitest';
import { copyExample, FAKE_BIN, runRambake } from '../helpers/exec.js';

describe('rambake steps (e2e)', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('--json proposes the giants of the fake small build in dependency order', async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    const r = await runRambake(['steps', 'core-image-minimal', '--json', '--no-bitbake', '-B', ex.topdir], {
      env: { PATH: `${FAKE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`, FAKE_BITBAKE_SCENARIO: 'small' },
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      schemaVersion: number;
      target: string;
      steps: string[];
      reasons: unknown[];
    };
    expect(doc).toMatchObject({
      schemaVersion: 1,
      target: 'core-image-minimal',
      steps: ['gcc-cross-x86_64', 'linux-yocto'],
    });
    expect(doc.reasons).toHaveLength(2);
  });

  it('text names the commands to run', async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    const r = await runRambake(['steps', 'core-image-minimal', '--no-bitbake', '-B', ex.topdir], {
      env: { PATH: `${FAKE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`, FAKE_BITBAKE_SCENARIO: 'small' },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('1. bitbake gcc-cross-x86_64');
    expect(r.stdout).toContain('3. bitbake core-image-minimal');
  });
});
