// The HTML report: one self-contained file, every name escaped, no URL anywhere; then opened
// in headless Chromium (Debian's chromium, driven by playwright-core) from a file:// URL:
// each chart is drawn with data, nothing is fetched, the console stays clean.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleReport } from '../../src/analyze/report.js';
import { collectReport } from '../../src/analyze/report-read.js';
import { readReportTemplate, renderHtml } from '../../src/report/html.js';
import { escapeHtml } from '../../src/report/svg.js';
import { parseTimeline } from '../../src/timeline/timeline-file.js';
import { tempDir } from '../helpers/exec.js';
import { CHROMIUM, OUT, openReport } from './browser.js';
import { buildWithRun, confOnly } from './helpers.js';

const EVIL = ['<script>alert(1)</script>', `a&b"c'`, "$&$'$`", 'https://evil.example/x'];

/** A run whose recipe names are hostile: tags, quotes, ampersands, replace patterns, a URL. */
function hostileHtml(): string {
  const t0 = 1764512760000;
  const lines: unknown[] = [
    {
      type: 'header',
      schemaVersion: 1,
      startedAt: new Date(t0).toISOString(),
      buildDir: '/b/<b>',
      tmpdir: '/b/tmp',
      tmpfs: { mountPoint: '/b/tmp', fsType: 'tmpfs', source: 'x', sizeBytes: 2 ** 30 },
      host: { memTotal: 2 ** 34, swapTotal: 0, cpus: 4 },
      command: ['bitbake', '<img src=x onerror=alert(2)>'],
    },
  ];
  EVIL.forEach((pn, i) => {
    const workdir = `core2-64-poky-linux/${pn}/1.${i}`;
    lines.push({
      type: 'workdir-state',
      t: t0 + i,
      workdir,
      pn,
      pv: `1.${i}`,
      state: 'excluded',
      reason: `in RM_WORK_EXCLUDE ${pn}`,
    });
  });
  for (let s = 0; s < 4; s++) {
    const workdirs = Object.fromEntries(
      EVIL.map((pn, i) => [`core2-64-poky-linux/${pn}/1.${i}`, (i + 1) * (s + 1) * 2 ** 24]),
    );
    lines.push({
      type: 'sample',
      t: t0 + 1000 + s * 30_000,
      fs: { usedBytes: (s + 2) * 2 ** 28, totalBytes: 2 ** 30, usedInodes: 100, totalInodes: 1000 },
      workdirs,
    });
  }
  lines.push({ type: 'enospc', t: t0 + 95_000, message: 'No space left <on> "device"' });
  const timeline = parseTimeline(lines.map((l) => JSON.stringify(l)).join('\n'));
  const report = assembleReport({
    file: '/runs/<x>.jsonl',
    timeline,
    builds: [
      {
        name: '20251130142602',
        tasks: [
          {
            pf: `a&b"c'-1.1-r0`,
            task: 'do_compile',
            setscene: false,
            utime: 500,
            other: {},
            complete: true,
            skipped: [],
          },
        ],
      },
    ],
    skipped: [{ path: '/x/<script>', why: 'half "written" & torn' }],
  });
  return renderHtml(report, readReportTemplate());
}

describe('HTML report: self-contained and escaped', () => {
  const html = hostileHtml();

  it('escapes every name, path and message', () => {
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain(`a&b"c'`);
    expect(html).toContain(escapeHtml('<script>alert(1)</script>'));
    expect(html).toContain('a&#38;b&#34;c&#39;');
    // String.replace patterns in user data stay literal.
    expect(html).toContain(escapeHtml("$&$'$`"));
    expect(html).toContain(escapeHtml('No space left <on> "device"'));
  });

  it('holds no URL but the ones inside escaped user data, and loads nothing', () => {
    const withoutUserData = html.replaceAll('https://evil.example/x', '');
    expect(withoutUserData).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<(script|link|img|iframe|object)\b/i);
    expect(html).not.toMatch(/<[a-z][^>]*\b(src|href)=/i);
    expect(html).not.toMatch(/@import|url\(/i);
  });
});

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`skipping the browser test: ${CHROMIUM} is absent (apt install chromium)`);

describe.skipIf(!hasChromium)('HTML report in headless Chromium', () => {
  const dir = tempDir('rambake-report-html-');
  let fixturePage = '';
  let hostilePage = '';
  beforeAll(async () => {
    const b = buildWithRun('tmpfs-run-kernel-peak');
    try {
      const r = await collectReport(confOnly(b.topdir), { plan: false });
      fixturePage = join(dir.path, 'report.html');
      writeFileSync(fixturePage, renderHtml(r, readReportTemplate()));
    } finally {
      b.cleanup();
    }
    hostilePage = join(dir.path, 'hostile.html');
    writeFileSync(hostilePage, hostileHtml());
    mkdirSync(OUT, { recursive: true });
  });
  afterAll(() => dir.cleanup());

  it('draws the three charts with data, fetches nothing, logs no error (light)', async () => {
    const r = await openReport(fixturePage, 'light', 'report-light.png');
    for (const c of r.charts) {
      expect(c.shapes, c.id).toBeGreaterThan(0);
      expect(c.drawn, c.id).toBe(c.shapes);
      expect(c.width, c.id).toBeGreaterThan(300);
      expect(c.height, c.id).toBeGreaterThan(50);
    }
    // Five work dirs and the rest of TMPDIR ("other" is empty: not drawn); five bars; four bars.
    expect(r.charts.map((c) => c.shapes)).toEqual([6, 5, 4]);
    expect(r.foreign).toEqual([]);
    expect(r.problems).toEqual([]);
    expect(r.bodyText).toContain('linux-yocto');
  }, 60_000);

  it('renders in dark mode too', async () => {
    const r = await openReport(fixturePage, 'dark', 'report-dark.png');
    expect(r.charts.every((c) => c.drawn > 0)).toBe(true);
    expect(r.problems).toEqual([]);
  }, 60_000);

  it('shows hostile names as text: no script runs, no dialog, nothing fetched', async () => {
    const r = await openReport(hostilePage, 'light', 'report-hostile.png');
    expect(r.problems).toEqual([]);
    expect(r.foreign).toEqual([]);
    expect(r.bodyText).toContain('<script>alert(1)</script>');
    expect(r.bodyText).toContain(`a&b"c'`);
    expect(r.charts.every((c) => c.drawn > 0)).toBe(true);
  }, 60_000);
});
