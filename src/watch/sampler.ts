// Every interval: statfs of TMPDIR's file system and the sizes of the work dirs that changed
// (busy ones, ones whose state changed, ones a watcher saw move). Idle dirs keep their last
// size, so a sample costs a few small scans however many recipes the build has.
//
// Sizing a work dir is O(its files): a webkitgtk build dir of 200k files takes a good part of a
// second. So each dir waits SCAN_COST_FACTOR times its last scan's duration, and at least
// RESCAN_INTERVALS sampling intervals, before it is scanned again, and all scans together stay
// within SCAN_SHARE of one core over the watch (busy dirs are rescanned only while the budget
// lasts; a dir that just finished or was cleaned may borrow one allowance ahead, because its
// size at that moment is what lingering and peaks report). statfs, which is what fill and
// time-to-full come from, is read every interval.

import { existsSync } from 'node:fs';
import { scanTree } from '../system/du.js';
import { statFsSync } from '../system/fsstat.js';
import { nearestExisting } from '../system/host-facts.js';
import type { TimelineSample } from '../timeline/timeline-types.js';
import type { FillPoint } from './forecast.js';
import type { WorkdirStates } from './states.js';

/** A cleaned dir that grew this much since its cleaning was refilled (setscene we did not see). */
const REFILL_BYTES = 1024 * 1024;
/** Below this many free bytes (or no free inode) the file system counts as full. */
const FULL_BYTES = 64 * 1024;
const HISTORY = 300;
/** A dir is rescanned no sooner than this many times its last scan's duration (≤ 0.25 % each)… */
const SCAN_COST_FACTOR = 400;
/**
 * …nor than this many sampling intervals (32 s at the default 2 s). Most work dirs scan in a
 * millisecond or two, so the interval, not their cost, bounds how often they are scanned. A
 * work dir grows until its last task ends, when it is sized at once (and as do_rm_work starts):
 * a busy dir's size in between is what the live view shows. A scan repeated at long
 * intervals runs cold: 20-30 µs an entry here against 7 in a tight loop. The fake's real-pace
 * build (6 recipes in 78 s, 12-06): 34 scans, 120 ms, 0.50-0.57 % of a core at eight
 * intervals; 22 scans, 68-82 ms, 0.42-0.44 % at sixteen (four intervals, 12-05: 48 scans). The
 * file system's fill is read at every sample whatever this says.
 */
const RESCAN_INTERVALS = 16;
/**
 * Share of one core all scans may take, over the whole watch: half the watcher's goal (< 0.5 %
 * during a build, issue #14). In a real build the big work dirs keep the scans at this cap, so
 * at 0.5 % they alone would have used the whole goal; the fake's small dirs never reach it…
 */
export const SCAN_SHARE = 0.0025;
/** …plus this much at the start (the first sizes of a build already under way). */
const SCAN_ALLOWANCE_MS = 1000;
/**
 * A dir whose tasks are all done (waiting for do_rm_work) is sized after this many sampling
 * intervals, not at once: with rm_work, do_rm_work mostly starts within them and its start sizes
 * the dir anyway (Watch.sizeBeforeRmWork), so the dir at its largest, the costliest scan of its
 * life, was scanned twice within seconds. In the fake's real-pace build do_rm_work started
 * 0.5-8.5 s after the last other task; the scans saved were a tenth of the watcher's CPU (12-07).
 * A dir that lingers longer is sized then, whatever the budget.
 */
const WAITING_GRACE_INTERVALS = 5;

/**
 * This thread alone, in slices, whatever the dir's size: a hand-off to `find` forks the watcher
 * (6.5 ms of its CPU at 76 MiB, 12-06; the first one also probes find with a spawnSync: 18 ms),
 * which a work dir of a few hundred files (3-9 ms to scan here) never pays back. A walk of a
 * big dir costs this thread about 7 µs an entry, against 6 for the find engine (the du bench,
 * 1M entries). In do_rm_work's order: a scan as it starts stays ahead of its deletions (in
 * readdir order the fake's 50×-pace sato-like build lost webkitgtk's sources/, image/ and
 * deploy-ipks/ to it, 24 % of the dir, 12-07).
 */
const WATCHER_SCAN = { workers: 0, engine: 'threads', rmWorkOrder: true } as const;

