// `rambake doctor` end to end: the built binary on temp copies of the sample build; as root, on a
// real tmpfs mounted noexec (skipped with a message otherwise).

import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, runRambake } from '../helpers/exec.js';

const isRoot = process.getuid?.() === 0;
const cleanups = cleanupsAfterEach();

describe('rambake doctor', () => {
  it('lists the sample build warnings with file:line and exits 0 without errors', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const r = await runRambake(['doctor', '--json', '-B', ex.topdir]);
    const report = JSON.parse(r.stdout);
    expect(report.schemaVersion).toBe(1);
    const errors = report.findings.filter((f: { severity: string }) => f.severity === 'error');
    expect(r.exitCode).toBe(errors.length > 0 ? 1 : 0);
    const noop = report.findings.find((f: { id: string }) => f.id === 'noop-weak-assignment');
    expect(noop).toMatchObject({
      severity: 'warning',
      file: join(ex.topdir, 'conf', 'local.conf'),
      line: 19,
    });
    for (const f of report.findings)
      expect(Object.keys(f)).toEqual(expect.arrayContaining(['id', 'severity', 'message', 'fix']));
  });

  it('exits 1 on an error finding and prints it in text', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    appendFileSync(join(ex.topdir, 'conf', 'local.conf'), 'IMAGE_INSTALL_append = " strace"\n');
    const r = await runRambake(['doctor', '-B', ex.topdir]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^error +old-override-syntax +conf\/local\.conf:41$/m);
    expect(r.stdout).toMatch(/^\d+ errors?, \d+ warnings?, \d+ info$/m);
  });

  it('stops with one line and exit 2 on a conf file BitBake cannot parse', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    appendFileSync(join(ex.topdir, 'conf', 'local.conf'), 'MACHINE = "qemux86-64" # trailing comment\n');
    for (const cmd of ['doctor', 'status']) {
      const r = await runRambake([cmd, '-B', ex.topdir]);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toMatch(
        new RegExp(`^rambake: ${ex.topdir}/conf/local\\.conf:41: .+\\(expected .+\\)$`),
      );
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it.skipIf(!isRoot)(
    'finds a real tmpfs TMPDIR mounted noexec, without rm_work (root: mounts tmpfs)',
    async () => {
      const ex = copyExample();
      cleanups.push(ex.cleanup);
      const tmpdir = join(ex.root, 'ram', 'tmp');
      mkdirSync(tmpdir, { recursive: true });
      await execa('mount', ['-t', 'tmpfs', '-o', 'size=64m,nr_inodes=10k,noexec', 'rambake-test', tmpdir]);
      cleanups.push(async () => {
        await execa('umount', [tmpdir]);
      });
      appendFileSync(join(ex.topdir, 'conf', 'local.conf'), `TMPDIR = "${tmpdir}"\n`);
      const r = await runRambake(['doctor', '--json', '-B', ex.topdir]);
      expect(r.exitCode).toBe(1);
      const found = JSON.parse(r.stdout).findings.map((f: { id: string }) => f.id);
      expect(found).toEqual(expect.arrayContaining(['tmpdir-noexec', 'rm-work-off-on-tmpfs']));
      const status = JSON.parse((await runRambake(['status', '--json', '-B', ex.topdir])).stdout);
      expect(status.paths.tmpdir.mount).toMatchObject({
        fsType: 'tmpfs',
        source: 'rambake-test',
        sizeBytes: 64 * 2 ** 20,
      });
      expect(status.paths.tmpdir.mount.options).toContain('noexec');
    },
  );
  if (!isRoot) it.skip('real tmpfs checks need root to mount tmpfs (CI runs as root)', () => {});
});
