// What `watch` and `run` share: their flags, the live display and the line printers.

import type { Command } from 'commander';
import { frameText, renderEventLine, renderLiveView, renderSampleLine } from '../report/watch.js';
import { truncateLine } from '../text/fit-width.js';
import type { TimelineLine } from '../timeline/timeline-types.js';
import type { WatchView } from '../watch/view.js';
import { addOptions } from './options.js';
import type { Output } from './output.js';

export function addCommandOptions(cmd: Command, name: string): Command {
  return addOptions(cmd, name);
}

/** --interval's seconds (checked by its parser in the option table) → milliseconds. */
export function intervalMs(seconds: number | string | undefined): number {
  return Math.round(Number(seconds ?? 2) * 1000);
}

export interface Display {
  onLine(line: TimelineLine): void;
  onSample(view: WatchView): void;
  /** Leaves the live view where it is (the summary prints below it). */
  end(): void;
}

/**
 * JSON: every timeline line on stdout (except the summary, printed by the command). TTY (not
 * under CI): one frame per sample, redrawn in place with a single write. Otherwise: timestamped
 * lines for state changes and samples.
 */
export function makeDisplay(out: Output, options: { jsonLines: boolean; env?: NodeJS.ProcessEnv }): Display {
  const env = options.env ?? process.env;
  if (out.json) {
    return {
      onLine: (line) => {
        if (options.jsonLines && line.type !== 'summary') process.stdout.write(`${JSON.stringify(line)}\n`);
      },
      onSample: () => undefined,
      end: () => undefined,
    };
  }
  if (out.isTTY && !env.CI) {
    // Cursor moves count physical rows: each line is cut to the width, so none wraps. A resize
    // reflows what is on the screen already, so the frame is drawn again below a cleared screen.
    let previous = 0;
    let last: WatchView | undefined;
    const draw = (view: WatchView, moveUp: number): void => {
      const width = process.stdout.columns ?? 0;
      const lines = renderLiveView(view, out.colors, Date.now()).map((l) => truncateLine(l, width));
      process.stdout.write(frameText(lines, moveUp));
      previous = lines.length;
    };
    const onResize = (): void => {
      if (last === undefined) return;
      process.stdout.write('\x1b[2J\x1b[H');
      draw(last, 0);
    };
    process.stdout.on('resize', onResize);
    return {
      onLine: () => undefined,
      onSample: (view) => {
        last = view;
        draw(view, previous);
      },
      end: () => {
        process.stdout.off('resize', onResize);
        previous = 0;
      },
    };
  }
  // One line per real state change: 'active (do_compile)' → 'active (do_install)' stays quiet.
  const last = new Map<string, string>();
  return {
    onLine: (line) => {
      if (line.type === 'header' || line.type === 'sample' || line.type === 'summary') return;
      if (line.type === 'workdir-state') {
        if (last.get(line.workdir) === line.state) return;
        last.set(line.workdir, line.state);
      }
      const text = renderEventLine(line);
      if (text !== undefined) out.line(text);
    },
    onSample: (view) => out.line(renderSampleLine(view)),
    end: () => undefined,
  };
}
