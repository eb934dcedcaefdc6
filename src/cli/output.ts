// The one place (with the CLI entry) that prints. Reporters return strings; this writes them.

import { fitLine } from '../text/fit-width.js';
import { type Colors, colorEnabled, makeColors } from '../text/format.js';

export interface GlobalFlags {
  buildDir?: string;
  json?: boolean;
  color?: boolean;
  debug?: boolean;
  bitbake?: boolean;
}

export interface Output {
  json: boolean;
  colors: Colors;
  isTTY: boolean;
  /** A line on stdout; on a terminal, fitted to its width (see text/fit-width.ts). */
  line(text?: string): void;
  /** A JSON document on stdout: with --json it is the only thing printed there. */
  document(value: unknown): void;
  /** A warning or note on stderr (kept off stdout so --json stays clean). */
  warn(text: string): void;
}

export function makeOutput(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env): Output {
  const isTTY = process.stdout.isTTY === true;
  const colors = makeColors(flags.color !== false && colorEnabled(process.stdout, env));
  return {
    json: flags.json === true,
    colors,
    isTTY,
    line: (text = '') => {
      process.stdout.write(`${fitted(text, process.stdout)}\n`);
    },
    document: (value) => {
      process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    warn: (text) => {
      process.stderr.write(`${fitted(text, process.stderr)}\n`);
    },
  };
}

/** On a terminal, each line fitted to its width; elsewhere the text as it is. */
function fitted(text: string, stream: NodeJS.WriteStream): string {
  const width = stream.isTTY === true ? (stream.columns ?? 0) : 0;
  return width > 0
    ? text
        .split('\n')
        .flatMap((l) => fitLine(l, width))
        .join('\n')
    : text;
}
