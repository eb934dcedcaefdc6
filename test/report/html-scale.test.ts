// The fill chart's axis follows the data: a 73 MiB build on a 1 GiB tmpfs fills most of the
// chart (not a flat line at the bottom) and the tmpfs size, far above, is said in words; a
// tmpfs close to the peak is drawn as its line. A report from buildstats alone has no fill
// chart but its CPU chart. Checked in the SVG text and in headless Chromium.

import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/analyze/report.js';
import { collectReport } from '../../src/analyze/report-read.js';
import { readReportTemplate, renderHtml } from '../../src/report/html.js';
import { limitInView } from '../../src/report/svg.js';
import { parseTimeline } from '../../src/timeline/timeline-file.js';
import { tempDir } from '../helpers/exec.js';
import { CHROMIUM, OUT, openReport } from './browser.js';
import { buildWithRun, confOnly } from './helpers.js';

const MiB = 2 ** 20;
const t0 = 1764512760000;

/** A run that peaks at `peakMiB` on a tmpfs of `sizeMiB`, one work dir holding most of it. */
function page(peakMiB: number, sizeMiB: number): string {
  const lines: unknown[] = [
    {
      type: 'header',
      schemaVersion: 1,
      startedAt: new Date(t0).toISOString(),
      buildDir: '/b',
      tmpdir: '/b/tmp',
      tmpfs: { mountPoint: '/b/tmp', fsType: 'tmpfs', source: 'rambake-1', sizeBytes: sizeMiB * MiB },
      host: { memTotal: 2 ** 34, swapTotal: 0, cpus: 4 },
      command: ['bitbake', 'tiny-target', 'os-release'],
    },
  ];
  for (let s = 0; s <= 10; s++) {
    const used = Math.round(((peakMiB * Math.min(s, 10 - s + 4)) / 7) * MiB);
    lines.push({
      type: 'sample',
      t: t0 + s * 5000,
      fs: {
        usedBytes: Math.min(used, peakMiB * MiB),
        totalBytes: sizeMiB * MiB,
        usedInodes: 10,
        totalInodes: 100,
      },
      workdirs: { 'all-poky-linux/tiny-giant/1.0': Math.round(Math.min(used, peakMiB * MiB) * 0.7) },
    });
  }
  const report = assembleReport({
    file: '/runs/x.jsonl',
    timeline: parseTimeline(lines.map((l) => JSON.stringify(l)).join('\n')),
    builds: [],
  });
  expect(report.run.targets).toEqual(['tiny-target', 'os-release']);
  return renderHtml(report, readReportTemplate());
}

describe('the fill axis in the SVG', () => {
  it('draws the tmpfs line only when near the data', () => {
    expect(limitInView(1024 * MiB, 73 * MiB)).toBe(false);
    expect(limitInView(100 * MiB, 95 * MiB)).toBe(true);
    const far = page(73, 1024);
    expect(far).not.toContain('class="limit"');
    expect(far).toContain('tmpfs size 1.00 GiB: above this scale');
    // The top tick is near the data, not the tmpfs size.
    const ticks = [...far.matchAll(/class="tick"[^>]*text-anchor="end">([^<+]+ MiB)</g)].map((m) => m[1]);
    expect(ticks.at(-1)).toMatch(/^(60|70|75|80)\.0 MiB$/);
    expect(far).not.toMatch(/class="tick"[^>]*>[^<]*GiB</);
    const near = page(95, 100);
    expect(near).toContain('class="limit"');
    expect(near).toContain('tmpfs size 100 MiB</text>');
  });

  it('names every target in the title', () => {
    expect(page(73, 1024)).toContain('<h1>rambake report: tiny-target os-release</h1>');
  });
});

describe.skipIf(!existsSync(CHROMIUM))('fill axis and buildstats-only page in Chromium', () => {
  const dir = tempDir('rambake-report-scale-');
  const files = { far: '', near: '', alone: '' };
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    files.far = join(dir.path, 'far.html');
    writeFileSync(files.far, page(73, 1024));
    files.near = join(dir.path, 'near.html');
    writeFileSync(files.near, page(95, 100));
    const b = buildWithRun('tmpfs-run-kernel-peak');
    try {
      rmSync(join(b.topdir, 'rambake'), { recursive: true });
      const r = await collectReport(confOnly(b.topdir), { plan: false });
      files.alone = join(dir.path, 'alone.html');
      writeFileSync(files.alone, renderHtml(r, readReportTemplate()));
    } finally {
      b.cleanup();
    }
  });
  afterAll(() => dir.cleanup());

  it('a 73 MiB build on a 1 GiB tmpfs stands tall; the size is said, not drawn', async () => {
    const r = await openReport(files.far, 'light', 'report-scale-far.png', ['chart-fill']);
    const fill = r.charts[0]!;
    expect(fill.limitLine).toBe(false);
    // The bands use most of the chart's height (the old axis left them at 7 %).
    expect(fill.bandsHeight / fill.height).toBeGreaterThan(0.6);
    expect(r.bodyText).toContain('tmpfs size 1.00 GiB: above this scale');
    expect(r.problems).toEqual([]);
  }, 60_000);

  it('a tmpfs just above the peak is drawn as its line', async () => {
    const r = await openReport(files.near, 'light', 'report-scale-near.png', ['chart-fill']);
    expect(r.charts[0]!.limitLine).toBe(true);
    expect(r.charts[0]!.bandsHeight / r.charts[0]!.height).toBeGreaterThan(0.6);
  }, 60_000);

  it('buildstats alone: no fill chart, the CPU chart drawn, and why', async () => {
    const r = await openReport(files.alone, 'light', 'report-buildstats.png', ['chart-fill', 'chart-cpu']);
    expect(r.charts[0]!.shapes).toBe(0);
    expect(r.charts[1]!.drawn).toBe(4);
    expect(r.bodyText).toContain('No recorded run');
    expect(r.bodyText).toContain('Sstate reuse');
    expect(r.problems).toEqual([]);
  }, 60_000);
});