export interface SampleResult {
  fs: TimelineSample['fs'];
  workdirs: Record<string, number>;
  /** Cleaned dirs that grew again. */
  grew: string[];
  /** Set when the file system is full: what to record. */
  full?: string;
}

export class Sampler {
  readonly bytes = new Map<string, number>();
  private readonly paths = new Map<string, string>();
  private readonly dirty = new Set<string>();
  private readonly cleanBase = new Map<string, number>();
  readonly history: FillPoint[] = [];
  lastFs: TimelineSample['fs'] | undefined;
  /** How many dir scans ran (for the benchmark). */
  scans = 0;
  /** Milliseconds spent sizing dirs (for the benchmark). */
  scanMs = 0;
  /** Earliest time each dir may be scanned again (see SCAN_COST_FACTOR). */
  private readonly notBefore = new Map<string, number>();
  private readonly scannedAt = new Map<string, number>();

  private readonly startedAt: number;

  /** `intervalMs`: the sampling interval; `clock`: milliseconds for the scan budget (a test drives it). */
  constructor(
    private readonly tmpdir: string,
    private readonly intervalMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.startedAt = clock();
  }

  /** Milliseconds of scanning the budget still allows (negative: borrowed ahead). */
  private budgetMs(): number {
    return (this.clock() - this.startedAt) * SCAN_SHARE + SCAN_ALLOWANCE_MS - this.scanMs;
  }

  private readonly stateChanged = new Set<string>();
  /** Finished dirs not sized yet: when (on the clock) their grace ends (WAITING_GRACE_INTERVALS). */
  private readonly dueAt = new Map<string, number>();

  markDirty(key: string, path: string, state?: string): void {
    this.paths.set(key, path);
    this.dirty.add(key);
    // The moments a dir's size matters most: finished and at its largest (waiting for rm_work,
    // after a grace), and just cleaned (the base a refill is measured from). Other changes wait
    // out the backoff.
    if (state === 'waiting-rm-work')
      this.dueAt.set(key, this.clock() + WAITING_GRACE_INTERVALS * this.intervalMs);
    else if (state !== undefined) this.dueAt.delete(key);
    if (state === 'cleaned') this.stateChanged.add(key);
    if (state !== undefined && state !== 'cleaned') this.cleanBase.delete(key);
  }

  forget(key: string): void {
    this.paths.delete(key);
    this.dirty.delete(key);
    this.bytes.delete(key);
    this.cleanBase.delete(key);
    this.notBefore.delete(key);
    this.scannedAt.delete(key);
    this.dueAt.delete(key);
  }

  async sample(states: WorkdirStates, everything: boolean): Promise<SampleResult | undefined> {
    const t = Date.now();
    const fs = this.statTmpdir();
    if (!fs) return undefined;
    this.lastFs = fs;
    const now = this.clock();
    for (const [key, due] of this.dueAt) {
      if (due > now) continue;
      this.dueAt.delete(key);
      this.dirty.add(key);
      this.stateChanged.add(key);
    }
    const todo = new Set(this.dirty);
    for (const e of states.entries.values()) {
      if (e.running.size > 0 || everything) todo.add(e.id.key);
    }
    const measured: Record<string, number> = {};
    // Dirs that just changed state first, then the ones whose size is oldest.
    const order = [...todo].sort(
      (a, b) =>
        Number(this.stateChanged.has(b)) - Number(this.stateChanged.has(a)) ||
        (this.scannedAt.get(a) ?? 0) - (this.scannedAt.get(b) ?? 0),
    );
    for (const key of order) {
      // A dir that just changed state is measured now; a busy one waits out its backoff.
      const changedState = this.stateChanged.has(key);
      // Within its grace a finished dir waits, whatever its backoff says: do_rm_work sizes it.
      if (!everything && this.dueAt.has(key)) continue;
      if (!everything && !changedState && (this.notBefore.get(key) ?? 0) > t) continue;
      if (!everything && this.budgetMs() <= (changedState ? -SCAN_ALLOWANCE_MS : 0)) continue;
      this.dirty.delete(key);
      this.stateChanged.delete(key);
      this.dueAt.delete(key);
      const path = this.paths.get(key);
      if (path === undefined || !existsSync(path)) continue;
      const { scan, took } = await this.timedScan(key, path, t);
      this.notBefore.set(key, t + Math.max(took * SCAN_COST_FACTOR, RESCAN_INTERVALS * this.intervalMs));
      this.bytes.set(key, scan.bytes);
      measured[key] = scan.bytes;
    }
    const grew: string[] = [];
    for (const e of states.entries.values()) {
      const key = e.id.key;
      const b = this.bytes.get(key);
      if (e.state !== 'cleaned' || b === undefined) continue;
      const base = this.cleanBase.get(key);
      if (base === undefined) this.cleanBase.set(key, b);
      else if (b > base + REFILL_BYTES) grew.push(key);
    }
    const workdirs = this.liveSizes(states, measured);
    this.history.push({ t, usedBytes: fs.usedBytes, totalBytes: fs.totalBytes, workdirs: measured });
    if (this.history.length > HISTORY) this.history.shift();
    const result: SampleResult = { fs, workdirs, grew };
    const freeBytes = fs.totalBytes - fs.usedBytes;
    const freeInodes = fs.totalInodes - fs.usedInodes;
    if (fs.totalBytes > 0 && (freeBytes < FULL_BYTES || (fs.totalInodes > 0 && freeInodes === 0)))
      result.full = `TMPDIR's file system is full: ${freeBytes} bytes and ${freeInodes} inodes free`;
    return result;
  }

