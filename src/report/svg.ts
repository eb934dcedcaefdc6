// Inline SVG charts for the HTML report, drawn here so the page needs no script and no chart
// library: a stacked area of fill over time and horizontal bars. Colours come from CSS classes
// (`c0`…`c9`, `other`, `nonwork`) so the page's light and dark themes apply. No `xmlns`: SVG
// inside HTML gets its namespace from the parser, and the page carries no URL at all.

import { formatBytes, formatDuration } from '../text/format.js';

/** Text for HTML and SVG: the five characters that can end a text node or an attribute. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const n = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '0');

export interface AreaSeries {
  label: string;
  /** CSS class of the band. */
  cls: string;
}

export interface AreaChart {
  /** Epoch ms per point. */
  times: number[];
  series: AreaSeries[];
  /** values[point][series], bytes. */
  values: number[][];
  /** A dashed limit line (the tmpfs size). */
  limit?: { bytes: number; label: string };
  /** A marked point (the peak). */
  mark?: { t: number; bytes: number; label: string };
  /** Vertical lines where something starts (the steps of a run in steps). */
  phases?: { t: number; label: string }[];
  title: string;
}

/** The tmpfs size is drawn on the axis only when within this factor of the data's top. */
const LIMIT_NEAR = 1.5;

/**
 * Whether the limit line is in view: the axis follows the data (a 73 MiB build on a 1 GiB
 * tmpfs must not be a flat line at the bottom) and stretches to a limit only when it is near.
 */
export function limitInView(limitBytes: number, dataTop: number): boolean {
  return limitBytes <= Math.max(1, dataTop) * LIMIT_NEAR;
}

const W = 920;
const H = 340;
const PAD = { left: 78, right: 16, top: 18, bottom: 34 };

/** Round tick steps in binary units: 1, 2, 5 × 2^10k. */
export function niceStep(max: number, ticks = 5): number {
  if (max <= 0) return 1;
  const raw = max / ticks;
  const unit = 1024 ** Math.max(0, Math.floor(Math.log(raw) / Math.log(1024)));
  const scaled = raw / unit;
  const pow = 10 ** Math.floor(Math.log10(scaled));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= scaled) ?? 10 * pow;
  return step * unit;
}

export function renderAreaChart(chart: AreaChart): string {
  const { times, values } = chart;
  const t0 = times[0] ?? 0;
  const span = Math.max(1, (times[times.length - 1] ?? 0) - t0);
  const totals = values.map((v) => v.reduce((a, b) => a + b, 0));
  const dataTop = Math.max(1, ...totals, chart.mark?.bytes ?? 0);
  const limit = chart.limit;
  const shown = limit !== undefined && limitInView(limit.bytes, dataTop);
  const top = Math.max(dataTop, shown ? limit.bytes : 0) * 1.06;
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const x = (t: number) => PAD.left + ((t - t0) / span) * iw;
  const y = (b: number) => PAD.top + ih - (b / top) * ih;
  const parts: string[] = [];
  parts.push(...yAxis(top, y, iw), ...xAxis(span, (s) => x(t0 + s * 1000), y(0)));
  const below = times.map(() => 0);
  chart.series.forEach((s, i) => {
    const above = below.map((b, j) => b + (values[j]?.[i] ?? 0));
    if (above.some((v, j) => v > below[j]!)) {
      const upper = times.map((t, j) => `${n(x(t))},${n(y(above[j]!))}`);
      const lower = times.map((t, j) => `${n(x(t))},${n(y(below[j]!))}`).reverse();
      // A single sample is drawn as a thin column so it is still visible.
      const d =
        times.length === 1
          ? `M${n(x(t0))},${n(y(above[0]!))}h${iw}V${n(y(below[0]!))}h${-iw}Z`
          : `M${upper.join('L')}L${lower.join('L')}Z`;
      parts.push(`<path class="band ${s.cls}" d="${d}"><title>${escapeHtml(s.label)}</title></path>`);
    }
    above.forEach((v, j) => {
      below[j] = v;
    });
  });
  if (limit && shown) {
    const ly = n(y(limit.bytes));
    parts.push(
      `<line class="limit" x1="${PAD.left}" x2="${W - PAD.right}" y1="${ly}" y2="${ly}"/>`,
      `<text class="limit-label" x="${W - PAD.right - 4}" y="${n(y(limit.bytes) - 5)}" text-anchor="end">${escapeHtml(limit.label)}</text>`,
    );
  } else if (limit) {
    // Off the scale: said in words at the top instead of squashing the data to the bottom.
    const times = `${(limit.bytes / dataTop).toFixed(limit.bytes / dataTop < 10 ? 1 : 0)}×`;
    parts.push(
      // Top left: a build's start is low, and the peak's own label sits right of its mark.
      `<text class="limit-label limit-off" x="${PAD.left + 6}" y="${PAD.top + 10}" text-anchor="start">${escapeHtml(`${limit.label}: above this scale (${times} the top)`)}</text>`,
    );
  }
  for (const p of chart.phases ?? []) {
    const px = n(x(p.t));
    parts.push(
      `<line class="phase" x1="${px}" x2="${px}" y1="${PAD.top}" y2="${n(y(0))}"/>`,
      `<text class="phase-label" x="${n(x(p.t) + 4)}" y="${PAD.top + 24}">${escapeHtml(p.label)}</text>`,
    );
  }
  if (chart.mark) {
    const mx = x(chart.mark.t);
    const my = y(chart.mark.bytes);
    const anchor = mx > PAD.left + iw * 0.7 ? 'end' : 'start';
    parts.push(
      `<circle class="mark" cx="${n(mx)}" cy="${n(my)}" r="4"/>`,
      `<text class="mark-label" x="${n(anchor === 'end' ? mx - 8 : mx + 8)}" y="${n(Math.max(PAD.top + 10, my - 6))}" text-anchor="${anchor}">${escapeHtml(chart.mark.label)}</text>`,
    );
  }
  return svg(W, H, chart.title, parts);
}

