// The one place (with the CLI entry) that prints. Reporters return strings; this writes them.

import { type Colors, colorEnabled, makeColors } from '../report/format.js';

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
  /** A line on stdout. */
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
      process.stdout.write(`${text}\n`);
    },
    document: (value) => {
      process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    warn: (text) => {
      process.stderr.write(`${text}\n`);
    },
  };
}
