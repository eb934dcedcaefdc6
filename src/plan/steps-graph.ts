// The one task graph of `steps` and `plan --predict`: `bitbake -g TARGET…` when BitBake is on
// PATH and no build holds the server, else the task events of the newest recorded run that
// covers the targets, else the buildstats of the builds the newest run covered (or, without a
// run, of the newest build that ran the targets); steps-tasks.ts turns each into simulation
// tasks. A measured build covers targets only when it was a whole build of them
// (steps-cover.ts): one of other targets cannot say what they need, so it does not answer. A
// target BitBake does not know, or that no source covers, is a usage error (exit 2) saying
// what to do.
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
import { bitbakeUser } from '../bitbake/ask-bitbake.js';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { type DepGraphFiles, readDepGraph } from '../bitbake/taskdepends.js';
import { UsageError } from '../errors.js';
import { waitForLockRelease } from '../system/bitbake-lock.js';
import type { SimTask } from './peak.js';
import type { History } from './sizing-types.js';
import { measuredBuilds, measuredSpans, refusal, uncovered } from './steps-cover.js';
import { buildStarts, recipeDeps, simTasksFromDot, simTasksFromSpans } from './steps-tasks.js';

export type GraphSource = 'task-depends.dot' | 'recorded' | 'buildstats' | 'none';

/** The server keeps the lock 1–2 s after the client exits; this is the most rambake waits. */
const RELEASE_WAIT_MS = 20_000;

/** Runs `bitbake -g targets…`; undefined (with the reason in notes) when it cannot. */
export async function generateDepGraph(
  bd: BuildDir,
  targets: readonly string[],
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
    const r = await execa('bitbake', ['-g', ...targets], {
      cwd,
      env: run.env,
      reject: false,
      stdin: 'ignore',
      timeout: 15 * 60_000,
      ...(run.user ?? {}),
    });
    // ERROR: Nothing PROVIDES 'no-such-recipe'  → the target is not in this build
    const unknown = /Nothing PROVIDES '([^']+)'/.exec(`${r.stdout}\n${r.stderr}`);
    if (r.exitCode !== 0 && unknown)
      throw new UsageError(
        `${unknown[1]} is not in this build: bitbake -g says Nothing PROVIDES '${unknown[1]}'`,
      );
    if (r.failed || r.exitCode !== 0) {
      const why =
        r.code === 'ENOENT'
          ? 'bitbake is not on PATH'
          : `bitbake -g ${targets.join(' ')} failed (${r.exitCode})`;
      notes.push(`${why}: the task graph comes from the recorded run instead`);
      return undefined;
    }
    return await readDepGraph(cwd);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    notes.push(`bitbake -g ${targets.join(' ')}: ${err instanceof Error ? err.message : String(err)}`);
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

export interface TaskGraph {
  source: GraphSource;
  /** The targets as asked (recipe names). */
  targets: string[];
  tasks: Map<string, SimTask>;
  /** Recipes the targets need (the targets included), in BitBake's order when known. */
  pns: string[];
  /** pn → every PN it needs (from the dot graph; empty for the other sources). */
  deps: Map<string, Set<string>>;
  /** When each recipe started building in the measured build: an order no dependency contradicts. */
  starts: Map<string, number>;
  notes: string[];
}

/** The one task graph of the targets: dot graph, else the recorded run, else buildstats. */
export async function loadTaskGraph(
  bd: BuildDir,
  history: History,
  targets: readonly string[],
  opts: { bitbakeGraph?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<TaskGraph> {
  const notes: string[] = [];
  // A measured build answers only for targets it covers (uncovered()): the newest recorded run
  // that does, else the buildstats history read. One that does not would give a graph without
  // their prerequisites (no step where bitbake -g names some), so it is passed over.
  const builds = measuredBuilds(history);
  const cover = builds.find((b) => uncovered(b, targets) === undefined);
  // Ties go by the covering build's starts whatever the source, so every source orders alike.
  const starts = buildStarts(cover?.startSpans ?? measuredSpans(history));
  const dep = opts.bitbakeGraph === false ? undefined : await generateDepGraph(bd, targets, notes, opts.env);
  if (dep) {
    const tasks = simTasksFromDot(dep, history);
    return {
      source: 'task-depends.dot',
      targets: [...targets],
      tasks,
      pns: dep.pns,
      deps: recipeDeps(tasks),
      starts,
      notes,
    };
  }
  if (builds.length === 0) {
    notes.push('no bitbake -g, no recorded run and no buildstats: the task graph is unknown');
    return {
      source: 'none',
      targets: [...targets],
      tasks: new Map(),
      pns: [],
      deps: new Map(),
      starts,
      notes,
    };
  }
  if (!cover) throw new UsageError(refusal(targets, builds));
  for (const b of builds.slice(0, builds.indexOf(cover))) notes.push(`${uncovered(b, targets)}: passed over`);
  const pns = [...new Set([...cover.spans].sort((x, y) => x.start - y.start).map((s) => s.pn))];
  const tasks = simTasksFromSpans(cover.spans, targets, history.footprint?.bytes);
  return { source: cover.source, targets: [...targets], tasks, pns, deps: new Map(), starts, notes };
}
