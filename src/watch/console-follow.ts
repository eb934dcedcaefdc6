// Follows the cooker console log live: `${LOG_DIR}/cooker/<MACHINE>/console-latest.log` is a
// symlink that BitBake re-points at a new `<DATETIME>.log` for every build, so each poll
// resolves it again; a new target is a new build, read from its first byte.

import { closeSync, existsSync, fstatSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type ConsoleEvent, ConsoleLogParser } from '../bitbake/consolelog.js';
import { LineSplitter } from '../bitbake/lines.js';
import { openCheckedSync } from '../system/read-file.js';

const CHUNK = 64 * 1024;
/** At most this much is read per poll, so a huge backlog never stalls the sampler. */
const MAX_PER_POLL = 4 * 1024 * 1024;

export interface ConsoleFollowerHooks {
  /** A new build's log appeared (the symlink moved). */
  onBuild(file: string): void;
  onEvent(event: ConsoleEvent, file: string): void;
}

export class ConsoleFollower {
  private file: string | undefined;
  private fd: number | undefined;
  private position = 0;
  private splitter = new LineSplitter();
  private parser = new ConsoleLogParser();
  private readonly buf = Buffer.alloc(CHUNK);

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
    const current = this.resolveLatest();
    if (current && !readCurrent) {
      this.file = current;
      this.position = Number.POSITIVE_INFINITY;
    }
  }

  get currentFile(): string | undefined {
    return this.file;
  }

  /** Reads what was appended since the last poll; true when anything was read. */
  poll(): boolean {
    const latest = this.resolveLatest();
    if (latest && latest !== this.file) this.switchTo(latest);
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
    return read > 0;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
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
    const dirs = this.machine ? [join(this.cookerDir, this.machine)] : this.machineDirs();
    let best: { file: string; mtime: number } | undefined;
    for (const dir of dirs) {
      const link = join(dir, 'console-latest.log');
      try {
        const file = realpathSync(link);
        const mtime = statSync(file).mtimeMs;
        if (!best || mtime > best.mtime) best = { file, mtime };
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
