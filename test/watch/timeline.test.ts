import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { frameText, renderRunSummary, warningsOf } from '../../src/report/watch.js';
import { makeColors } from '../../src/text/format.js';
import { findLingering } from '../../src/timeline/lingering.js';
import { summarizeTimeline } from '../../src/timeline/summary.js';
import {
  defaultTimelinePath,
  parseTimeline,
  readTimeline,
  TimelineWriter,
} from '../../src/timeline/timeline-file.js';
import type { TimelineLine } from '../../src/timeline/timeline-types.js';
import { forecastFill } from '../../src/watch/forecast.js';
import { tempDir } from '../helpers/exec.js';

const GIB = 1024 ** 3;
const fs = (used: number) => ({
  usedBytes: used,
  totalBytes: 10 * GIB,
  usedInodes: used / 4096,
  totalInodes: 1e6,
});
const state = (t: number, workdir: string, s: 'waiting-rm-work' | 'cleaned' | 'excluded'): TimelineLine => ({
  type: 'workdir-state',
  t,
  workdir,
  pn: workdir.split('/')[1]!,
  pv: workdir.split('/')[2]!,
  state: s,
});
const LINES: TimelineLine[] = [
  { type: 'sample', t: 0, fs: fs(1 * GIB), workdirs: { 'a/zlib/1': GIB, 'a/linux/6': 0.5 * GIB } },
  state(0, 'a/zlib/1', 'waiting-rm-work'),
  state(0, 'a/linux/6', 'excluded'),
  { type: 'sample', t: 60_000, fs: fs(3 * GIB), workdirs: { 'a/zlib/1': GIB, 'a/linux/6': 2 * GIB } },
  state(120_000, 'a/zlib/1', 'cleaned'),
  {
    type: 'sample',
    t: 180_000,
    fs: fs(2 * GIB),
    workdirs: { 'a/zlib/1': 0.001 * GIB, 'a/linux/6': 2 * GIB },
  },
];

describe('summary', () => {
  it('integrates bytes waiting for rm_work over time, finds the peaks and what lingers', () => {
    const s = summarizeTimeline(LINES);
    // zlib held 1 GiB for two minutes.
    expect(s.heldGiBMin).toBe(2);
    expect(s.peak).toEqual({ bytes: 3 * GIB, inodes: (3 * GIB) / 4096, at: 60_000, inodesAt: 60_000 });
    expect(s.topAtPeak?.[0]).toEqual({ workdir: 'a/linux/6', bytes: 2 * GIB });
    expect(s.workdirPeaks).toEqual({ 'a/zlib/1': GIB, 'a/linux/6': 2 * GIB });
    expect(s.lingering).toEqual([
      {
        pn: 'linux',
        pv: '6',
        workdir: 'a/linux/6',
        state: 'excluded',
        bytes: 2 * GIB,
        reason: 'in RM_WORK_EXCLUDE',
      },
    ]);
  });

  it('lists lingering dirs biggest first and skips cleaned ones', () => {
    const l = findLingering(
      [
        { workdir: 'x/a/1', pn: 'a', pv: '1', state: 'stale' },
        { workdir: 'x/b/1', pn: 'b', pv: '1', state: 'failed', reason: 'do_compile failed' },
        { workdir: 'x/c/1', pn: 'c', pv: '1', state: 'cleaned' },
      ],
      (w) => (w === 'x/b/1' ? 10 : 5),
    );
    expect(l.map((x) => [x.workdir, x.reason])).toEqual([
      ['x/b/1', 'do_compile failed'],
      ['x/a/1', 'not part of this build'],
    ]);
  });
});

describe('timeline file', () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  afterEach(() => dir?.cleanup());

  it('names runs by start time under TOPDIR/rambake/runs', () => {
    expect(defaultTimelinePath('/b', new Date('2025-11-30T14:26:27.570Z'))).toBe(
      '/b/rambake/runs/20251130-142627.jsonl',
    );
  });

  it('reads back what was written, with its summary line', async () => {
    dir = tempDir();
    const path = join(dir.path, 'rambake', 'runs', 'x.jsonl');
    const w = new TimelineWriter(path);
    for (const line of LINES) w.write(line);
    w.write(summarizeTimeline(LINES, 0));
    w.close();
    const t = await readTimeline(path);
    expect(t.recomputed).toBe(false);
    expect(t.samples).toHaveLength(3);
    expect(t.events).toHaveLength(3);
    expect(t.summary.exitCode).toBe(0);
    expect(t.skipped).toEqual([]);
  });

  it('skips a torn last line and recomputes the missing summary', async () => {
    dir = tempDir();
    const path = join(dir.path, 'torn.jsonl');
    const text = `${LINES.map((l) => JSON.stringify(l)).join('\n')}\n{"type":"sample","t":24`;
    writeFileSync(path, text);
    const t = await readTimeline(path);
    expect(t.skipped).toEqual([{ lineNo: LINES.length + 1, text: '{"type":"sample","t":24' }]);
    expect(t.recomputed).toBe(true);
    expect(t.summary.heldGiBMin).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('ignores lines that are JSON but not timeline objects', () => {
    expect(parseTimeline('42\n\n').skipped).toEqual([
      { lineNo: 1, text: '42', why: 'not a timeline line (no "type")' },
    ]);
  });
});

describe('forecast and display', () => {
  it('fits the slope and names the fastest writer', () => {
    const f = forecastFill([
      { t: 0, usedBytes: 0, totalBytes: 1000, workdirs: { w: 0 } },
      { t: 1000, usedBytes: 100, totalBytes: 1000, workdirs: { w: 100 } },
      { t: 2000, usedBytes: 200, totalBytes: 1000, workdirs: { w: 200, v: 5 } },
    ]);
    expect(f?.bytesPerSecond).toBeCloseTo(100);
    expect(f?.secondsToFull).toBeCloseTo(8);
    expect(f?.topWriter).toEqual({ workdir: 'w', bytesPerSecond: 100 });
    expect(forecastFill([{ t: 0, usedBytes: 0, totalBytes: 1 }])).toBeUndefined();
  });

  it('warns with the writer and its task when full is near', () => {
    const view = {
      t: 0,
      top: [],
      counts: {},
      waitingBytes: 0,
      heldGiBMin: 0,
      enospc: false,
      idle: false,
      forecast: {
        bytesPerSecond: 120 * 1024 ** 2,
        secondsToFull: 240,
        topWriter: { workdir: 'x', bytesPerSecond: 120 * 1024 ** 2 },
      },
      topWriterTask: 'webkitgtk/do_compile',
    };
    expect(warningsOf(view)).toEqual([
      'tmpfs full in ~4m 00s at current rate: webkitgtk/do_compile writes 120 MiB/s',
    ]);
  });

  it('redraws a frame in place with one write: cursor up, each line cleared', () => {
    expect(frameText(['a', 'b'], 0)).toBe('\x1b[2Ka\n\x1b[2Kb\n');
    expect(frameText(['a'], 2)).toBe('\x1b[2F\x1b[2Ka\n\x1b[2K\n\x1b[1F');
  });

  it('renders the end-of-build summary', () => {
    const text = renderRunSummary(summarizeTimeline(LINES, 1), makeColors(false)).join('\n');
    expect(text).toContain('peak: 3.00 GiB');
    expect(text).toContain('2.000 GiB·min');
    expect(text).toMatch(/a\/linux\/6\s+excluded\s+2\.00 GiB\s+in RM_WORK_EXCLUDE/);
    expect(text).toContain('exit code: 1');
  });
});
