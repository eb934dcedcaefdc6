// The watcher as a process: Ctrl-C forwarding, kill -9 mid-build, inotify watches, a full tmpfs.

import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { countInotifyWatches } from '../../src/system/inotify.js';
import { readTimeline } from '../../src/timeline/timeline-file.js';
import { buildEnv, ENTRY, rambake, rmWorkBuild } from './helpers.js';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.reverse()) c();
  cleanups = [];
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const runsDir = (topdir: string) => join(topdir, 'rambake', 'runs');
const timelineText = (topdir: string) => {
  const dir = runsDir(topdir);
  if (!existsSync(dir)) return '';
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('');
};
const liveWorkdirs = (topdir: string) => {
  const base = join(topdir, 'tmp', 'work');
  let n = 0;
  for (const arch of existsSync(base) ? readdirSync(base) : [])
    for (const pn of readdirSync(join(base, arch))) n += readdirSync(join(base, arch, pn)).length;
  return n;
};

/** `rambake watch` on the build dir, then, once its timeline has begun, a build beside it. */
async function watchThenBuild(topdir: string, env: Record<string, string>, watchArgs: string[] = []) {
  const watcher = rambake(['watch', '--json', ...watchArgs], topdir, env);
  cleanups.push(() => watcher.kill('SIGKILL'));
  await until(() => timelineText(topdir).includes('"header"'), 'the watcher to start');
  const build = execa('bitbake', ['core-image-minimal'], {
    cwd: topdir,
    env,
    extendEnv: false,
    reject: false,
  });
  cleanups.push(() => build.kill('SIGKILL'));
  return { watcher, build };
}

