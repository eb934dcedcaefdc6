// report's tmpfs-size advice: measured against the peak plus its margin, rounded to whole GiB
// only for a real build's need (the demo's 145 MiB in a 193 MiB tmpfs was told to grow to 1 GiB).

import { describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/analyze/report.js';
import { roundedSize } from '../../src/analyze/report-rules.js';
import { parseTimeline } from '../../src/timeline/timeline-file.js';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

describe('the tmpfs size report suggests', () => {
  it('is whole GiB from 2 GiB up, 16 MiB steps below', () => {
    expect(roundedSize(145 * MiB * 1.2)).toEqual({ bytes: 176 * MiB, text: '176m' });
    expect(roundedSize(1.5 * GiB)).toEqual({ bytes: 1536 * MiB, text: '1536m' });
    expect(roundedSize(13.2 * GiB)).toEqual({ bytes: 14 * GiB, text: '14g' });
  });
});

function tmpfsRun(sizeBytes: number, peakBytes: number) {
  const fs = (used: number) => ({
    usedBytes: used,
    totalBytes: sizeBytes,
    usedInodes: 10,
    totalInodes: 100_000,
  });
  const lines = [
    {
      type: 'header',
      schemaVersion: 1,
      startedAt: new Date(1000).toISOString(),
      buildDir: '/b',
      tmpdir: '/b/ram',
      tmpfs: { mountPoint: '/b/ram', fsType: 'tmpfs', source: 'rambake-x', sizeBytes, nrInodes: 100_000 },
      host: { memTotal: 16 * GiB, swapTotal: 0, cpus: 4 },
      command: ['bitbake', 'core-image-sato'],
    },
    { type: 'sample', t: 1000, fs: fs(0), workdirs: {} },
    { type: 'sample', t: 2000, fs: fs(peakBytes), workdirs: {} },
    { type: 'build-end', t: 2500, exitCode: 0 },
  ];
  const tl = parseTimeline(lines.map((l) => JSON.stringify(l)).join('\n'));
  return assembleReport({ file: 'r.jsonl', timeline: tl, builds: [] }).recommendations.find(
    (x) => x.rule === 'tmpfs-size',
  );
}

describe('the tmpfs-size recommendation', () => {
  it('says a tmpfs that holds the peak and its margin fits, whatever the rounding', () => {
    expect(tmpfsRun(193 * MiB, 145 * MiB)?.text).toMatch(/the 193 MiB tmpfs fits$/);
    expect(tmpfsRun(160 * MiB, 145 * MiB)?.text).toMatch(/grow the tmpfs from 160 MiB to 176 MiB$/);
  });
});
