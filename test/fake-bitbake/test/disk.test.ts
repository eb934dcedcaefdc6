// Failing like BitBake when the disk runs out: a write error fails its task with BitBake's
// lines and buildstats, and BB_DISKMON_DIRS stops (STOPTASKS) or halts (HALT) the build with
// monitordisk.py's messages. Builds run the `bitbake` shim on a real small tmpfs (root only).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { convertGMK, DiskMonitor } from '../src/diskmon.js';

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin');
const isRoot = process.getuid?.() === 0;
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) {
    execFileSync('umount', [path.join(r, 'ram')]);
    fs.rmSync(r, { recursive: true, force: true });
  }
});

/** A build dir whose TMPDIR is a fresh tmpfs of `size`; logs and buildstats kept outside it. */
function ramBuild(size: string, extraConf: string) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-disk-'));
  const layer = path.join(root, 'meta');
  const topdir = path.join(root, 'build');
  const ram = path.join(root, 'ram');
  fs.mkdirSync(path.join(layer, 'conf'), { recursive: true });
  fs.mkdirSync(path.join(topdir, 'conf'), { recursive: true });
  fs.mkdirSync(ram);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'fake-bitbake-test', ram]);
  roots.push(root);
  fs.writeFileSync(path.join(layer, 'conf', 'layer.conf'), 'BBPATH .= ":${LAYERDIR}"\n');
  fs.writeFileSync(
    path.join(topdir, 'conf', 'bblayers.conf'),
    `BBPATH = "\${TOPDIR}"\nBBLAYERS = "${layer}"\n`,
  );
  fs.writeFileSync(
    path.join(topdir, 'conf', 'local.conf'),
    `MACHINE = "qemux86-64"\nINHERIT += "rm_work"\nBB_NUMBER_THREADS = "4"\nTMPDIR = "${ram}"\n` +
      `LOG_DIR = "\${TOPDIR}/log"\nBUILDSTATS_BASE:forcevariable = "\${TOPDIR}/buildstats"\n${extraConf}`,
  );
  return { topdir, ram };
}

const bitbake = (topdir: string) =>
  execa(path.join(bin, 'bitbake'), ['core-image-minimal'], {
    cwd: topdir,
    reject: false,
    env: { PATH: `${bin}:${process.env.PATH}`, FAKE_BITBAKE_TIME_SCALE: '0', HOME: os.tmpdir() },
    extendEnv: false,
  });

/** Every buildstats task file of the build, by `<PF>/<task>`. */
function buildstats(topdir: string): Map<string, string> {
  const base = path.join(topdir, 'buildstats');
  const [name] = fs.readdirSync(base);
  const out = new Map<string, string>();
  for (const pf of fs.readdirSync(path.join(base, name!))) {
    const dir = path.join(base, name!, pf);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const t of fs.readdirSync(dir)) out.set(`${pf}/${t}`, fs.readFileSync(path.join(dir, t), 'utf8'));
  }
  out.set('build_stats', fs.readFileSync(path.join(base, name!, 'build_stats'), 'utf8'));
  return out;
}

const started = (out: string) => out.match(/^NOTE: recipe \S+: task do_\w+: Started$/gm)?.length ?? 0;
const ended = (out: string) =>
  out.match(/^NOTE: recipe \S+: task do_\w+: (Succeeded|Failed)$/gm)?.length ?? 0;

describe('BB_DISKMON_DIRS parsing (monitordisk.py)', () => {
  it('reads sizes as bytes unless G/M/K, and disables itself with BitBake error on a bad entry', () => {
    expect(convertGMK('1G')).toBe(1024 ** 3);
    expect(convertGMK('100K')).toBe(102400);
    expect(convertGMK('512')).toBe(512);
    expect(convertGMK('0')).toBeUndefined();
    expect(DiskMonitor.create('FOO,/tmp,1G,1K', undefined)).toEqual({
      lines: ['ERROR: Unknown disk space monitor action: FOO\n       Disk space monitor will NOT be enabled'],
    });
    expect(DiskMonitor.create('WARN,/tmp,,', undefined).lines[0]).toMatch(
      /^ERROR: No disk space or inode value in found BB_DISKMON_DIRS: WARN,\/tmp,,/,
    );
    const abort = DiskMonitor.create('ABORT,/tmp,1M', undefined);
    expect(abort.monitor).toBeDefined();
    expect(abort.lines).toEqual([
      'WARNING: The BB_DISKMON_DIRS "ABORT" action has been renamed to "HALT", update configuration',
    ]);
  });
});

