// The long-running part of `rambake watch` and `rambake run`: follows the console log, watches
// work/<arch>/<pn> folders (depth-limited; never a recursive watch of TMPDIR) and the temp/ of
// busy work dirs, samples statfs and the sizes of the work dirs that changed, feeds the state
// machine and appends everything to the timeline. It writes nothing under TMPDIR.

import { existsSync, type FSWatcher as NodeWatcher, readdirSync, watch as watchDir } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { buildNameToEpochMs } from '../bitbake/buildstats.js';
import type { ConsoleEvent } from '../bitbake/consolelog.js';
import { splitPF } from '../bitbake/pf.js';
import { LockPoller } from '../system/bitbake-lock.js';
import { readHostFacts, toMountFacts } from '../system/host-facts.js';
import { findMount, readMountinfo } from '../system/mounts.js';
import { SummaryBuilder } from '../timeline/summary.js';
import { defaultTimelinePath, TimelineWriter } from '../timeline/timeline-file.js';
import {
  TIMELINE_SCHEMA_VERSION,
  type TimelineLine,
  type TimelineSummary,
} from '../timeline/timeline-types.js';
import { workdirOfPath, workSharedId } from './classify.js';
import { ConsoleFollower } from './console-follow.js';
import { DirTree } from './dir-tree.js';
import { findWorkdirs, findWorkShared, inspectWorkdir } from './found.js';
import { PastTaskTimes } from './past-times.js';
import { Sampler } from './sampler.js';
import { type StateChange, type StateInput, WorkdirStates } from './states.js';
import { buildView, type WatchView } from './view.js';

export interface WatchOptions {
  /** Sampling interval (statfs, sizes), ms. */
  intervalMs: number;
  timelinePath?: string;
  command?: string[];
  /** The commands of `rambake run --steps`, recorded in the header. */
  steps?: string[][];
  /** Read the console log current at start from its beginning (a build is running). */
  readCurrentBuild?: boolean;
  /** Every timeline line as it is written (JSON output). */
  onLine?: (line: TimelineLine) => void;
  /** After every sample (the live display). */
  onSample?: (view: WatchView) => void;
}

/**
 * How often the console log is read and the lock looked at during a build; samples too, when
 * --interval is shorter. Task events are timed to this (a task lasts seconds to hours). At
 * 200 ms the ticks alone were a fifth of the watcher's CPU during a build at real pace (12-05,
 * the fake's real-pace build: 0.73–0.82 % of a core at 200 ms, 0.57 % at 500 ms).
 */
const POLL_MS = 500;
/** The shortest tick: an --interval below it samples this often. */
const MIN_TICK_MS = 10;
/**
 * How often the lock is looked at during a build (a build that ends well says so in its log):
 * a stat, the file, /proc/locks and, without a flock on it, the PID's command line (0.18 ms).
 */
const LOCK_CHECK_MS = 2000;
/** The server gone this long without a Tasks Summary (killed, crashed): the build is over. */
const LOCK_GONE_MS = 2000;
/** What BitBake writes into temp/ as do_rm_work starts: its log file (and symlink), its script. */
const RM_WORK_STARTS = /^(log|run)\.do_rm_work(\.\d+)?$/;
/**
 * Tasks whose output streams into their log in temp/ while they run: every write wakes a watch
 * on temp/ (a writer of one line per millisecond: 8,140 events and 153 ms of this process's CPU
 * in 10 s, 12-05), and a real do_compile writes a line per compiler call. temp/ is not watched
 * while one of them runs: do_rm_work comes after do_install, do_package and the rest, so it
 * cannot start before the console log tells that the task ended and the watch is back. The
 * watch goes as soon as one of their files appears in temp/ (CHATTY_FILES), not when the console
 * log says the task started: until that poll their first lines had been a third of the watch's
 * events in the fake's real-pace build (12-07).
 */
const CHATTY_TASKS = new Set(['do_configure', 'do_compile', 'do_install']);
const CHATTY_FILES = new RegExp(`^(?:log|run)\\.(${[...CHATTY_TASKS].join('|')})(?:\\.\\d+)?$`);
/** With no build on, how often the watcher looks for work/ and work-shared/ to appear. */
const IDLE_LOOK_MS = 2000;
/** Console-log reads while attaching to a running build (each reads up to 4 MiB). */
const MAX_CATCH_UP_POLLS = 1000;

