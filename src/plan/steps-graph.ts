// The task graph of a target for `steps` and `plan --predict`: `bitbake -g TARGET` when BitBake
// is on PATH and no build holds the server, else a rough graph rebuilt from the recorded task
// order.
//
// `bitbake -g` runs in a private temp folder: its server writes pn-buildlist, task-depends.dot
// (and pyshtables.py when BitBake's own lib/bb/pysh is not writable) into the folder bitbake was
// started in, and a user's own copies in TOPDIR must not be overwritten. BitBake's own state
// still goes to TOPDIR (bitbake.lock, bitbake.sock, hashserve.sock while it runs;
// bitbake-cookerdaemon.log, cache/, TMPDIR, SSTATE_DIR's folder), found through BBPATH.
// The catch, in BitBake 2.15.2 (lib/bb/server/process.py): at exit the server drops its flock,
// then looks for `bitbake.lock` relative to its working folder and, not finding it there
// ("Lockfile directory gone, exiting"), returns without taking the lock again to remove the
// file: TOPDIR keeps a stale bitbake.lock. A symlink `bitbake.lock` → TOPDIR/bitbake.lock in
// the temp folder lets it find the lock, so it removes it as it does when started in TOPDIR;
// and the folder is removed only once the server has let go of the lock.

import { chown, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { SimTask } from '../analyze/peak.js';
import { bitbakeUser } from '../bitbake/ask-bitbake.js';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { type DepGraphFiles, readDepGraph } from '../bitbake/taskdepends.js';
import { waitForLockRelease } from '../system/bitbake-lock.js';
import type { History } from './steps-history.js';

export type GraphSource = 'task-depends.dot' | 'recorded';

/** The server keeps the lock 1–2 s after the client exits; this is the most rambake waits. */
const RELEASE_WAIT_MS = 20_000;

/** Runs `bitbake -g target`; undefined (with the reason in notes) when it cannot. */
export async function generateDepGraph(
  bd: BuildDir,
  target: string,
  notes: string[],
  env: NodeJS.ProcessEnv = process.env,
  releaseWaitMs = RELEASE_WAIT_MS,
): Promise<DepGraphFiles | undefined> {
  if (bd.buildRunning) {
    notes.push('a build holds bitbake.lock: the task graph comes from the recorded run instead');
    return undefined;
  }
  // BBPATH names this build dir, whatever the shell had: BitBake finds TOPDIR (and its lock)
  // through it. As root, BitBake runs as TOPDIR's owner (its sanity check refuses root).
  const run = bitbakeUser(bd.topdir, { ...env, BUILDDIR: bd.topdir, BBPATH: bd.topdir });
  const cwd = await mkdtemp(join(tmpdir(), 'rambake-graph-'));
  try {
    await symlink(join(bd.topdir, 'bitbake.lock'), join(cwd, 'bitbake.lock'));
    if (run.user) await chown(cwd, run.user.uid, run.user.gid);
    const r = await execa('bitbake', ['-g', target], {
      cwd,
      env: run.env,
      reject: false,
      stdin: 'ignore',
      timeout: 15 * 60_000,
      ...(run.user ?? {}),
    });
    if (r.failed || r.exitCode !== 0) {
      const why =
        r.code === 'ENOENT' ? 'bitbake is not on PATH' : `bitbake -g ${target} failed (${r.exitCode})`;
      notes.push(`${why}: the task graph comes from the recorded run instead`);
      return undefined;
    }
    return await readDepGraph(cwd);
  } catch (err) {
    notes.push(`bitbake -g ${target}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  } finally {
    await releaseFolder(bd.topdir, cwd, releaseWaitMs, notes);
  }
}

/** Waits for the server to let go of the lock, then removes the temp folder in any case. */
async function releaseFolder(topdir: string, cwd: string, waitMs: number, notes: string[]): Promise<void> {
  const lock = await waitForLockRelease(topdir, waitMs);
  if (lock.state === 'held') {
    notes.push(
      `bitbake.lock is still ${lock.detail} ${Math.round(waitMs / 1000)} s after bitbake -g: removed its folder ${cwd} anyway, so that server may leave a stale bitbake.lock (BitBake takes it over at its next start)`,
    );
  }
  await rm(cwd, { recursive: true, force: true });
}

/** Typical seconds of a task name, for tasks the recorded builds did not run. */
function typicalSeconds(seconds: ReadonlyMap<string, number>): Map<string, number> {
  const byTask = new Map<string, number[]>();
  for (const [key, s] of seconds) {
    const task = key.slice(key.lastIndexOf(':') + 1);
    const list = byTask.get(task);
    if (list) list.push(s);
    else byTask.set(task, [s]);
  }
  return new Map([...byTask].map(([t, l]) => [t, l.sort((a, b) => a - b)[l.length >> 1] ?? 0]));
}

/** The dot graph as simulation tasks: times from buildstats, bytes from the footprint. */
export function simTasksFromDot(dep: DepGraphFiles, history: History): Map<string, SimTask> {
  const { seconds } = history.times;
  const typical = typicalSeconds(seconds);
  const bytes = history.footprint?.bytes ?? new Map<string, number>();
  const tasks = new Map<string, SimTask>();
  const key = (dotId: string) => {
    const t = dep.graph.tasks.get(dotId);
    return t ? `${t.pn}:${t.task}` : dotId;
  };
  for (const t of dep.graph.tasks.values()) {
    const id = `${t.pn}:${t.task}`;
    // A task with no buildstats in a build that ran its recipe was noexec (do_build, …).
    const ranRecipe = seconds.has(`${t.pn}:do_fetch`) || seconds.has(`${t.pn}:do_compile`);
    const s = seconds.get(id) ?? (ranRecipe ? 0 : (typical.get(t.task) ?? 0));
    tasks.set(id, {
      id,
      pn: t.pn,
      task: t.task,
      deps: t.deps.map(key),
      seconds: s,
      bytes: bytes.get(id) ?? 0,
    });
  }
  return tasks;
}

/**
 * Without a dot file: each recipe's recorded tasks in a chain, in the order they started, and
 * `<pn>:do_build` after the last; across recipes nothing is known, so the prediction is rough.
 */
export function simTasksFromHistory(history: History, target: string): Map<string, SimTask> {
  const spans = [...history.times.spans].sort((a, b) => a.start - b.start);
  const bytes = history.footprint?.bytes ?? new Map<string, number>();
  const tasks = new Map<string, SimTask>();
  const last = new Map<string, string>();
  for (const s of spans) {
    if (s.task.endsWith('_setscene')) continue;
    const id = `${s.pn}:${s.task}`;
    if (tasks.has(id)) continue;
    const prev = last.get(s.pn);
    tasks.set(id, {
      id,
      pn: s.pn,
      task: s.task,
      deps: prev ? [prev] : [],
      seconds: Math.max(0, (s.end - s.start) / 1000),
      bytes: bytes.get(id) ?? 0,
    });
    last.set(s.pn, id);
  }
  const builds: string[] = [];
  for (const [pn, lastId] of last) {
    const id = `${pn}:do_build`;
    if (pn === target) continue;
    tasks.set(id, { id, pn, task: 'do_build', deps: [lastId], seconds: 0, bytes: 0 });
    builds.push(id);
  }
  const targetLast = last.get(target);
  tasks.set(`${target}:do_build`, {
    id: `${target}:do_build`,
    pn: target,
    task: 'do_build',
    deps: [...(targetLast ? [targetLast] : []), ...builds],
    seconds: 0,
    bytes: 0,
  });
  return tasks;
}

/** Recipe-level dependencies: pn → PNs it needs (directly or not), from task edges. */
export function recipeDeps(tasks: ReadonlyMap<string, SimTask>): Map<string, Set<string>> {
  const direct = new Map<string, Set<string>>();
  for (const t of tasks.values()) {
    const set = direct.get(t.pn) ?? new Set<string>();
    direct.set(t.pn, set);
    for (const d of t.deps) {
      const dpn = tasks.get(d)?.pn;
      if (dpn && dpn !== t.pn) set.add(dpn);
    }
  }
  const all = new Map<string, Set<string>>();
  const visit = (pn: string): Set<string> => {
    const have = all.get(pn);
    if (have) return have;
    const out = new Set<string>();
    all.set(pn, out);
    for (const d of direct.get(pn) ?? []) {
      out.add(d);
      for (const x of visit(d)) out.add(x);
    }
    return out;
  };
  for (const pn of direct.keys()) visit(pn);
  return all;
}
