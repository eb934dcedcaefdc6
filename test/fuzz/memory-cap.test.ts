// The fuzzer's memory cap is real: a Buffer (outside V8's heap, so not limited by
// --max-old-space-size) larger than what the cap leaves fails under it, and the fuzzer counts
// that case as over the cap; the same allocation goes through with the heap limit alone.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ADDRESS_SPACE_MB, assertPrlimit, cappedArgv, judge, OVER_CAP } from './fuzzer.js';

// 400 MiB of Buffer, touched (fill 1) so it is really there.
const ALLOCATE = 'const b = Buffer.alloc(400 * 2 ** 20, 1); console.log("allocated", b.length)';
const node = [process.execPath, '--max-old-space-size=256', '-e', ALLOCATE];
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', MALLOC_ARENA_MAX: '2' };

describe('the fuzz memory cap (prlimit --as)', () => {
  it('prlimit is here', () => expect(assertPrlimit).not.toThrow());

  it('the heap limit alone lets 400 MiB of Buffer through', () => {
    const r = spawnSync(node[0]!, node.slice(1), { env, encoding: 'utf8' });
    expect(r.stdout).toMatch(/^allocated 419430400/);
  });

  it(`under the ${ADDRESS_SPACE_MB} MiB cap it fails, and the fuzzer says: over the memory cap`, () => {
    const [command, ...args] = cappedArgv(node, ADDRESS_SPACE_MB);
    const r = spawnSync(command!, args, { env, encoding: 'utf8' });
    expect(r.stdout).not.toMatch(/allocated/);
    expect(judge(r.status, r.signal, r.stderr, r.stdout, false)).toEqual({ verdict: 'crash', why: OVER_CAP });
  });
});
