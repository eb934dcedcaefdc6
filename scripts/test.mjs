#!/usr/bin/env node
// `npm test`: the vitest projects of vitest.config.ts in two phases, using both cores of a
// 2-CPU machine without changing what the timed tests measure.
//   1. "serial" (fake-BitBake builds timed as they run, one at a time) in the foreground, and
//      "parallel" (everything that times nothing, two at a time) beside it at a lower CPU
//      priority: the serial files pace a build to the clock and mostly leave one core idle, and
//      the kernel gives them the CPU whenever they want it.
//   2. "pairs" then "real": the real-BitBake builds, with nothing beside them (BitBake keeps
//      most of both cores busy; a background run starved, and slowed them by a quarter).
//
// nice alone does not hold the background back from BitBake's own processes (the parse-only
// real files run `bitbake -e`): BitBake's server starts a session of its own (setsid), and with
// the kernel's autogroups every session gets an equal share of the CPU whatever the nice value
// of the process that started it. So as root the background runs in a cpu cgroup of its own,
// weighted as nice 10 is (110 against 1024): every process started in it stays in it, daemons
// included. Otherwise (not root, no cpu controller) it runs at nice 10 alone, and says so.
//
// The foreground prints as it goes; the background's report is kept in a file and printed when
// phase 1 ends. Exit code: 0 when every run passed, else the first non-zero.
// With arguments (`npm test -- test/x.test.ts`, `npm test -- --project parallel`) it is one plain
// `vitest run` with them.

import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const args = process.argv.slice(2);
// The background's niceness: 10 gives it about a tenth of a core the foreground wants too. The
// serial files want one core at most, mostly less, so the background keeps the other: its files
// mostly take up to twice as long as alone, but a moment can be far slower (a 0.8 s hook passed
// 10 s once, 12-06), so that project's time limits are 90 s (vitest.config.ts). Beside a real
// build (both cores busy) they starved: 5 s tests timed out at 30 s.
const NICE = 10;

// cgroup v1's cpu.shares and v2's cpu.weight for the same tenth: nice 10's weight is 110 of 1024.
const SHARES = 110;
const WEIGHT = 11;
const CGROUP_PREFIX = 'rambake-test-';

/**
 * A cpu cgroup for the background run (root only), or why there is none. Empty ones a killed
 * run left behind are removed first (rmdir removes only empty cgroups).
 */
function makeCgroup() {
  if (process.getuid?.() !== 0) return { why: 'not root' };
  const v1 = '/sys/fs/cgroup/cpu';
  const v2 = '/sys/fs/cgroup';
  let parent;
  let weightFile;
  let weight;
  if (existsSync(join(v1, 'cpu.shares'))) [parent, weightFile, weight] = [v1, 'cpu.shares', SHARES];
  else if (existsSync(join(v2, 'cgroup.subtree_control'))) {
    // v2: only where the cpu controller is already handed down (rambake does not change that).
    const enabled = readFileSync(join(v2, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
    if (!enabled.includes('cpu')) return { why: 'the cpu controller is not enabled for child cgroups' };
    [parent, weightFile, weight] = [v2, 'cpu.weight', WEIGHT];
  } else return { why: 'no cpu cgroup controller' };
  for (const name of readdirSync(parent).filter((n) => n.startsWith(CGROUP_PREFIX))) {
    // Only a dead run's: another run's may be made and not joined yet (empty, still wanted).
    if (existsSync(`/proc/${name.slice(CGROUP_PREFIX.length)}`)) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // not empty (a process it started still runs): left alone
    }
  }
  const dir = join(parent, `${CGROUP_PREFIX}${process.pid}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, weightFile), String(weight));
  } catch (err) {
    return { why: `cannot make ${dir}: ${err.message}` };
  }
  return { dir, parent, what: `cgroup ${dir} (${weightFile} ${weight})` };
}

/** Moves whatever still runs in the cgroup (a lingering pseudo server) to its parent, then removes it. */
function removeCgroup(cgroup) {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      for (const pid of readFileSync(join(cgroup.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        try {
          writeFileSync(join(cgroup.parent, 'cgroup.procs'), pid);
        } catch {
          // ended meanwhile
        }
      }
      rmdirSync(cgroup.dir);
      return;
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  console.error(`rambake test: could not remove ${cgroup.dir}`);
}

const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
  });
}

/** Runs `command`, resolving with its exit code (128 + signal number when a signal ended it). */
function run(command, argv, stdio) {
  return new Promise((done) => {
    const child = spawn(command, argv, { cwd: root, stdio });
    children.add(child);
    child.on('error', (err) => {
      console.error(`rambake test: cannot start ${command}: ${err.message}`);
      done(1);
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      done(code ?? 128 + (constants.signals[signal] ?? 0));
    });
  });
}

const vitestRun = (projects) => [vitest, 'run', ...projects.flatMap((p) => ['--project', p])];
const verdict = (name, code) => `${name} ${code === 0 ? 'passed' : `failed (exit ${code})`}`;

if (args.length > 0) {
  process.exitCode = await run(process.execPath, [vitest, 'run', ...args], 'inherit');
} else {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'rambake-test-'));
  const logFile = join(dir, 'background.log');
  const log = openSync(logFile, 'w');
  const cgroup = makeCgroup();
  const niced = ['nice', '-n', String(NICE), process.execPath, ...vitestRun(['parallel'])];
  console.log(
    `== phase 1: the serial files here; the parallel ones beside them at nice ${NICE}${cgroup.dir ? ` in ${cgroup.what}` : ` (no cgroup: ${cgroup.why})`}, reported after them`,
  );
  // In the cgroup from its first instruction: the shell joins it, then becomes the run.
  const background = cgroup.dir
    ? run(
        'sh',
        ['-c', 'echo $$ > "$0" && exec "$@"', join(cgroup.dir, 'cgroup.procs'), ...niced],
        ['ignore', log, log],
      )
    : run(niced[0], niced.slice(1), ['ignore', log, log]);
  const foreground = run(process.execPath, vitestRun(['serial']), 'inherit');
  const [serial, parallel] = await Promise.all([foreground, background]);
  closeSync(log);
  if (cgroup.dir) removeCgroup(cgroup);
  console.log('\n== phase 1, the parallel files (run beside the serial ones):');
  process.stdout.write(readFileSync(logFile, 'utf8'));
  rmSync(dir, { recursive: true, force: true });

  console.log('\n== phase 2: the real-BitBake builds (projects pairs, real), nothing beside them');
  const real = await run(process.execPath, vitestRun(['pairs', 'real']), 'inherit');
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(
    `\n== npm test: ${verdict('serial', serial)}, ${verdict('parallel', parallel)}, ${verdict('pairs and real', real)}; ${minutes} min in all`,
  );
  process.exitCode = [serial, parallel, real].find((c) => c !== 0) ?? 0;
}
