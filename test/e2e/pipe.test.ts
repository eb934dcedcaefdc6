// `rambake … | head -1`: a reader that closes early ends rambake quietly, with status 0.

import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI, copyExample } from '../helpers/exec.js';

describe('a pipe closed early', () => {
  for (const args of [['status'], ['plan'], ['doctor'], ['--help'], ['status', '--json']]) {
    it(`rambake ${args.join(' ')} | true`, async () => {
      const ex = copyExample();
      try {
        const run = () =>
          execa(process.execPath, [CLI, '-B', ex.topdir, '--no-bitbake', ...args], {
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', HOME: process.env.HOME ?? '/' },
            extendEnv: false,
            reject: false,
          });
        // Its own verdict (plan: 1 when the build does not fit) stays; only the pipe is forgiven.
        const verdict = (await run()).exitCode;
        expect(verdict).toBeLessThan(2);
        // `true` reads nothing and exits at once: every write of rambake's meets a closed pipe.
        const r = await run().pipe('true', [], { reject: false });
        const source = r.pipedFrom[0]!;
        expect(r.exitCode).toBe(0);
        expect(source.stderr).not.toMatch(/EPIPE|Error|at /);
        expect(source.exitCode === 0 || source.exitCode === verdict).toBe(true);
      } finally {
        ex.cleanup();
      }
    });
  }
});
