// The report of a small hand-written run (a tmpfs run where the kernel holds the peak, busybox
// is in RM_WORK_EXCLUDE, netbase 6.5 is stale and zlib's do_package restore is redundant),
// read through the real readers from a copy of the sample build, as text and JSON goldens.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectReport } from '../../src/analyze/report-read.js';
import { renderReportText } from '../../src/report/report-text.js';
import { makeColors } from '../../src/text/format.js';
import { buildWithRun, confOnly, FIXTURES } from './helpers.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

const GOLDEN = join(FIXTURES, 'tmpfs-run-kernel-peak', 'golden');

async function report() {
  const b = buildWithRun('tmpfs-run-kernel-peak');
  cleanup = b.cleanup;
  const r = await collectReport(confOnly(b.topdir), { plan: false });
  const clean = (s: string) => s.replaceAll(b.root, '<tmp>');
  return { r, clean };
}

describe('rambake report on a recorded tmpfs run', () => {
  it('text matches the golden file', async () => {
    const { r, clean } = await report();
    const text = clean(renderReportText(r, makeColors(false)).join('\n'));
    expect(`${text}\n`).toBe(readFileSync(join(GOLDEN, 'report.txt'), 'utf8'));
  });

  it('JSON matches the golden file', async () => {
    const { r, clean } = await report();
    const json = clean(JSON.stringify(r, null, 2));
    expect(`${json}\n`).toBe(readFileSync(join(GOLDEN, 'report.json'), 'utf8'));
  });

  it('finds the figures the fixture was written to show', async () => {
    const { r } = await report();
    expect(r.schemaVersion).toBe(1);
    expect(r.run.builds).toEqual(['20251130142602']);
    expect(r.usage.peak).toMatchObject({ bytes: 4300 * 2 ** 20, at: 1764512880000 });
    expect(r.usage.final).toMatchObject({ bytes: 3800 * 2 ** 20, at: 1764513060000 });
    expect(r.topByPeak[0]).toMatchObject({ pn: 'linux-yocto', bytes: 3 * 2 ** 30 });
    // linux-yocto: (2000+1000+100000+17000)/100 + (50+20+80+30)/100 ticks; busybox from rusage.
    expect(r.topByCpu.map((x) => [x.pn, x.cpuSeconds])).toEqual([
      ['linux-yocto', 1201.8],
      ['gcc-cross-x86_64', 729],
      ['busybox', 92],
      ['zlib', 0.75],
    ]);
    // The peak sample: four work dirs drawn, nothing in "other", the rest of TMPDIR on top.
    const peak = r.fill.points.find((p) => p.t === 1764512880000)!;
    expect(peak.values.reduce((a, b) => a + b, 0)).toBe(peak.used);
    expect(r.sstate[0]?.summary).toMatchObject({ wanted: 12, local: 3, missed: 9 });
    expect(r.churn?.builds[0]?.redundant.map((x) => x.pf)).toEqual(['zlib-1.3.1-r0']);
    const rules = r.recommendations.map((x) => `${x.rule}:${x.pn ?? ''}`);
    expect(rules).toEqual([
      'tmpfs-size:',
      'rm-work-exclude:busybox',
      'stale-workdir:netbase',
      'held-by-rm-work:',
      'steps-giant:linux-yocto',
      'steps-giant:gcc-cross-x86_64',
    ]);
  });
});
