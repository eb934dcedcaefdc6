// The end-of-run figures, computed from timeline lines alone: the watcher feeds it as it
// writes, and `readTimeline` replays a file whose summary line is missing (kill -9).

import { findLingering } from './lingering.js';
import { baselineBytes, ownFileSystem } from './run-baseline.js';
import type { TimelineLine, TimelineSummary, WorkdirState } from './timeline-types.js';

const GIB = 1024 ** 3;
const TOP_AT_PEAK = 5;

interface Known {
  pn: string;
  pv: string;
  state: WorkdirState;
  reason?: string;
}

export class SummaryBuilder {
  private readonly states = new Map<string, Known>();
  private readonly bytes = new Map<string, number>();
  private readonly peaks: Record<string, number> = {};
  private readonly paths = new Map<string, string>();
  private peak: TimelineSummary['peak'] = { bytes: 0, inodes: 0, at: 0 };
  private topAtPeak: { workdir: string; bytes: number }[] = [];
  /** GiB·ms of bytes held by work dirs waiting for do_rm_work. */
  private heldGiBMs = 0;
  private lastT: number | undefined;
  private exitCode: number | undefined;
  /** From the header: TMPDIR on a file system of its own (then no baseline). */
  private ownFs = true;
  private baseline: number | undefined;

  /** Absolute folder paths for the lingering list (not part of the timeline lines). */
  setPath(workdir: string, path: string): void {
    this.paths.set(workdir, path);
  }

  /** GiB·min held by work dirs waiting for do_rm_work, up to the last line added. */
  get heldGiBMin(): number {
    return this.heldGiBMs / 60_000;
  }

  add(line: TimelineLine): void {
    if (line.type === 'header') this.ownFs = ownFileSystem(line);
    if (line.type === 'header' || line.type === 'summary') return;
    this.advance(line.t);
    switch (line.type) {
      case 'sample':
        this.baseline ??= baselineBytes(this.ownFs, line);
        this.addSample(line.t, line.fs, line.workdirs);
        return;
      case 'workdir-state': {
        const known: Known = { pn: line.pn, pv: line.pv, state: line.state };
        if (line.reason !== undefined) known.reason = line.reason;
        this.states.set(line.workdir, known);
        return;
      }
      case 'workdir-disappear':
        this.states.delete(line.workdir);
        this.bytes.delete(line.workdir);
        return;
      case 'build-end':
        if (line.exitCode !== undefined) this.exitCode = line.exitCode;
        return;
      default:
        return;
    }
  }

  finish(t: number, exitCode?: number): TimelineSummary {
    this.advance(t);
    const lingering = findLingering(
      [...this.states].map(([workdir, k]) => ({
        workdir,
        ...k,
        ...(this.paths.has(workdir) ? { path: this.paths.get(workdir) } : {}),
      })),
      (w) => this.bytes.get(w) ?? 0,
    );
    const summary: TimelineSummary = {
      type: 'summary',
      t,
      peak: { ...this.peak },
      topAtPeak: this.topAtPeak,
      heldGiBMin: Math.round((this.heldGiBMs / 60_000) * 1000) / 1000,
      workdirPeaks: { ...this.peaks },
      lingering,
    };
    if (!this.ownFs && this.baseline !== undefined) summary.baselineBytes = this.baseline;
    const code = exitCode ?? this.exitCode;
    if (code !== undefined) summary.exitCode = code;
    return summary;
  }

  private advance(t: number): void {
    if (this.lastT !== undefined && t > this.lastT) {
      let held = 0;
      for (const [workdir, k] of this.states)
        if (k.state === 'waiting-rm-work') held += this.bytes.get(workdir) ?? 0;
      this.heldGiBMs += (held / GIB) * (t - this.lastT);
    }
    if (this.lastT === undefined || t > this.lastT) this.lastT = t;
  }

  private addSample(
    t: number,
    fs: { usedBytes: number; usedInodes: number },
    workdirs: Record<string, number>,
  ) {
    for (const [w, b] of Object.entries(workdirs)) {
      this.bytes.set(w, b);
      if (b > (this.peaks[w] ?? -1)) this.peaks[w] = b;
    }
    if (fs.usedBytes > this.peak.bytes || this.peak.at === 0) {
      this.peak.bytes = fs.usedBytes;
      this.peak.at = t;
      this.topAtPeak = Object.entries(workdirs)
        .sort((a, b) => b[1] - a[1])
        .slice(0, TOP_AT_PEAK)
        .map(([workdir, bytes]) => ({ workdir, bytes }));
    }
    if (fs.usedInodes > this.peak.inodes || this.peak.inodesAt === undefined) {
      this.peak.inodes = fs.usedInodes;
      this.peak.inodesAt = t;
    }
  }
}

/** The summary of a whole list of lines (a timeline read back without its summary line). */
export function summarizeTimeline(lines: Iterable<TimelineLine>, exitCode?: number): TimelineSummary {
  const builder = new SummaryBuilder();
  let last = 0;
  for (const line of lines) {
    builder.add(line);
    if (line.type !== 'header' && line.type !== 'summary') last = Math.max(last, line.t);
  }
  return builder.finish(last, exitCode);
}