export class Watch {
  readonly timelinePath: string;
  private readonly states: WorkdirStates;
  private readonly writer: TimelineWriter;
  private readonly summary = new SummaryBuilder();
  private readonly sampler: Sampler;
  private readonly follower: ConsoleFollower;
  private readonly paths = new Map<string, string>();
  private dirWatcher: DirTree | undefined;
  private sharedWatcher: DirTree | undefined;
  /** temp/ of busy work dirs: one plain fs.watch each (chokidar would add a watch per file). */
  private readonly tempWatched = new Map<string, NodeWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private lastSample = 0;
  private sampling: Promise<void> | undefined;
  private buildActive = false;
  private buildEndWaiters: (() => void)[] = [];
  private enospc = false;
  private stopped = false;
  /** Reading the log of a build that ran before the watcher started: events keep their own times. */
  private pastTimes: PastTaskTimes | undefined;
  /** Work dirs sized as their do_rm_work started, in this build. */
  private readonly sizedBeforeRmWork = new Set<string>();

  constructor(
    private readonly bd: BuildDir,
    private readonly opts: WatchOptions,
    startedAt: Date,
  ) {
    this.timelinePath = opts.timelinePath ?? defaultTimelinePath(bd.topdir, startedAt);
    this.lock = new LockPoller(bd.topdir);
    this.writer = new TimelineWriter(this.timelinePath);
    this.states = new WorkdirStates({ rmWork: bd.rmWork, rmWorkExclude: bd.rmWorkExclude });
    this.sampler = new Sampler(bd.paths.tmpdir, opts.intervalMs);
    // BitBake's default `${LOG_DIR}/cooker/${MACHINE}`, or where BB_CONSOLELOG puts them.
    const consoleDir = bd.consoleLogDir;
    this.follower = new ConsoleFollower(
      consoleDir ? dirname(consoleDir) : join(bd.paths.logDir, 'cooker'),
      consoleDir ? basename(consoleDir) : bd.machine,
      {
        onBuild: (file) => this.onBuild(file),
        onEvent: (e) => this.onConsole(e),
        onChange: () => this.wake(),
      },
      opts.readCurrentBuild ?? bd.buildRunning,
    );
  }

  async start(startedAt: Date): Promise<void> {
    const [host, mounts] = await Promise.all([readHostFacts(), readMountinfo()]);
    const mount = toMountFacts(findMount(mounts, this.bd.paths.tmpdir), host.memTotal);
    const tmpfs: {
      mountPoint: string;
      fsType: string;
      source: string;
      sizeBytes?: number;
      nrInodes?: number;
    } = {
      mountPoint: mount.mountPoint,
      fsType: mount.fsType,
      source: mount.source,
    };
    if (mount.sizeBytes !== undefined) tmpfs.sizeBytes = mount.sizeBytes;
    if (mount.nrInodes !== undefined) tmpfs.nrInodes = mount.nrInodes;
    const threads = Number(this.bd.vars.BB_NUMBER_THREADS.value);
    this.emit({
      type: 'header',
      schemaVersion: TIMELINE_SCHEMA_VERSION,
      startedAt: startedAt.toISOString(),
      buildDir: this.bd.topdir,
      tmpdir: this.bd.paths.tmpdir,
      tmpfs,
      host: { memTotal: host.memTotal, swapTotal: host.swapTotal, cpus: host.cpusUsable },
      ...(this.opts.command ? { command: this.opts.command } : {}),
      ...(this.opts.steps ? { steps: this.opts.steps } : {}),
      ...(Number.isFinite(threads) && threads > 0 ? { bbNumberThreads: threads } : {}),
    });
    // A running build's log first: recipes with tasks in it are then known as this build's, and
    // are never taken for folders left by an earlier build.
    if (this.opts.readCurrentBuild ?? this.bd.buildRunning) this.catchUp();
    const t = Date.now();
    for (const f of findWorkdirs(this.bd.paths.baseWorkdir)) {
      this.paths.set(f.id.key, f.path);
      this.feed({ kind: 'found', t, id: f.id, content: f.content, mtimeMs: f.mtimeMs });
    }
    this.scanShared(t);
    await this.sample(true);
    // A short --interval (a fast replay of a build) samples that often: a peak between two
    // samples is a peak missed, and statfs is one system call.
    this.tickMs = Math.max(MIN_TICK_MS, Math.min(POLL_MS, this.opts.intervalMs));
    this.setCadence();
  }

