// One exit-code table for every command (README, "Exit codes and errors"): each row is checked
// by spawning the binary on the bundled sample build, which has conf files and nothing built.

import { describe, expect, it } from 'vitest';
import { copyExample, runRambake } from '../helpers/exec.js';

const ROWS: { code: number; meaning: string; args: string[]; stderr?: RegExp }[] = [
  { code: 0, meaning: 'ok', args: ['status'] },
  { code: 1, meaning: 'findings or refused: a plan that does not fit', args: ['plan', '--size', '1m'] },
  { code: 2, meaning: 'usage', args: ['plan', '--sizes', '1m'], stderr: /unknown option '--sizes'/ },
  { code: 2, meaning: 'bad input', args: ['report', 'no-such-run.jsonl'], stderr: /no such timeline file/ },
  { code: 3, meaning: 'nothing yet: no TMPDIR', args: ['space'], stderr: /TMPDIR .* does not exist/ },
  { code: 3, meaning: 'nothing yet: no buildstats', args: ['churn'] },
  { code: 3, meaning: 'nothing yet: no run, no buildstats', args: ['report'], stderr: /no recorded run/ },
];

describe('exit codes', () => {
  it.each(ROWS)('$code: $meaning (rambake $args)', async ({ code, args, stderr }) => {
    const ex = copyExample();
    try {
      const r = await runRambake(['-B', ex.topdir, '--no-bitbake', ...args]);
      expect(r.exitCode, r.stderr).toBe(code);
      if (stderr) expect(r.stderr).toMatch(stderr);
      expect(r.stderr).not.toMatch(/\n\s+at /); // one line, never a stack trace
    } finally {
      ex.cleanup();
    }
  });
});
