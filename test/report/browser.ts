// Opens a report page in headless Chromium (Debian's chromium, driven by playwright-core) from a
// file:// URL: what each chart drew, what the page tried to fetch, what it logged, its text.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/exec.js';

export const CHROMIUM = '/usr/bin/chromium';
export const OUT = join(ROOT, 'test', 'output', 'report');

/** The charts looked at by default: fill over time, peaks, CPU. */
const CHARTS = ['chart-fill', 'chart-peak', 'chart-cpu'];

export async function openReport(
  file: string,
  colorScheme: 'light' | 'dark',
  shot: string,
  ids: readonly string[] = CHARTS,
) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, colorScheme });
    const foreign: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file://')) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.goto(pathToFileURL(file).href);
    const charts = await page.evaluate(
      (list) =>
        list.map((id) => {
          const svg = document.querySelector(`#${id} svg`);
          const shapes = svg ? [...svg.querySelectorAll('path, rect')] : [];
          const drawn = shapes.filter((s) => {
            const box = s.getBoundingClientRect();
            return box.width > 0 && box.height > 0;
          });
          const box = svg?.getBoundingClientRect();
          // How tall the stacked bands stand: the share of the chart the data uses.
          const bands = svg
            ? [...svg.querySelectorAll('path.band')].map((b) => b.getBoundingClientRect())
            : [];
          const bandsTop = Math.min(...bands.map((b) => b.top));
          const bandsBottom = Math.max(...bands.map((b) => b.bottom));
          return {
            id,
            shapes: shapes.length,
            drawn: drawn.length,
            width: box?.width ?? 0,
            height: box?.height ?? 0,
            bandsHeight: bands.length > 0 ? bandsBottom - bandsTop : 0,
            limitLine: svg?.querySelector('line.limit') !== null && svg !== null,
          };
        }),
      [...ids],
    );
    // biome-ignore lint/performance/useDomNodeTextContent: what the reader sees, as rendered
    const bodyText = await page.evaluate(() => document.body.innerText);
    await page.screenshot({ path: join(OUT, shot), fullPage: true });
    return { charts, foreign, problems, bodyText };
  } finally {
    await browser.close();
  }
}