  /** The tick during a build (POLL_MS, or the --interval when shorter). */
  private tickMs = POLL_MS;
  /** The period of the running timer. */
  private timerMs = 0;
  private ending = false;

  // With no build on, the watcher ticks only at the sampling interval: a bare node timer at
  // 200 ms cost ~0.1 % of a core by itself (measured idle: 0.30 % → see bench/watch.ts). The
  // console follower's watch wakes it when the log's folder changes (a build starts), so a
  // build is seen as soon as before. Without that watch (no MACHINE known) it ticks as in a build.
  private setCadence(): void {
    if (this.ending) return;
    const ms =
      this.buildActive || !this.follower.watching ? this.tickMs : Math.max(this.tickMs, this.opts.intervalMs);
    if (ms === this.timerMs) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => this.tick(), ms);
    this.timerMs = ms;
  }

  /** The log's folder changed while idle: look now, not at the next slow tick. */
  private wake(): void {
    // Not before start() has caught up and taken its first sample: a tick then would read live
    // lines in among the caught-up ones (the real attach test saw one timed 41 ms late).
    if (this.ending || this.timer === undefined || this.timerMs === this.tickMs || this.waking) return;
    this.waking = true;
    setImmediate(() => {
      this.waking = false;
      if (!this.ending) this.tick();
    });
  }

  private waking = false;

  /** Resolves when the next build (or the current one) ends. */
  buildEnded(): Promise<void> {
    return new Promise((resolve) => this.buildEndWaiters.push(resolve));
  }

  view(): WatchView {
    return buildView(this.states, this.sampler, this.summary, this.enospc, this.follower.currentFile);
  }

  /** Drains the log, sizes every dir one last time, writes the summary and closes. */
  async stop(exitCode?: number): Promise<TimelineSummary> {
    this.ending = true;
    if (this.timer) clearInterval(this.timer);
    await this.sampling;
    this.stopped = true;
    this.follower.poll();
    this.follower.dispose();
    if (this.buildActive) this.endBuild(Date.now(), true, exitCode);
    for (const w of this.tempWatched.values()) w.close();
    this.tempWatched.clear();
    this.dirWatcher?.close();
    this.sharedWatcher?.close();
    this.scanShared(Date.now());
    await this.sample(true, true);
    for (const [key, path] of this.paths) this.summary.setPath(key, path);
    const summary = this.summary.finish(Date.now(), exitCode);
    this.emit(summary);
    this.writer.close();
    return summary;
  }

  /** A step of `rambake run --steps` starts or ends: the report tells the steps apart by these. */
  noteStep(line: Extract<TimelineLine, { type: 'step-start' | 'step-end' }>): void {
    if (!this.stopped) this.emit(line);
  }

  get writeError(): Error | undefined {
    return this.writer.error;
  }

  /** Timeline lines lost to a write error (0 when the timeline is whole). */
  get linesLost(): number {
    return this.writer.lost;
  }

  private tick(): void {
    try {
      this.follower.poll();
    } catch {
      // the log vanished mid-read (TMPDIR wiped): the next poll resolves it again
    }
    // work/ appears with a build's first task: looked for every tick until then. work-shared/
    // (and work/ with no build on) every IDLE_LOOK_MS: what was made in it before its watch is
    // found when the watch starts.
    const looking = this.buildActive && !this.dirWatcher ? 0 : IDLE_LOOK_MS;
    if (Date.now() - this.lastEnsure >= looking) this.ensureWatchers();
    // Held, not present: a killed server leaves a stale file. Asked every LOCK_CHECK_MS, only
    // while a build is on: an lstat and a kill(pid, 0) once the server is known (LockPoller).
    const now = Date.now();
    if (!this.buildActive) this.lockGoneAt = undefined;
    else if (now - this.lockCheckedAt >= LOCK_CHECK_MS) {
      this.lockCheckedAt = now;
      if (this.lock.held()) this.lockGoneAt = undefined;
      else this.lockGoneAt ??= now;
    }
    if (this.lockGoneAt !== undefined && now - this.lockGoneAt > LOCK_GONE_MS) this.endBuild(now, true);
    // A slow tick may come a hair early on the clock: a tenth of it as slack, so that an idle
    // watcher still samples at every tick, not every other one.
    const slack = this.timerMs === this.tickMs ? 0 : this.timerMs / 10;
    if (!this.sampling && Date.now() - this.lastSample >= this.opts.intervalMs - slack) {
      this.sampling = this.sample(false).finally(() => {
        this.sampling = undefined;
      });
    }
    this.setCadence();
  }

  /** When the lock was first seen not held during a build. */
  private lockGoneAt: number | undefined;
  private lockCheckedAt = 0;
  private readonly lock: LockPoller;

  private lastEnsure = 0;

  private ensureWatchers(): void {
    this.lastEnsure = Date.now();
    const { baseWorkdir, workShared } = this.bd.paths;
    if (!this.dirWatcher && existsSync(baseWorkdir)) {
      // Watches on work/, each <arch> and each <pn> (levels 0-2); events for <pv>.
      this.dirWatcher = new DirTree(baseWorkdir, 2, {
        onAdd: (p) => this.onDirAdded(p),
        onRemove: (p) => this.onDirRemoved(p),
      });
    }
    if (!this.sharedWatcher && existsSync(workShared)) {
      this.sharedWatcher = new DirTree(workShared, 1, {
        onAdd: () => this.scanShared(Date.now()),
        onRemove: () => undefined,
      });
      // Its first folder may be older than the watch, which reports only what comes after.
      this.scanShared(Date.now());
    }
  }

  private onDirAdded(p: string): void {
    const id = workdirOfPath(this.bd.paths.baseWorkdir, p);
    if (!id || id.key !== `${id.arch}/${id.pn}/${id.pv}` || p !== join(this.bd.paths.baseWorkdir, id.key))
      return;
    this.paths.set(id.key, p);
    this.sampler.markDirty(id.key, p);
    const t = Date.now();
    this.emit({ type: 'workdir-appear', t, workdir: id.key, arch: id.arch, pn: id.pn, pv: id.pv });
    const found = inspectWorkdir(p, id.arch, id.pn, id.pv);
    const content = found && found.content !== 'cleaned' ? found.content : 'new';
    this.feed({ kind: 'found', t, id, content, ...(found ? { mtimeMs: found.mtimeMs } : {}) });
  }

  private onDirRemoved(p: string): void {
    const id = workdirOfPath(this.bd.paths.baseWorkdir, p);
    if (!id || p !== join(this.bd.paths.baseWorkdir, id.key)) return;
    const t = Date.now();
    this.emit({ type: 'workdir-disappear', t, workdir: id.key, arch: id.arch, pn: id.pn, pv: id.pv });
    this.paths.delete(id.key);
    this.sampler.forget(id.key);
    this.feed({ kind: 'gone', t, key: id.key });
  }

  private scanShared(t: number): void {
    for (const s of findWorkShared(this.bd.paths.workShared)) {
      if (this.paths.has(s.id.key)) continue;
      this.paths.set(s.id.key, s.path);
      this.sampler.markDirty(s.id.key, s.path);
      this.feed({ kind: 'shared', t, id: workSharedId(s.id.key.slice('work-shared/'.length)) });
    }
  }

  /** Reads the console log of the build already running up to its end, with the lines' own times. */
  private catchUp(): void {
    this.pastTimes = undefined;
    this.catchingUp = true;
    try {
      for (let i = 0; i < MAX_CATCH_UP_POLLS && this.follower.poll(); i++);
    } catch {
      // the log vanished mid-read: the next poll resolves it again
    } finally {
      this.catchingUp = false;
      this.pastTimes = undefined;
    }
  }

  private catchingUp = false;

  private onBuild(file: string): void {
    let t = Date.now();
    if (this.catchingUp) {
      // '20251130142627.log': the UTC time the cooker started this build's log.
      const named = /^(\d{14})\.log$/.exec(basename(file))?.[1];
      if (named !== undefined) t = buildNameToEpochMs(named);
      this.pastTimes = new PastTaskTimes(this.bd.paths.buildstatsBase, t);
    }
    this.sizedBeforeRmWork.clear();
    if (this.buildActive) this.endBuild(t, true);
    this.buildActive = true;
    this.follower.setPaused(true);
    this.lockGoneAt = undefined;
    this.emit({ type: 'build-start', t, log: file });
    this.feed({ kind: 'build-start', t });
  }

  private endBuild(t: number, interrupted: boolean, exitCode?: number): void {
    if (!this.buildActive) return;
    this.buildActive = false;
    this.follower.setPaused(false);
    this.emit({ type: 'build-end', t, ...(exitCode === undefined ? {} : { exitCode }) });
    this.feed({ kind: 'build-end', t, interrupted });
    for (const resolve of this.buildEndWaiters.splice(0)) resolve();
  }

  private onConsole(e: ConsoleEvent): void {
    const now = Date.now();
    if (e.kind === 'recipe-task') {
      const { pn, pv } = splitPF(e.pf);
      const setscene = e.task.endsWith('_setscene');
      const task = setscene ? e.task.slice(0, -'_setscene'.length) : e.task;
      const arch = this.archOf(pn, pv);
      // Caught up from before the attach: the task's own time from buildstats, else marked.
      const past = this.catchingUp
        ? this.pastTimes?.timeOf(e.pf, e.task, e.state === 'Started' ? 'start' : 'end')
        : undefined;
      const t = past ?? now;
      const replayed = this.catchingUp && past === undefined ? { replayed: true as const } : {};
      const base = { t, pn, pv, task, setscene, ...(arch ? { arch } : {}) };
      if (e.state === 'Started') {
        this.emit({ type: 'task-start', t, pf: e.pf, pn, task, setscene, ...replayed });
        this.feed({ kind: 'task-start', ...base });
        if (arch && CHATTY_TASKS.has(task)) this.watchTemp(`${arch}/${pn}/${pv}`);
        // The console line comes late (the UI writes it): temp/ usually told us first.
        if (task === 'do_rm_work' && !setscene && arch && !this.catchingUp)
          this.sizeBeforeRmWork(`${arch}/${pn}/${pv}`);
      } else {
        const ok = e.state === 'Succeeded';
        this.emit({
          type: 'task-end',
          t,
          pf: e.pf,
          pn,
          task,
          setscene,
          status: ok ? 'succeeded' : 'failed',
          ...replayed,
        });
        this.feed({ kind: 'task-end', ...base, ok });
        if (arch && CHATTY_TASKS.has(task)) this.watchTemp(`${arch}/${pn}/${pv}`);
      }
      return;
    }
    const t = now;
    if (e.kind === 'tasks-summary') {
      this.endBuild(t, false, e.failed > 0 ? 1 : 0);
    } else if ((e.kind === 'message' || e.kind === 'text') && /No space left on device|ENOSPC/.test(e.text)) {
      this.noteEnospc(t, e.text);
    }
  }

  /** The <arch> of a recipe's WORKDIR: known from the states, else looked up on disk. */
  private archOf(pn: string, pv: string): string | undefined {
    // Once known, from the map: a loop over every state per task event made a build O(recipes × tasks).
    const key = `${pn}/${pv}`;
    const known = this.archByRecipe.get(key);
    if (known !== undefined) return known;
    let arch: string | undefined;
    for (const e of this.states.entries.values())
      if (e.id.pn === pn && e.id.pv === pv) {
        arch = e.id.arch;
        break;
      }
    const base = this.bd.paths.baseWorkdir;
    if (arch === undefined) arch = findWorkdirArchs(base).find((a) => existsSync(join(base, a, pn, pv)));
    if (arch !== undefined) this.archByRecipe.set(key, arch);
    return arch;
  }

  /** `<pn>/<pv>` → the <arch> of its WORKDIR, as archOf found it. */
  private readonly archByRecipe = new Map<string, string>();

  private feed(input: StateInput): void {
    for (const change of this.states.apply(input)) this.onChange(change);
  }

  private onChange(c: StateChange): void {
    const path = this.paths.get(c.id.key) ?? join(this.bd.paths.baseWorkdir, c.id.key);
    this.paths.set(c.id.key, path);
    this.sampler.markDirty(c.id.key, path, c.state);
    // Kept while the dir waits for do_rm_work: its start is the moment to size the dir.
    this.watchTemp(c.id.key);
    this.emit({
      type: 'workdir-state',
      t: c.t,
      workdir: c.id.key,
      pn: c.id.pn,
      pv: c.id.pv,
      state: c.state,
      ...(c.reason === undefined ? {} : { reason: c.reason }),
    });
  }

  /** Whether temp/ of a work dir is watched: busy or waiting for do_rm_work, and no chatty task running. */
  private tempWanted(key: string): boolean {
    const e = this.states.entries.get(key);
    if (e === undefined || (e.state !== 'active' && e.state !== 'waiting-rm-work')) return false;
    for (const task of e.running) if (CHATTY_TASKS.has(task)) return false;
    return true;
  }

  /**
   * Puts or takes the watch on temp/ of a work dir as tempWanted says (after a state change, and
   * as a chatty task starts or ends): the first file do_rm_work writes there is the moment to
   * size the dir, sooner than its console line (in a fast replay the dir was half deleted by
   * then), and any change marks the dir for sizing.
   */
  private watchTemp(key: string): void {
    const path = this.paths.get(key);
    if (path === undefined || key.startsWith('work-shared/') || this.stopped) return;
    const wanted = this.tempWanted(key);
    const temp = join(path, 'temp');
    const watching = this.tempWatched.get(temp);
    if (wanted && !watching && existsSync(temp)) {
      try {
        const drop = () => {
          w.close();
          this.tempWatched.delete(temp);
        };
        const w = watchDir(temp, { persistent: false }, (_event, name) => {
          // A chatty task started: off until the console log says it ended (watchTemp). An event
          // on the file of one that has ended (a late write, a change of owner) is no start: it
          // would leave the watch off for the rest of the dir's life.
          const chatty = typeof name === 'string' ? CHATTY_FILES.exec(name) : null;
          if (chatty && !this.states.entries.get(key)?.done.has(chatty[1]!)) return drop();
          this.sampler.markDirty(key, path);
          if (typeof name === 'string' && RM_WORK_STARTS.test(name)) this.sizeBeforeRmWork(key);
        });
        w.on('error', drop);
        this.tempWatched.set(temp, w);
      } catch {
        // temp/ vanished between the check and the watch: nothing to follow
      }
    } else if (!wanted && watching) {
      watching.close();
      this.tempWatched.delete(temp);
    }
  }

  /**
   * Sizes a work dir as its do_rm_work starts: the end of its last task, its largest. rm_work
   * first rewrites the recipe's stamps (a process or two per stamp) and only then deletes, one
   * top-level folder after the other in sorted order; a scan started on the first file
   * do_rm_work writes in temp/ walks them in that order (Sampler), ahead of the deletions.
   * Once per recipe and build, whatever the scan budget: O(recipes), never O(files).
   */
  private sizeBeforeRmWork(key: string): void {
    const path = this.paths.get(key);
    if (path === undefined || this.stopped || this.sizedBeforeRmWork.has(key)) return;
    this.sizedBeforeRmWork.add(key);
    void this.sampler.measureNow(key, path, this.states).then((r) => {
      if (r && !this.stopped) this.emit({ type: 'sample', t: r.t, fs: r.fs, workdirs: r.workdirs });
    });
  }

  private async sample(everything: boolean, final = false): Promise<void> {
    const t = Date.now();
    this.lastSample = t;
    const result = await this.sampler.sample(this.states, everything);
    if (result === undefined) return;
    for (const key of result.grew) this.feed({ kind: 'grew', t, key });
    this.emit({ type: 'sample', t, fs: result.fs, workdirs: result.workdirs });
    if (result.full) this.noteEnospc(t, result.full);
    else if (result.fs.totalBytes > 0 && result.fs.usedBytes < result.fs.totalBytes * 0.95)
      this.enospc = false;
    if (!final) this.opts.onSample?.(this.view());
  }

  private noteEnospc(t: number, message: string): void {
    if (this.enospc) return;
    this.enospc = true;
    this.emit({ type: 'enospc', t, message });
  }

  private emit(line: TimelineLine): void {
    this.writer.write(line);
    this.summary.add(line);
    this.opts.onLine?.(line);
  }
}

function findWorkdirArchs(base: string): string[] {
  try {
    return readdirSync(base);
  } catch {
    return [];
  }
}

export async function startWatch(bd: BuildDir, opts: WatchOptions): Promise<Watch> {
  const startedAt = new Date();
  const w = new Watch(bd, opts, startedAt);
  await w.start(startedAt);
  return w;
}
