// The watcher's cost, measured:
// - at the pace of a real build: `rambake watch` attached to the fake BitBake's `real-pace`
//   scenario at time scale 1 (6 recipes, 75 tasks, about 80 s; do_configure, do_compile and
//   do_install print 50 lines a second into their logs, as real ones do), and idle beside a build dir
//   with no build for IDLE_S seconds. The watcher's own CPU time (utime + stime of its process
//   and its ended children in /proc/<pid>/stat, start-up excluded) over the wall time of each
//   phase. Goals: < 0.5 % of one core during the build, < 0.1 % idle (issue #14).
// - on a big build replayed fast: `rambake run` over the `sato-like` scenario at TIME_SCALE
//   (100× real speed): CPU share of the replay (its events come 100× denser than in the
//   build it replays), peak RSS (goal < 150 MB), inotify watches per live work dir.

import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { countInotifyWatches } from '../src/system/inotify.js';
import { copyExample, FAKE_BIN } from '../test/helpers/exec.js';
import { ENTRY } from '../test/watch/helpers.js';
import type { BenchRow } from './types.js';

const TIME_SCALE = 0.01;
/** Seconds of the idle phase (no build): /proc counts CPU in 10 ms ticks, 0.1 % of 90 s is 9. */
const IDLE_S = 90;
/**
 * Seconds left to the watcher to start before measuring: node, the build dir, the first scan,
 * and V8's memory reducer, which collects the start-up heap once, 7-8 s after start (23 ms: in
 * a 45 s window from 5 s it alone was half of the idle figure, 0.18 %).
 */
const SETTLE_S = 15;

/**
 * CPU seconds a process and its ended children have used (utime + stime + cutime + cstime,
 * USER_HZ 100), from /proc/<pid>/stat: a scan handed to `find` is the watcher's work too.
 */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) / 100;
}

