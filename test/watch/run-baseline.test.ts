// One meaning of a run's peak on a disk TMPDIR shares (issue #16): its growth above what the
// disk held, less the sstate and downloads it wrote beside TMPDIR by then, the same for run's
// summary, report and plan's recorded runs.

import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/analyze/report.js';
import { measureFootprint } from '../../src/plan/footprint.js';
import { withoutWritten } from '../../src/plan/history-outside.js';
import { renderRunSummary } from '../../src/report/watch.js';
import { makeColors } from '../../src/text/format.js';
import { OwnUsage, ownPeak } from '../../src/timeline/run-baseline.js';
import { parseTimeline } from '../../src/timeline/timeline-file.js';
import { recordedRunFrom } from '../../src/timeline/timeline-runs.js';
import type { TimelineLine } from '../../src/timeline/timeline-types.js';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

function timeline(fsType: string): TimelineLine[] {
  const fs = (used: number) => ({
    usedBytes: used,
    totalBytes: 250 * GiB,
    usedInodes: 1000,
    totalInodes: 10_000,
  });
  return [
    {
      type: 'header',
      schemaVersion: 1,
      startedAt: new Date(1000).toISOString(),
      buildDir: '/b',
      tmpdir: '/b/tmp',
      tmpfs: { mountPoint: fsType === 'tmpfs' ? '/b/tmp' : '/', fsType, source: 'x' },
      host: { memTotal: 16 * GiB, swapTotal: 0, cpus: 4 },
      command: ['bitbake', 'core-image-sato'],
    },
    // Attached while zlib's work dir already held 10 MiB of the build's.
    { type: 'sample', t: 1000, fs: fs(177 * GiB), workdirs: { 'core2-64/zlib/1.3': 10 * MiB } },
    { type: 'sample', t: 2000, fs: fs(177 * GiB + 209 * MiB), workdirs: { 'core2-64/zlib/1.3': 50 * MiB } },
    { type: 'sample', t: 3000, fs: fs(177 * GiB + 100 * MiB), workdirs: {} },
  ];
}

const text = (lines: TimelineLine[]) => lines.map((l) => JSON.stringify(l)).join('\n');

describe('a run on a disk TMPDIR shares', () => {
  it('peaks at its own growth in run, report and plan alike', () => {
    const tl = parseTimeline(text(timeline('ext4')));
    const own = 209 * MiB + 10 * MiB; // above the disk's 177 GiB less the build's own 10 MiB
    expect(tl.summary.peak.bytes - (tl.summary.baselineBytes ?? 0)).toBe(own);
    const summary = renderRunSummary(tl.summary, makeColors(false)).join('\n');
    expect(summary).toContain("peak: 219 MiB of TMPDIR's own");
    expect(summary).toContain('TMPDIR shares its disk');
    const run = recordedRunFrom(tl, '/b/rambake/runs/x.jsonl');
    expect(run.peakBytes - run.baselineBytes).toBe(own);
    const report = assembleReport({ file: 'x.jsonl', timeline: tl, builds: [] });
    expect(report.usage.peakRunBytes).toBe(own);
  });

  it('leaves out the sstate and downloads the run wrote beside TMPDIR, as they were written', () => {
    const tl = parseTimeline(text(timeline('ext4')));
    const run = recordedRunFrom(tl, '/b/rambake/runs/x.jsonl');
    // 80 MiB of sstate archives by the fullest sample, 30 MiB more at the end.
    const written = [
      { t: 1500, bytes: 80 * MiB },
      { t: 2500, bytes: 30 * MiB },
    ];
    const own = new OwnUsage(run.baselineBytes, written);
    expect(own.outsideBytes).toBe(110 * MiB);
    expect([own.writtenBy(1499), own.writtenBy(1500), own.writtenBy(3000)]).toEqual([0, 80 * MiB, 110 * MiB]);
    const peak = ownPeak(own, tl.samples);
    expect(peak).toEqual({ bytes: 139 * MiB, at: 2000 });
    // plan and --predict: the footprint of the same samples.
    const footprint = measureFootprint(withoutWritten(run.samples, written), [], {
      baselineBytes: run.baselineBytes,
    });
    expect(footprint.peakBytes).toBe(peak.bytes);
    // report: the usage, the fill chart's top and the same peak.
    const report = assembleReport({ file: 'x.jsonl', timeline: tl, builds: [], own });
    expect(report.usage.peakRunBytes).toBe(peak.bytes);
    expect(report.usage.outsideBytes).toBe(110 * MiB);
    expect(Math.max(...report.fill.points.map((p) => p.used))).toBe(peak.bytes);
    // run's summary.
    const summary = renderRunSummary(
      { ...tl.summary, ownPeak: { ...peak, baselineBytes: run.baselineBytes, outsideBytes: 110 * MiB } },
      makeColors(false),
    ).join('\n');
    expect(summary).toContain("peak: 139 MiB of TMPDIR's own");
    expect(summary).toContain('110 MiB of sstate and downloads the run wrote beside TMPDIR');
  });

  it('is the file system peak on a tmpfs of its own', () => {
    const tl = parseTimeline(text(timeline('tmpfs')));
    expect(tl.summary.baselineBytes).toBeUndefined();
    expect(renderRunSummary(tl.summary, makeColors(false))[1]).toMatch(/^peak: 177 GiB at /);
    expect(recordedRunFrom(tl, 'x').baselineBytes).toBe(0);
  });
});
