// Small rendering helpers shared by every text reporter: sizes, durations, aligned tables, colour.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** 1536 → "1.5 KiB"; binary units, as `du -h`, `free -h` and tmpfs `size=` use. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '?';
  const sign = bytes < 0 ? '-' : '';
  let n = Math.abs(bytes);
  let unit = 0;
  while (n >= 1024 && unit < UNITS.length - 1) {
    n /= 1024;
    unit++;
  }
  const digits = unit === 0 || n >= 100 ? 0 : n >= 10 ? 1 : 2;
  return `${sign}${n.toFixed(digits)} ${UNITS[unit]}`;
}

/** 412000 → "412k"; inode counts and other large integers. */
export function formatCount(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 10_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** 3725 → "1h 02m"; 75 → "1m 15s"; 4.2 → "4.2s". */
export function formatDuration(seconds: number): string {
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** 1 → "1 job", 2 → "2 jobs"; `many` for irregular plurals. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '-';
  return `${((part / whole) * 100).toFixed(0)}%`;
}

export type Align = 'left' | 'right';

/** Rows of cells → lines with aligned columns; `align` per column (default left). */
export function renderTable(rows: string[][], align: Align[] = [], gap = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => {
        const pad = ' '.repeat((widths[i] ?? 0) - visibleLength(cell));
        if (i === row.length - 1 && align[i] !== 'right') return cell;
        return align[i] === 'right' ? pad + cell : cell + pad;
      })
      .join(gap),
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
const ANSI = /\x1b\[[0-9;]*m/g;

export function visibleLength(s: string): number {
  return s.replace(ANSI, '').length;
}

export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

export interface Colors {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;
const plain = (s: string) => s;

/** Colour only on a TTY, never under NO_COLOR (https://no-color.org) or when asked not to. */
export function makeColors(enabled: boolean): Colors {
  if (!enabled) return { bold: plain, dim: plain, red: plain, yellow: plain, green: plain, cyan: plain };
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    green: wrap(32, 39),
    cyan: wrap(36, 39),
  };
}

export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}
