// Follows the cooker console log live: `${LOG_DIR}/cooker/<MACHINE>/console-latest.log` is a
// symlink that BitBake re-points at a new `<DATETIME>.log` for every build, so a poll resolves
// it again; a new target is a new build, read from its first byte.
// A poll looks only when something changed: an inotify watch on the machine folder (or, while
// it does not exist, on its nearest existing parent) tells when the link moves or the log
// grows. Without it every poll resolved the link and stat-ed the log (4 system calls every
// 200 ms, build or not). A log that only grew is read from the open file (an fstat and a read);
// the link is resolved again only when a name in the folder came or went. Once every
// FULL_POLL_MS a poll looks anyway: a lost event, a log outside the folder (BB_CONSOLELOG), a
// folder deleted and made again are caught that late at most.
// During a build the watch is off (paused): BitBake writes the log a line at a time, and each
// line was an inotify event waking the watcher, which reads the log at its own ticks anyway
// (in the fake's real-pace build, 50 of its 430 wakes; a wake costs this VM about 0.5 ms, 12-07).

import {
  closeSync,
  existsSync,
  type FSWatcher,
  fstatSync,
  readdirSync,
  readSync,
  realpathSync,
  statSync,
  watch,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { type ConsoleEvent, ConsoleLogParser } from '../bitbake/consolelog.js';
import { LineSplitter } from '../bitbake/lines.js';
import { nearestExisting } from '../system/host-facts.js';
import { openCheckedSync } from '../system/read-file.js';

const CHUNK = 64 * 1024;
/** At most this much is read per poll, so a huge backlog never stalls the sampler. */
const MAX_PER_POLL = 4 * 1024 * 1024;
/** The longest a poll trusts the watch that nothing changed. */
const FULL_POLL_MS = 2000;

export interface ConsoleFollowerHooks {
  /** A new build's log appeared (the symlink moved). */
  onBuild(file: string): void;
  /** Something changed in the log's folder (told at once, from the watch; the next poll reads it). */
  onChange?(): void;
  onEvent(event: ConsoleEvent, file: string): void;
}

export class ConsoleFollower {
  private file: string | undefined;
  private fd: number | undefined;
  private position = 0;
  private splitter = new LineSplitter();
  private parser = new ConsoleLogParser();
  private readonly buf = Buffer.alloc(CHUNK);
  private watcher: FSWatcher | undefined;
  /** The folder the watch is on: the machine folder, or its nearest parent while it is missing. */
  private watchedDir: string | undefined;
  /** watchedDir with its links resolved, as the log's path is. */
  private watchedReal: string | undefined;
  /** An event came since the last look (or there is no watch to tell). */
  private changed = true;
  /** A name came or went in the watched folder since the link was last resolved. */
  private moved = true;
  private rewatch = false;
  private lastFullLook = 0;
  /** `${cookerDir}/<machine>`, joined once: a poll asks for it every tick. */
  private readonly machineDir: string | undefined;
  /** No watch (a build is on): every poll looks at the open log, a full look every FULL_POLL_MS. */
  private paused = false;

  /**
   * `cookerDir` is `${LOG_DIR}/cooker`; `machine` narrows it to one folder when known.
   * The log current at start is ignored unless `readCurrent` (a build already running).
   */
  constructor(
    private readonly cookerDir: string,
    private readonly machine: string | undefined,
    private readonly hooks: ConsoleFollowerHooks,
    readCurrent: boolean,
  ) {
    this.machineDir = machine ? join(cookerDir, machine) : undefined;
    const current = this.resolveLatest();
    if (current && !readCurrent) {
      this.file = current;
      this.position = Number.POSITIVE_INFINITY;
    }
  }

  get currentFile(): string | undefined {
    return this.file;
  }

  /** A watch tells of changes (else only polling finds them). */
  get watching(): boolean {
    return this.watcher !== undefined;
  }

  /** Reads what was appended since the last poll; true when anything was read. */
  poll(): boolean {
    const now = Date.now();
    const due = now - this.lastFullLook >= FULL_POLL_MS;
    if (!this.changed && !due && !this.paused) return false;
    this.changed = false;
    if (due || (!this.paused && (this.moved || !this.watchSeesLog()))) {
      this.lastFullLook = now;
      this.moved = false;
      this.arm();
      const latest = this.resolveLatest();
      if (latest && latest !== this.file) this.switchTo(latest);
    }
    if (this.fd === undefined || this.file === undefined) return false;
    const size = fstatSync(this.fd).size;
    // The same file truncated: BitBake reused the name (two builds in one second).
    if (size < this.position) this.switchTo(this.file);
    let read = 0;
    while (this.position < size && read < MAX_PER_POLL) {
      const n = readSync(this.fd, this.buf, 0, CHUNK, this.position);
      if (n <= 0) break;
      this.position += n;
      read += n;
      const file = this.file;
      this.splitter.push(this.buf.subarray(0, n), (line) =>
        this.parser.push(line, (e) => this.hooks.onEvent(e, file)),
      );
    }
    // More than one poll reads, or a log the watch cannot see: look again next time.
    if (this.position < size || !this.watchSeesLog()) this.changed = true;
    return read > 0;
  }

  /** Takes the watch off while a build is on (its ticks read the log), and puts it back after. */
  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    this.changed = true;
    this.moved = true;
    if (!paused) return;
    this.watcher?.close();
    this.watcher = undefined;
    this.watchedDir = undefined;
    this.watchedReal = undefined;
  }

  /** The watch is on the folder the log is in: its events tell of every change to it. */
  private watchSeesLog(): boolean {
    return this.watcher !== undefined && this.file !== undefined && dirname(this.file) === this.watchedReal;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Stops the watch too (the follower is done). */
  dispose(): void {
    this.close();
    this.watcher?.close();
    this.watcher = undefined;
  }

  // The watch on the machine folder, or on its nearest existing parent until it exists. With
  // no machine known the logs may be in any subfolder: no watch, every poll looks.
  private arm(): void {
    if (this.machine === undefined || this.paused) return;
    const dir = nearestExisting(this.machineDir ?? this.cookerDir, this.watchedDir);
    if (dir === this.watchedDir && this.watcher && !this.rewatch) return;
    this.rewatch = false;
    this.watcher?.close();
    this.watcher = undefined;
    this.watchedDir = undefined;
    this.watchedReal = undefined;
    try {
      const w = watch(dir, { persistent: false }, (event) => {
        this.changed = true;
        // A name came or went, maybe the folder's own (deleted and made again: this watch
        // would be on the old one): watch afresh on the next poll (a few times per build).
        if (event === 'rename') {
          this.rewatch = true;
          this.moved = true;
        }
        this.hooks.onChange?.();
      });
      w.on('error', () => {
        // the folder went (TMPDIR wiped): the next poll looks and watches again
        w.close();
        if (this.watcher === w) this.watcher = undefined;
        this.changed = true;
        this.moved = true;
      });
      this.watcher = w;
      this.watchedDir = dir;
      this.watchedReal = realpathSync.native(dir);
    } catch {
      // no watch (inotify limit reached): every poll looks
      this.changed = true;
    }
  }

  private switchTo(file: string): void {
    this.close();
    this.file = file;
    this.position = 0;
    this.splitter = new LineSplitter();
    this.parser = new ConsoleLogParser();
    try {
      // Checked and non-blocking: console-latest.log pointed at a FIFO or a device is passed
      // over (it would block the sampler or never end), as a log not there yet is.
      this.fd = openCheckedSync(file);
    } catch {
      return;
    }
    this.hooks.onBuild(file);
  }

  private resolveLatest(): string | undefined {
    const dirs = this.machineDir !== undefined ? [this.machineDir] : this.machineDirs();
    let best: { file: string; mtime: number } | undefined;
    for (const dir of dirs) {
      const link = join(dir, 'console-latest.log');
      try {
        // No link yet, as at every idle tick before a first build: one failed stat, not
        // realpath's walk of four readlinks and the error it throws, stack and all (perf put
        // the error at 7 % of an idle watcher's samples, 12-07).
        const st = statSync(link, { throwIfNoEntry: false });
        if (st === undefined) continue;
        const file = realpathSync.native(link);
        if (!best || st.mtimeMs > best.mtime) best = { file, mtime: st.mtimeMs };
      } catch {
        // no build has logged here yet
      }
    }
    return best?.file;
  }

  private machineDirs(): string[] {
    if (!existsSync(this.cookerDir)) return [];
    return readdirSync(this.cookerDir).map((d) => join(this.cookerDir, d));
  }
}
