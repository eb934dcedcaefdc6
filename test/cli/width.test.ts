// Output fits the terminal's width on a terminal, and stays unwrapped in a pipe. The terminal is
// a real pseudo-terminal: util-linux `script` runs rambake with `stty cols 80`.

import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { fitLine, truncateLine } from '../../src/text/fit-width.js';
import { stripAnsi } from '../../src/text/format.js';
import { CLI, copyExample } from '../helpers/exec.js';

const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/',
  TERM: 'xterm',
  NO_COLOR: '1',
};

/** The physical lines a terminal of `cols` columns shows, escapes removed. */
async function onTerminal(cols: number, args: string[], seconds?: number): Promise<string[]> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const run = seconds === undefined ? quoted : `timeout -s INT ${seconds} ${quoted}`;
  const r = await execa('script', ['-qec', `stty cols ${cols} rows 60; ${run}`, '/dev/null'], {
    env,
    extendEnv: false,
    reject: false,
  });
  return (
    r.stdout
      // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes are what is removed
      .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '\n') // a cursor move or line clear starts a fresh row here
      .split(/\r?\n|\r/)
      .map(stripAnsi)
  );
}

describe('terminal width', () => {
  it('fits status and plan to 80 columns on a terminal, and leaves them whole in a pipe', async () => {
    const ex = copyExample();
    try {
      for (const command of ['status', 'plan']) {
        const args = ['-B', ex.topdir, '--no-bitbake', command];
        const piped = await execa(process.execPath, [CLI, ...args], { env, extendEnv: false, reject: false });
        const widest = Math.max(...piped.stdout.split('\n').map((l) => l.length));
        expect(widest, `${command} piped`).toBeGreaterThan(80); // else this test proves nothing
        const rows = await onTerminal(80, args);
        expect(rows.join('').length).toBeGreaterThan(200);
        for (const row of rows.filter((r) => /\s/.test(r.trim())))
          expect(row.length, `${command}: ${row}`).toBeLessThanOrEqual(80);
        // Nothing lost: every word of the piped output is on the terminal too (numbers aside: the
        // memory free at the moment differs between the two runs).
        const shown = new Set(rows.join(' ').split(/\s+/));
        for (const word of piped.stdout.split(/\s+/).filter((w) => !/\d/.test(w)))
          expect(shown.has(word), `${command}: ${word}`).toBe(true);
      }
    } finally {
      ex.cleanup();
    }
  });

  it('draws the live watch frame one row a line at 50 columns', async () => {
    const ex = copyExample();
    try {
      const all = await onTerminal(50, ['-B', ex.topdir, '--no-bitbake', 'watch', '--interval', '0.3'], 2);
      // The frames, from the first one to the summary (the notice above them names long paths).
      const rows = all.slice(all.findIndex((r) => r.startsWith('bytes ')));
      expect(rows.length).toBeGreaterThan(4);
      // A path longer than the width stays whole on a row of its own, to be copied.
      for (const row of rows.filter((r) => /\s/.test(r.trim())))
        expect(row.length, row).toBeLessThanOrEqual(50);
      // No build runs here: no time-to-full forecast from other processes' disk activity.
      expect(rows.some((r) => r.startsWith('idle: no build running'))).toBe(true);
      expect(rows.join('\n')).not.toMatch(/full in ~/);
    } finally {
      ex.cleanup();
    }
  });
});

describe('fitLine', () => {
  it('wraps the last cell of a table row under itself', () => {
    const row = `recipe-one    12.0 MiB  ${'a reason that runs on and on '.repeat(3).trim()}`;
    const lines = fitLine(row, 40);
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(40);
    for (const l of lines.slice(1))
      expect(l.startsWith(' '.repeat('recipe-one    12.0 MiB  '.length))).toBe(true);
  });

  it('wraps prose under its indent, keeps a long path whole, and leaves a fitting line alone', () => {
    const path = `/very/long/${'x'.repeat(60)}/path`;
    const lines = fitLine(`  note: the folder ${path} is kept`, 40);
    expect(lines).toContain(`    ${path}`);
    expect(lines[0]).toBe('  note: the folder');
    expect(fitLine('short', 40)).toEqual(['short']);
    expect(fitLine('\x1b[1mbold\x1b[22m', 40)).toEqual(['\x1b[1mbold\x1b[22m']);
  });

  it('truncates a live-view line to one row', () => {
    expect(truncateLine('x'.repeat(100), 30)).toBe(`${'x'.repeat(29)}…`);
    expect(truncateLine('fits', 30)).toBe('fits');
  });
});