describe('rambake run and watch as processes', () => {
  it('forwards SIGINT to the build, which stops; rambake exits non-zero', async () => {
    const b = rmWorkBuild();
    cleanups.push(b.cleanup);
    const child = rambake(
      ['run', '--json', '--', 'bitbake', 'core-image-minimal'],
      b.topdir,
      buildEnv('small', '0.05'),
    );
    await until(() => timelineText(b.topdir).includes('"task-start"'), 'a task to start');
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).not.toBe(0);
    expect(existsSync(join(b.topdir, 'bitbake.lock'))).toBe(false);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(summary.exitCode).toBe(r.exitCode);
  }, 60_000);

  it('a watcher killed with SIGKILL mid-build leaves a readable timeline; watches stay few', async () => {
    const b = rmWorkBuild();
    cleanups.push(b.cleanup);
    const { watcher, build } = await watchThenBuild(b.topdir, buildEnv('small', '0.03'), [
      '--interval',
      '0.2',
    ]);
    let worst = 0;
    await until(() => {
      const live = liveWorkdirs(b.topdir);
      if (live > 3 && watcher.pid !== undefined) {
        // Read synchronously enough: the count of the watcher process's inotify watches.
        // Work dirs come and go while the count is read: compare with the larger of the live
        // counts before and after it (a dir made meanwhile may already hold its watches).
        void countInotifyWatches(watcher.pid).then((n) => {
          worst = Math.max(worst, n / Math.max(live, liveWorkdirs(b.topdir)));
        });
      }
      return timelineText(b.topdir).includes('do_package_write_ipk');
    }, 'packaging to start');
    await sleep(300);
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThanOrEqual(3);
    watcher.kill('SIGKILL');
    await watcher;
    await build;
    const file = join(runsDir(b.topdir), readdirSync(runsDir(b.topdir))[0]!);
    const t = await readTimeline(file);
    expect(t.header?.buildDir).toBe(b.topdir);
    expect(t.recomputed).toBe(true);
    expect(t.events.some((e) => e.type === 'workdir-state')).toBe(true);
    expect(t.summary.peak.bytes).toBeGreaterThan(0);
  }, 60_000);

  it('does not watch temp/ while do_compile streams its output there, and does around it', async () => {
    const b = rmWorkBuild();
    cleanups.push(b.cleanup);
    // real-pace: do_compile prints 50 lines a second for 5 scenario seconds (1.5 s here).
    const { watcher, build } = await watchThenBuild(b.topdir, buildEnv('real-pace', '0.3'));
    const temp = join(b.topdir, 'tmp', 'work', 'core2-64-poky-linux', 'busybox', '1.37.0', 'temp');
    // The task's lines in the timeline. The lines of one turn of the watcher's event loop are
    // written as the turn ends, after the watch was put on or taken off in it: a start line read
    // means the watch is already as the task wants it, but the end's line comes after the watch
    // changed for the next task (a look in between found temp/ unwatched "during" do_package).
    const lines = (task: string) => {
      const tag = `"pn":"busybox","task":"${task}"`;
      return timelineText(b.topdir)
        .split('\n')
        .filter((l) => l.includes(tag) && (l.includes('"task-start"') || l.includes('"task-end"')))
        .map((l) => JSON.parse(l) as { type: string; t: number });
    };
    const watched = () => {
      const ino = `ino:${statSync(temp).ino.toString(16)} `;
      const dir = `/proc/${watcher.pid}/fdinfo`;
      return readdirSync(dir).some((fd) => {
        try {
          return readFileSync(join(dir, fd), 'utf8').includes(ino);
        } catch {
          return false;
        }
      });
    };
    const looks: { task: string; after: number; watched: boolean }[] = [];
    await until(
      () => {
        for (const task of ['do_compile', 'do_package']) {
          const seen = lines(task);
          if (!seen.some((l) => l.type === 'task-start') || seen.some((l) => l.type === 'task-end')) continue;
          looks.push({ task, watched: watched(), after: Date.now() });
        }
        return timelineText(b.topdir).includes('"build-end"');
      },
      'the build to end',
      60_000,
    );
    // A look counts when the watcher had not yet taken in the task's end: the end's time is
    // taken as the watcher reads it, before the watch changes.
    const during = (task: string) => {
      const end = lines(task).find((l) => l.type === 'task-end')?.t ?? 0;
      return looks.filter((l) => l.task === task && l.after < end).map((l) => l.watched);
    };
    expect(during('do_compile').length).toBeGreaterThan(3);
    expect(during('do_compile').every((w) => !w)).toBe(true);
    expect(during('do_package').length).toBeGreaterThan(3);
    expect(during('do_package').every((w) => w)).toBe(true);
    expect((await build).exitCode).toBe(0);
  }, 90_000);

  const root = process.getuid?.() === 0;
  it.skipIf(!root)(
    'on a tmpfs too small for the build, records ENOSPC and survives (root only)',
    async () => {
      const b = rmWorkBuild();
      cleanups.push(b.cleanup);
      const tmp = join(b.root, 'ramtmp');
      mkdirSync(tmp);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'rambake-test', tmp]);
      cleanups.push(() => execFileSync('umount', ['-l', tmp]));
      // No disk monitor: the sample distro's STOPTASKS at 1G would stop the build at once, before
      // anything fills the 2 MiB tmpfs (as the real BitBake does).
      appendFileSync(join(b.topdir, 'conf', 'local.conf'), `TMPDIR = "${tmp}"\nBB_DISKMON_DIRS = ""\n`);
      const env = { ...buildEnv('small', '0.01'), FAKE_BITBAKE_SIZE_SCALE: '0.05' };
      const r = await execa(
        process.execPath,
        [ENTRY, 'run', '--json', '--interval', '0.1', '--', 'bitbake', 'core-image-minimal'],
        {
          cwd: b.topdir,
          env,
          extendEnv: false,
          reject: false,
          stdin: 'ignore',
        },
      );
      expect(r.exitCode).not.toBe(0);
      const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
      const t = await readTimeline(summary.timeline);
      expect(t.events.some((e) => e.type === 'enospc')).toBe(true);
      expect(t.recomputed).toBe(false);
      expect(summary.peak.bytes).toBeGreaterThan(1.5 * 1024 * 1024);
    },
    60_000,
  );
});

if (process.getuid?.() !== 0) {
  describe('tmpfs ENOSPC', () => {
    it.skip('needs root to mount a tmpfs: run the suite as root to exercise a full TMPDIR', () => {});
  });
}