  /**
   * Sizes one dir now, outside the backoff and the budget (the watcher calls it once per recipe
   * and build, as do_rm_work starts); the result is a whole sample.
   */
  async measureNow(
    key: string,
    path: string,
    states: WorkdirStates,
  ): Promise<Omit<TimelineSample, 'type'> | undefined> {
    const t = Date.now();
    // statfs first, at t: do_rm_work deletes once its stamp pass is over, and a statfs after
    // the scan could already miss the bytes it frees, which are the build's peak when it is one.
    const fs = this.statTmpdir() ?? this.lastFs;
    // Always a new scan, even when one was taken after the dir's last other task ended: on the
    // real BitBake a dir still grew between that scan and do_rm_work (a native recipe, 12-06:
    // 64 KiB, 8 %), which a size taken then missed. It is the scan a change of state asked for,
    // as late: the next sample need not repeat it. Cleared before the scan, so a change during
    // it (cleaned) is still sized after.
    this.dirty.delete(key);
    this.stateChanged.delete(key);
    this.dueAt.delete(key);
    const { scan } = await this.timedScan(key, path, t);
    if (scan.errors.some((e) => e.path === scan.root)) return undefined;
    const bytes = scan.bytes;
    this.bytes.set(key, bytes);
    if (!fs) return undefined;
    return { t, fs, workdirs: this.liveSizes(states, { [key]: bytes }) };
  }

  /** One scan of a dir, counted against the budget; `t` is the sample's time it stands for. */
  private async timedScan(key: string, path: string, t: number) {
    const started = this.clock();
    const scan = await scanTree(path, WATCHER_SCAN);
    const took = this.clock() - started;
    this.scans++;
    this.scanMs += took;
    this.scannedAt.set(key, t);
    return { scan, took };
  }

  /** Every dir still holding space, with its latest size; cleaned ones only when re-measured. */
  private liveSizes(states: WorkdirStates, measured: Record<string, number>): Record<string, number> {
    const workdirs: Record<string, number> = {};
    for (const e of states.entries.values()) {
      const b = this.bytes.get(e.id.key);
      if (b !== undefined && (e.state !== 'cleaned' || e.id.key in measured)) workdirs[e.id.key] = b;
    }
    return workdirs;
  }

  /** The folder statTmpdir last asked statfs about: TMPDIR, or its nearest existing parent. */
  private statted: string | undefined;

  private statTmpdir(): TimelineSample['fs'] | undefined {
    // Before the first build TMPDIR may not exist: its parent's file system is where it will be.
    const p = nearestExisting(this.tmpdir, this.statted);
    this.statted = p;
    try {
      const st = statFsSync(p);
      return {
        usedBytes: st.totalBytes - st.freeBytes,
        totalBytes: st.totalBytes,
        usedInodes: st.totalInodes - st.freeInodes,
        totalInodes: st.totalInodes,
      };
    } catch {
      return undefined;
    }
  }
}
