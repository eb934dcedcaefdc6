// kill -9 at every step of apply and revert, not at random times: the built CLI runs with a
// preload (kill-steps.mjs) that counts each change it makes on disk or to the mounts and kills
// the process just before step N. For every N, the next `revert` (or `apply` then `revert`)
// must leave the build exactly as it was before the first apply: every file byte for byte (conf
// files, no empty auto.conf, no backup or temp file, no state), one block at most while applied,
// and no tmpfs left mounted. Root only (apply mounts a real tmpfs).

import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOCK_BEGIN } from '../../src/plan/managed-block.js';
import { CLI, copyExample, ROOT } from '../helpers/exec.js';

const PRELOAD = join(ROOT, 'test', 'apply', 'kill-steps.mjs');
const isRoot = process.getuid?.() === 0;

interface Build {
  root: string;
  topdir: string;
  ram: string;
  cleanup: () => void;
}

const builds: Build[] = [];
afterEach(() => {
  for (const b of builds.splice(0)) {
    unmountUnder(b.root);
    b.cleanup();
  }
});

/** Unmounts whatever a failed case left mounted under `root` (deepest first). */
function unmountUnder(root: string): void {
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .filter((p) => p.startsWith(`${root}/`))
    .sort((a, b) => b.length - a.length);
  for (const p of points) execFileSync('umount', ['-l', p]);
}

function newBuild(localLink: boolean): Build {
  const ex = copyExample();
  if (localLink) {
    // local.conf kept elsewhere and linked in: the block must go through the link.
    renameSync(join(ex.topdir, 'conf', 'local.conf'), join(ex.root, 'shared-local.conf'));
    symlinkSync('../../shared-local.conf', join(ex.topdir, 'conf', 'local.conf'));
  }
  // The plan's own mount point, ${TOPDIR}/tmp-ram: a folder apply made there is removed by the
  // next revert even when a kill came before the mount (or after the umount). At any other
  // --path, revert leaves an empty folder it cannot tell from someone else's (state.json is
  // user-writable) and says so: test/security/revert-scope.test.ts.
  const b = { root: ex.root, topdir: ex.topdir, ram: join(ex.topdir, 'tmp-ram'), cleanup: ex.cleanup };
  builds.push(b);
  return b;
}

/** Every path under `dir` with its bytes (files), target (links) or `dir`. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = lstatSync(p);
      const rel = relative(dir, p);
      if (st.isSymbolicLink()) out[rel] = `link ${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[rel] = 'dir';
        walk(p);
      } else out[rel] = readFileSync(p).toString('base64');
    }
  };
  walk(dir);
  return out;
}

const mounted = (path: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[4] === path);

async function rambake(b: Build, args: string[], killAt?: number, log?: string) {
  const r = await execa(
    process.execPath,
    [...(killAt === undefined ? [] : ['--import', PRELOAD]), CLI, '-B', b.topdir, ...args],
    {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: b.root,
        NO_COLOR: '1',
        ...(killAt === undefined ? {} : { RAMBAKE_KILL_AT_STEP: String(killAt) }),
        ...(log ? { RAMBAKE_KILL_LOG: log } : {}),
      },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 60_000,
    },
  );
  return { exitCode: r.exitCode, signal: r.signal, out: `${r.stdout}\n${r.stderr}` };
}

const blockCount = (b: Build) =>
  ['auto.conf', 'local.conf']
    .map((n) => {
      try {
        return readFileSync(join(b.topdir, 'conf', n), 'latin1').split(BLOCK_BEGIN).length - 1;
      } catch {
        return 0;
      }
    })
    .reduce((a, n) => a + n, 0);

const APPLY = ['--no-bitbake', 'apply', '--size', '64m'];

interface Scenario {
  name: string;
  localLink?: boolean;
  /** Run to completion first (the revert scenarios). */
  before?: string[];
  killed: string[];
  /** Recoveries to try after each kill (each on its own fresh build). */
  recoveries: ('revert' | 'apply-revert')[];
}