const fakeEnv = (scenario: string, timeScale: number): Record<string, string> => ({
  PATH: `${FAKE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  NO_COLOR: '1',
  HOME: process.env.HOME ?? '/root',
  FAKE_BITBAKE_SCENARIO: scenario,
  FAKE_BITBAKE_TIME_SCALE: String(timeScale),
});

/** `rambake watch` in `topdir`, given SETTLE_S to start before anything is measured. */
async function settledWatcher(topdir: string, env: Record<string, string>) {
  const watcher = execa(process.execPath, [ENTRY, 'watch'], {
    cwd: topdir,
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    stdout: 'ignore',
  });
  await sleep(SETTLE_S * 1000);
  return { watcher, pid: watcher.pid! };
}

/** `rambake watch` idle, then during a build at real pace: its CPU share in each phase. */
async function realPace(): Promise<BenchRow[]> {
  const copy = copyExample();
  try {
    appendFileSync(join(copy.topdir, 'conf', 'local.conf'), 'INHERIT += "rm_work"\n');
    const env = fakeEnv('real-pace', 1);
    const { watcher, pid } = await settledWatcher(copy.topdir, env);
    const phase = async (run: () => Promise<unknown>) => {
      const [cpu0, t0] = [cpuSeconds(pid), performance.now()];
      await run();
      const wallS = (performance.now() - t0) / 1000;
      return { share: ((cpuSeconds(pid) - cpu0) / wallS) * 100, wallS };
    };
    const idle = await phase(() => sleep(IDLE_S * 1000));
    let exitCode: number | undefined;
    const build = await phase(async () => {
      const r = await execa('bitbake', ['core-image-minimal'], {
        cwd: copy.topdir,
        env,
        extendEnv: false,
        reject: false,
      });
      exitCode = r.exitCode;
    });
    watcher.kill('SIGINT');
    await watcher;
    if (exitCode !== 0) throw new Error(`the real-pace build failed (exit ${exitCode})`);
    return [
      {
        bench: 'watch',
        kind: 'measured',
        metric: `watcher CPU during a build at real pace (fake real-pace scenario, ${build.wallS.toFixed(0)} s)`,
        value: build.share,
        unit: '%',
        goal: '< 0.5% of one core',
        ok: build.share < 0.5,
      },
      {
        bench: 'watch',
        kind: 'measured',
        metric: `watcher CPU with no build (${idle.wallS.toFixed(0)} s)`,
        value: idle.share,
        unit: '%',
        goal: '< 0.1% of one core',
        ok: idle.share < 0.1,
      },
    ];
  } finally {
    copy.cleanup();
  }
}

function liveWorkdirs(topdir: string): number {
  const base = join(topdir, 'tmp', 'work');
  let n = 0;
  for (const arch of existsSync(base) ? readdirSync(base) : [])
    for (const pn of readdirSync(join(base, arch))) n += readdirSync(join(base, arch, pn)).length;
  return n;
}

export default async function (): Promise<BenchRow[]> {
  return [...(await realPace()), ...(await manyRecipes()), ...(await fastReplay())];
}

/** Work dirs made one every RECIPE_GAP_MS under one <arch>: a warm-up batch, then two measured ones. */
const RECIPE_BATCHES = { warmUp: 50, early: 100, middle: 100, late: 100 } as const;
const RECIPE_GAP_MS = 100;

/**
 * `rambake watch` with no build while recipes' work dirs appear under one <arch> folder, as a
 * build's do_fetch makes them: the watcher's CPU per new dir when 50 were there and when 250
 * were. A watch that re-reads the <arch> folder at each change (chokidar did: an lstat per
 * recipe already there) costs more per dir the more there are, O(recipes²) over a build.
 */
async function manyRecipes(): Promise<BenchRow[]> {
  const copy = copyExample();
  try {
    const arch = join(copy.topdir, 'tmp', 'work', 'core2-64-poky-linux');
    mkdirSync(arch, { recursive: true });
    const { watcher, pid } = await settledWatcher(copy.topdir, fakeEnv('real-pace', 1));
    let made = 0;
    // One recipe's dir as do_fetch leaves it: <pn>/<pv>/temp/ with a log and its link.
    const batch = async (n: number) => {
      const cpu0 = cpuSeconds(pid);
      for (let i = 0; i < n; i++, made++) {
        const temp = join(arch, `recipe-${made}`, '1.0-r0', 'temp');
        mkdirSync(temp, { recursive: true });
        writeFileSync(
          join(temp, `log.do_fetch.${1000 + made}`),
          'DEBUG: Executing python function do_fetch\n',
        );
        symlinkSync(`log.do_fetch.${1000 + made}`, join(temp, 'log.do_fetch'));
        await sleep(RECIPE_GAP_MS);
      }
      // The last dirs' sample: the next sampling interval (2 s) sizes them.
      await sleep(2500);
      return ((cpuSeconds(pid) - cpu0) * 1000) / n;
    };
    await batch(RECIPE_BATCHES.warmUp);
    const early = await batch(RECIPE_BATCHES.early);
    await batch(RECIPE_BATCHES.middle);
    const late = await batch(RECIPE_BATCHES.late);
    watcher.kill('SIGINT');
    await watcher;
    const { warmUp, early: e, middle } = RECIPE_BATCHES;
    const range = (from: number, n: number) => `${from + 1}st to ${from + n}th`;
    return [
      {
        bench: 'watch',
        kind: 'measured',
        metric: `watcher CPU per new work dir, the ${range(warmUp + e + middle, RECIPE_BATCHES.late)} in one <arch> folder (no build, one every ${RECIPE_GAP_MS} ms), against the ${range(warmUp, e)}`,
        value: late,
        unit: 'ms',
        reference: early,
        refName: `the ${range(warmUp, e)}`,
        ratio: late / early,
        goal: '≤ 1.5× (O(recipes) over a build)',
        ok: late <= early * 1.5,
      },
    ];
  } finally {
    copy.cleanup();
  }
}

async function fastReplay(): Promise<BenchRow[]> {
  const copy = copyExample();
  try {
    appendFileSync(join(copy.topdir, 'conf', 'local.conf'), 'INHERIT += "rm_work"\n');
    const child = execa(process.execPath, [ENTRY, 'run', '--json', '--', 'bitbake', 'core-image-sato'], {
      cwd: copy.topdir,
      env: fakeEnv('sato-like', TIME_SCALE),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    let watchesPerDir = 0;
    const timer = setInterval(() => {
      const live = liveWorkdirs(copy.topdir);
      if (child.pid === undefined || live < 5) return;
      countInotifyWatches(child.pid).then(
        (n) => {
          watchesPerDir = Math.max(watchesPerDir, n / live);
        },
        () => undefined,
      );
    }, 500);
    const r = await child;
    clearInterval(timer);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as {
      resources: { wallMs: number; cpuUserMs: number; cpuSystemMs: number; maxRssKiB: number };
    };
    const { wallMs, cpuUserMs, cpuSystemMs, maxRssKiB } = summary.resources;
    const cpuShare = ((cpuUserMs + cpuSystemMs) / wallMs) * 100;
    return [
      {
        bench: 'watch',
        kind: 'measured',
        metric: `watcher CPU / wall time of a fast replay (sato-like at ${TIME_SCALE}× time: events ${1 / TIME_SCALE}× denser than real)`,
        value: cpuShare,
        unit: '%',
      },
      {
        bench: 'watch',
        kind: 'measured',
        metric: 'watcher peak RSS',
        value: maxRssKiB * 1024,
        unit: 'bytes',
        goal: '< 150 MB',
        ok: maxRssKiB * 1024 < 150e6,
      },
      {
        bench: 'watch',
        kind: 'measured',
        metric: 'inotify watches per live work dir (worst)',
        value: watchesPerDir,
        unit: 'watches',
        goal: '≤ 3',
        ok: watchesPerDir <= 3,
      },
      { bench: 'watch', metric: 'build wall time', value: wallMs / 1000, unit: 's', kind: 'measured' },
    ];
  } finally {
    copy.cleanup();
  }
}