function yAxis(top: number, y: (b: number) => number, iw: number): string[] {
  const step = niceStep(top / 1.06);
  const out: string[] = [];
  for (let b = 0; b <= top; b += step) {
    const ty = n(y(b));
    out.push(
      `<line class="grid" x1="${PAD.left}" x2="${PAD.left + iw}" y1="${ty}" y2="${ty}"/>`,
      `<text class="tick" x="${PAD.left - 6}" y="${n(y(b) + 4)}" text-anchor="end">${formatBytes(b)}</text>`,
    );
  }
  return out;
}

function xAxis(spanMs: number, x: (seconds: number) => number, base: number): string[] {
  const seconds = spanMs / 1000;
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800];
  const step = steps.find((s) => seconds / s <= 8) ?? 86400;
  const out = [`<line class="axis" x1="${PAD.left}" x2="${W - PAD.right}" y1="${n(base)}" y2="${n(base)}"/>`];
  for (let s = 0; s <= seconds; s += step) {
    // The last tick ends at the right edge instead of running past it.
    const anchor = s === 0 ? 'start' : x(s) > W - PAD.right - 30 ? 'end' : 'middle';
    out.push(
      `<text class="tick" x="${n(x(s))}" y="${n(base + 18)}" text-anchor="${anchor}">+${formatDuration(s)}</text>`,
    );
  }
  return out;
}

export interface Bar {
  label: string;
  value: number;
  /** The value as printed at the end of the bar. */
  text: string;
  /** A tooltip. */
  title?: string;
}

const LABEL_W = 230;
const ROW = 24;

/** Horizontal bars, largest first as given. */
export function renderBarChart(bars: readonly Bar[], title: string, cls = 'bar'): string {
  const h = PAD.top + bars.length * ROW + 8;
  const iw = W - LABEL_W - 110;
  const max = Math.max(1e-9, ...bars.map((b) => b.value));
  const parts = bars.map((b, i) => {
    const y = PAD.top + i * ROW;
    const w = Math.max(1, (b.value / max) * iw);
    const label = b.label.length > 32 ? `${b.label.slice(0, 31)}…` : b.label;
    return [
      `<g class="row"><title>${escapeHtml(b.title ?? `${b.label}: ${b.text}`)}</title>`,
      `<text class="label" x="${LABEL_W - 8}" y="${y + 16}" text-anchor="end">${escapeHtml(label)}</text>`,
      `<rect class="${cls}" x="${LABEL_W}" y="${y + 4}" width="${n(w)}" height="${ROW - 8}" rx="3"/>`,
      `<text class="value" x="${n(LABEL_W + w + 6)}" y="${y + 16}">${escapeHtml(b.text)}</text></g>`,
    ].join('');
  });
  return svg(W, h, title, parts);
}

function svg(w: number, h: number, title: string, parts: string[]): string {
  return [
    `<svg class="chart" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${escapeHtml(title)}">`,
    `<title>${escapeHtml(title)}</title>`,
    ...parts,
    '</svg>',
  ].join('\n');
}