describe.skipIf(!isRoot)('a full or nearly full TMPDIR (mounts a tmpfs)', () => {
  it('ENOSPC fails the task as BitBake reports it, exit 1, no stack trace', async () => {
    const { topdir } = ramBuild('3m', '');
    const r = await bitbake(topdir);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^ERROR: \S+ do_\w+: OSError: \[Errno 28\] No space left on device: '.+'$/m);
    expect(r.stdout).toMatch(/^ERROR: Logfile of failure stored in: .+\/temp\/log\.do_\w+\.\d+$/m);
    expect(r.stdout).toMatch(/^ERROR: Task \(.+\.bb:do_\w+\) failed with exit code '1'$/m);
    const summary =
      /^NOTE: Tasks Summary: Attempted (\d+) tasks of which 0 didn't need to be rerun and (\d+) failed\.$/m.exec(
        r.stdout,
      );
    expect(Number(summary?.[2])).toBeGreaterThan(0);
    const stats = buildstats(topdir);
    const failed = [...stats].filter(([, text]) => /^Status: FAILED $/m.test(text));
    expect(failed.length).toBe(Number(summary?.[2]));
    expect(stats.get('build_stats')).toMatch(/^Failed at: \S+ at task: do_\w+ $/m);
  }, 60_000);

  it('STOPTASKS at 1G on a 1 GiB tmpfs stops at once, as the real BitBake did', async () => {
    const { topdir, ram } = ramBuild('1g', 'BB_DISKMON_DIRS = "STOPTASKS,${TMPDIR},1G,100K"\n');
    const r = await bitbake(topdir);
    expect(r.exitCode).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(
      `WARNING: The free space of ${ram} (fake-bitbake-test) is running low (1.000GB left)`,
    );
    expect(lines).toContain(
      'ERROR: No new tasks can be executed since the disk space monitor action is "STOPTASKS"!',
    );
    expect(lines).toContain(
      "NOTE: Tasks Summary: Attempted 0 tasks of which 0 didn't need to be rerun and all succeeded.",
    );
    expect(lines).toContain('Summary: There was 1 ERROR message, returning a non-zero exit code.');
  }, 60_000);

  it('STOPTASKS mid-build: no new tasks, the running ones finish', async () => {
    // 8 MiB, stop with less than 6 MiB free: after about 2 MiB of the build's ~9 MiB
    const { topdir } = ramBuild('8m', 'BB_DISKMON_DIRS = "STOPTASKS,${TMPDIR},6M"\n');
    const r = await bitbake(topdir);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^WARNING: The free space of .+ is running low \(0\.00\dGB left\)$/m);
    expect(r.stdout).toMatch(
      /^ERROR: No new tasks can be executed since the disk space monitor action is "STOPTASKS"!$/m,
    );
    const summary =
      /^NOTE: Tasks Summary: Attempted (\d+) tasks of which 0 didn't need to be rerun and all succeeded\.$/m.exec(
        r.stdout,
      );
    expect(Number(summary?.[1])).toBeGreaterThan(0);
    expect(Number(summary?.[1])).toBeLessThan(300);
    expect(started(r.stdout)).toBe(ended(r.stdout));
    expect(r.stdout).not.toMatch(/Sending SIGTERM/);
  }, 60_000);

  it('HALT mid-build stops the running tasks too; WARN only warns', async () => {
    const halt = ramBuild('8m', 'BB_DISKMON_DIRS = "HALT,${TMPDIR},6M"\n');
    const r = await bitbake(halt.topdir);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^ERROR: Immediately halt since the disk space monitor action is "HALT"!$/m);
    expect(r.stdout).toMatch(/^NOTE: Sending SIGTERM to remaining \d+ tasks$/m);
    expect(started(r.stdout)).toBeGreaterThan(ended(r.stdout));

    const warn = ramBuild('64m', 'BB_DISKMON_DIRS = "WARN,${TMPDIR},1G"\n');
    const w = await bitbake(warn.topdir);
    expect(w.exitCode).toBe(0);
    expect(w.stdout).toMatch(/^WARNING: The free space of .+ is running low \(0\.06\dGB left\)$/m);
    expect(w.stdout).toMatch(/and all succeeded\.$/m);
  }, 60_000);
});
if (!isRoot) console.log('disk.test.ts: tmpfs builds skipped: mounting a tmpfs needs root');
