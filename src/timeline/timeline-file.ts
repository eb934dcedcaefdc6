// The timeline file: appended in whole JSON lines, those of one turn of the event loop per
// write(2), on an fd opened with 'a', so a watcher killed with -9 leaves only whole lines (at
// worst a torn last one, which readers skip).

import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readLines } from '../bitbake/lines.js';
import { summarizeTimeline } from './summary.js';
import { timelineLineProblem } from './timeline-check.js';
import type {
  TimelineEvent,
  TimelineHeader,
  TimelineLine,
  TimelineSample,
  TimelineSummary,
} from './timeline-types.js';

/** `${TOPDIR}/rambake/runs/<start-time>.jsonl`: outside TMPDIR, so it outlives the tmpfs. */
export function defaultTimelinePath(topdir: string, startedAt: Date): string {
  // '2025-11-30T14:26:27.570Z' → '20251130-142627' (UTC, sorts by time, no ':' in file names)
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return join(topdir, 'rambake', 'runs', `${stamp}.jsonl`);
}

export class TimelineWriter {
  private fd: number | undefined;
  /** The first write error (a full disk under TOPDIR); writing stops, watching goes on. */
  error: Error | undefined;
  /** Lines written whole, and lines lost (the ones that failed and every one after them). */
  written = 0;
  lost = 0;
  /** Lines not written yet: those of one turn of the event loop go in one write(2). */
  private pending = '';
  private pendingLines = 0;
  private flushing: NodeJS.Immediate | undefined;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'a');
  }

  /**
   * Queued, and written with the other lines of this turn of the event loop as it ends: a task's
   * start and its work dir's new state, a sample and the sizes it took. One write(2) per line
   * had been a twentieth of the watcher's CPU in a build at real pace (12-07).
   */
  write(line: TimelineLine): void {
    if (this.fd === undefined) {
      if (this.error) this.lost++;
      return;
    }
    this.pending += `${JSON.stringify(line)}\n`;
    this.pendingLines++;
    this.flushing ??= setImmediate(() => this.flush());
  }

  /** Every write is checked: a short write is finished or, if it cannot be, its lines count as lost. */
  flush(): void {
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = undefined;
    if (this.pendingLines === 0 || this.fd === undefined) return;
    const data = Buffer.from(this.pending);
    const lines = this.pendingLines;
    this.pending = '';
    this.pendingLines = 0;
    try {
      // One write(2) in the normal case; a short one (a disk filling up) is continued, and the
      // next write then fails with ENOSPC if the lines cannot be finished.
      for (let at = 0; at < data.length; ) {
        const n = writeSync(this.fd, data, at, data.length - at);
        if (n <= 0) throw new Error(`write returned ${n}`);
        at += n;
      }
      this.written += lines;
    } catch (err) {
      this.error = err as Error;
      this.lost += lines;
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

export interface Timeline {
  header?: TimelineHeader;
  events: TimelineEvent[];
  samples: TimelineSample[];
  /** The file's summary line, or one recomputed from the other lines when it is missing. */
  summary: TimelineSummary;
  /** True when the summary line was missing (the watcher did not end cleanly). */
  recomputed: boolean;
  /** Lines skipped, with line numbers: not whole JSON (a torn last line after kill -9), or, with `why`, not the shape of a timeline line. */
  skipped: { lineNo: number; text: string; why?: string }[];
}

/** Line by line: a timeline of megabytes is streamed, never held as one string. */
export class TimelineAccumulator {
  private readonly lines: TimelineLine[] = [];
  private readonly skipped: Timeline['skipped'] = [];
  private lineNo = 0;

  add(raw: string): void {
    this.lineNo++;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      this.skipped.push({ lineNo: this.lineNo, text: raw });
      return;
    }
    // A line of the wrong shape (hand-edited, or another tool's) is skipped, never trusted.
    const why = timelineLineProblem(value);
    if (why === undefined) this.lines.push(value as TimelineLine);
    else this.skipped.push({ lineNo: this.lineNo, text: raw, why });
  }

  /** A line too long to hold (never one rambake writes): skipped and reported like a torn one. */
  addTooLong(maxBytes: number): void {
    this.lineNo++;
    const size = maxBytes % MiB === 0 ? `${maxBytes / MiB} MiB` : `${maxBytes} bytes`;
    this.skipped.push({ lineNo: this.lineNo, text: '', why: `a line longer than ${size}` });
  }

  /** Lines seen so far (the next line's number is one more). */
  get linesSeen(): number {
    return this.lineNo;
  }

  finish(): Timeline {
    const timeline: Timeline = {
      events: [],
      samples: [],
      summary: undefined as never,
      recomputed: false,
      skipped: this.skipped,
    };
    let summary: TimelineSummary | undefined;
    for (const line of this.lines) {
      if (line.type === 'header') timeline.header ??= line;
      else if (line.type === 'sample') timeline.samples.push(line);
      else if (line.type === 'summary') summary = line;
      else timeline.events.push(line);
    }
    timeline.recomputed = summary === undefined;
    timeline.summary = summary ?? summarizeTimeline(this.lines);
    return timeline;
  }
}

/** Parses timeline text; pure. */
export function parseTimeline(text: string): Timeline {
  const acc = new TimelineAccumulator();
  for (const raw of text.split('\n')) acc.add(raw);
  return acc.finish();
}

const MiB = 1024 * 1024;

/**
 * The longest timeline line read. rambake's own lines are far shorter (a sample holds about 60
 * bytes a work dir: 16 MiB would be 250,000 of them); a longer one — a file of no newlines, 1 GB
 * of it — is skipped without being held, where a line reader gathers it into one string and
 * crashes (RangeError: Invalid string length).
 */
export const TIMELINE_MAX_LINE_BYTES = 16 * MiB;

/**
 * Streams the file through the checked reader (a FIFO or /dev/zero named as a run is refused),
 * one line at a time in bounded memory (bitbake/lines.ts): an over-long line is skipped.
 */
export async function readTimeline(path: string, opts: { maxLineBytes?: number } = {}): Promise<Timeline> {
  const maxLineBytes = opts.maxLineBytes ?? TIMELINE_MAX_LINE_BYTES;
  const acc = new TimelineAccumulator();
  // The splitter numbers every line and drops the long ones unseen: a gap in the numbers is one.
  const catchUp = (lineNo: number) => {
    while (acc.linesSeen < lineNo) acc.addTooLong(maxLineBytes);
  };
  const read = await readLines(
    path,
    (raw, lineNo) => {
      catchUp(lineNo - 1);
      acc.add(raw);
    },
    { maxLineBytes },
  );
  catchUp(read.lines);
  return acc.finish();
}
