// `rambake plan` and `rambake ci-ramdisk` as a user runs them: the built binary, a scrubbed env.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, runRambake } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();

describe('rambake plan / ci-ramdisk', () => {
  it('plan --json prints one RamPlan; the exit code follows the verdict', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const r = await runRambake([
      'plan',
      '--json',
      '--no-bitbake',
      '-B',
      ex.topdir,
      '--ram',
      '256g',
      '--target',
      'core-image-minimal',
    ]);
    expect(r.stderr).toBe('');
    const p = JSON.parse(r.stdout);
    expect(p.schemaVersion).toBe(1);
    expect(p.tmpfs.path).toBe(join(ex.topdir, 'tmp-ram'));
    expect(p.conf[0]).toBe(`TMPDIR = "${join(ex.topdir, 'tmp-ram')}"`);
    expect(r.exitCode).toBe(p.verdict.fits ? 0 : 1);
  });

  it('plan refuses a bad --scope with exit 2', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const r = await runRambake(['plan', '-B', ex.topdir, '--scope', 'everything']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^rambake: .*--scope.*everything.*tmpdir.*workdir/);
  });

  it('ci-ramdisk prints the script, or JSON with job counts', async () => {
    const text = await runRambake([
      'ci-ramdisk',
      '--os',
      'freebsd',
      '--size',
      '20g',
      '--path',
      '/mnt/work dir',
      '--cpus',
      '4',
    ]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/^RAMDISK_DIR='\/mnt\/work dir'$/m);
    const json = await runRambake([
      'ci-ramdisk',
      '--json',
      '--size',
      '8g',
      '--path',
      '/mnt/ram',
      '--cpus',
      '2',
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      schemaVersion: 1,
      os: 'linux',
      jobs: { build: 2, test: 4 },
    });
  });
});