const SCENARIOS: Scenario[] = [
  {
    name: 'apply --conf auto (auto.conf made)',
    killed: ['--conf', 'auto'],
    recoveries: ['revert', 'apply-revert'],
  },
  { name: 'apply --conf local', killed: ['--conf', 'local'], recoveries: ['revert', 'apply-revert'] },
  {
    name: 'apply --conf local through a symlinked local.conf',
    localLink: true,
    killed: ['--conf', 'local'],
    recoveries: ['revert'],
  },
  { name: 'revert of --conf auto', before: ['--conf', 'auto'], killed: [], recoveries: ['revert'] },
  { name: 'revert of --conf local', before: ['--conf', 'local'], killed: [], recoveries: ['revert'] },
];

/** The steps of one run of the scenario, as the preload lists them. */
async function listSteps(s: Scenario): Promise<string[]> {
  const b = newBuild(s.localLink === true);
  const args = (extra: string[]) => [...APPLY, '--path', b.ram, ...extra];
  if (s.before) expect((await rambake(b, args(s.before))).exitCode).toBe(0);
  const log = join(mkdtempSync(join(b.root, 'log-')), 'steps');
  const r = await rambake(b, s.before ? ['revert'] : args(s.killed), 0, log);
  expect(r.exitCode, r.out).toBe(0);
  return readFileSync(log, 'utf8').trim().split('\n');
}

describe.skipIf(!isRoot)('kill -9 at every step of apply and revert', () => {
  for (const s of SCENARIOS) {
    it(`${s.name}: the next revert (or apply, revert) restores the build exactly`, async () => {
      const steps = await listSteps(s);
      expect(steps.length).toBeGreaterThanOrEqual(8);
      const failures: string[] = [];
      const runs = Array.from({ length: steps.length }, (_, i) => i + 1).flatMap((k) =>
        s.recoveries.map((recovery) => ({ k, recovery })),
      );
      // Two at a time (each on its own build copy and mount point).
      const worker = async () => {
        for (let run = runs.shift(); run; run = runs.shift()) {
          const { k, recovery } = run;
          const b = newBuild(s.localLink === true);
          const args = (extra: string[]) => [...APPLY, '--path', b.ram, ...extra];
          const original = tree(b.root);
          if (s.before) expect((await rambake(b, args(s.before))).exitCode).toBe(0);
          const killed = await rambake(b, s.before ? ['revert'] : args(s.killed), k);
          const at = `killed before step ${steps[k - 1]}, then ${recovery}`;
          if (killed.signal !== 'SIGKILL') {
            failures.push(`${at}: the run was not killed (${killed.exitCode}): ${killed.out}`);
            return;
          }
          if (recovery === 'apply-revert') {
            const again = await rambake(b, args(s.killed));
            if (again.exitCode !== 0)
              failures.push(`${at}: apply exit ${again.exitCode}: ${again.out.trim()}`);
            if (blockCount(b) !== 1) failures.push(`${at}: ${blockCount(b)} blocks after apply`);
          }
          const reverted = await rambake(b, ['revert']);
          if (reverted.exitCode !== 0)
            failures.push(`${at}: revert exit ${reverted.exitCode}: ${reverted.out.trim()}`);
          if (mounted(b.ram)) failures.push(`${at}: the tmpfs is still mounted`);
          unmountUnder(b.root);
          const now = tree(b.root);
          const diff = [...new Set([...Object.keys(original), ...Object.keys(now)])]
            .filter((p) => original[p] !== now[p])
            .map(
              (p) =>
                `${p}: ${original[p] === undefined ? 'left behind' : now[p] === undefined ? 'gone' : 'changed'}`,
            );
          if (diff.length > 0) failures.push(`${at}: ${diff.join(', ')}`);
          unmountUnder(b.root);
        }
      };
      await Promise.all([worker(), worker()]);
      console.log(
        `${s.name}: ${steps.length} steps, ${steps.length * s.recoveries.length} kills, ${failures.length} failures`,
      );
      expect(failures).toEqual([]);
    }, 600_000);
  }
});
