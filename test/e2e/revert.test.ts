// `rambake revert` as a user runs it after apply → RAM build: the built binary, a scrubbed env,
// the JSON report and the text. The "build" is laid out by hand as BitBake leaves it: images,
// buildstats and logs in rambake-keep/, and an old TMPDIR on disk with the stamps of a build
// from before apply. As root, apply really mounts the tmpfs and revert unmounts it.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyExample, runRambake } from '../helpers/exec.js';

let ex: ReturnType<typeof copyExample>;
beforeEach(() => {
  ex = copyExample();
});
afterEach(() => ex.cleanup());

function file(path: string, bytes: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, 'x'.repeat(bytes));
}

/** apply, then what a build before apply and a RAM build after it leave on disk. */
async function applyAndBuild(): Promise<void> {
  // A disk build before apply: TMPDIR is the default ${TOPDIR}/tmp.
  file(join(ex.topdir, 'tmp/stamps/all-poky-linux/tiny-text/1.0.do_build.cd34'), 0);
  file(join(ex.topdir, 'tmp/sstate-control/manifest-allarch-tiny-text.deploy_source_date_epoch'), 10);
  const applied = await runRambake([
    '-B',
    ex.topdir,
    '--no-bitbake',
    '--json',
    'apply',
    '--path',
    join(ex.root, 'ram'),
    '--size',
    '64m',
  ]);
  expect(applied.exitCode, applied.stderr).toBe(0);
  const keep = join(ex.topdir, 'rambake-keep');
  file(join(keep, 'deploy/images/qemux86-64/core-image-minimal-qemux86-64.ext4'), 200_000);
  file(join(keep, 'buildstats/20261203101500/build_stats'), 300);
  file(join(keep, 'log/eventlog/20261203101500.json'), 5000);
}

describe('rambake revert after a RAM build', () => {
  it('--json: where the images, buildstats and logs are, and what the next build does', async () => {
    await applyAndBuild();
    const r = await runRambake(['-B', ex.topdir, '--json', 'revert']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.schemaVersion).toBe(1);
    const keep = join(ex.topdir, 'rambake-keep');
    expect(report.kept).toEqual([
      { kind: 'images', path: join(keep, 'deploy/images'), bytes: expect.any(Number), count: 1 },
      { kind: 'buildstats', path: join(keep, 'buildstats'), bytes: expect.any(Number), count: 1 },
      { kind: 'event-logs', path: join(keep, 'log/eventlog'), bytes: expect.any(Number), count: 1 },
    ]);
    expect(report.kept[0].bytes).toBeGreaterThanOrEqual(200_000);
    expect(report.nextBuild).toMatchObject({
      tmpdir: join(ex.topdir, 'tmp'),
      state: 'before-apply',
      stamps: 1,
      manifests: 1,
      newestStamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(report.leftOnDisk.path).toBe(join(ex.topdir, 'tmp'));
  });

  it('text: the kept output with human sizes, then the next build', async () => {
    await applyAndBuild();
    const r = await runRambake(['-B', ex.topdir, 'revert']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.indexOf("the RAM builds' output, kept on disk (BitBake no longer writes there):");
    expect(at, r.stdout).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(
      /^ {2}images {6}\S+\/rambake-keep\/deploy\/images {2}\d+(\.\d+)? KiB \(1 machine\)$/,
    );
    expect(lines[at + 3]).toMatch(
      /^ {2}event logs {2}\S+\/rambake-keep\/log\/eventlog {2,}\S+ \S+ \(1 log\)$/,
    );
    expect(r.stdout).toContain(
      `next build: TMPDIR is ${join(ex.topdir, 'tmp')} again, as it was before apply: 1 stamp, the newest from`,
    );
  });
});
