// readConsoleLog against an oracle written here: the file cut into lines by this test (bytes
// split at \n, a \r before it dropped, UTF-8 decoded per line, lines over the cap left out, as
// lines.ts documents) and given to the in-memory parser. With `kinds`, the reader skips lines
// that cannot give those kinds without decoding them: it must still give exactly the oracle's
// events of those kinds, with the same line numbers, whatever the chunk size.

import { isAscii } from 'node:buffer';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ConsoleEvent,
  type ConsoleEventKind,
  parseConsoleLog,
  readConsoleLog,
} from '../../src/bitbake/consolelog.js';

const fixture = fileURLToPath(
  new URL('../fixtures/records/consolelog-glued-progress-mc-failure/console.log', import.meta.url),
);
const T = '/home/u/poky/meta/recipes-core/zlib/zlib_1.3.1.bb';

// Every form the parser knows, near misses of each, and what trips a line reader.
// The Build Configuration block, in order: inside it a line means something else.
const BLOCK = [
  'Build Configuration:',
  'BB_VERSION           = "2.15.2"',
  'MACHINE              = "NOTE: Running task 1 of 2 (inside the block)"',
  'meta                 ',
  'meta-poky            = "whinlatter:4f0e2b1c9d8a"',
  '',
];
const LINES: (string | Buffer)[] = [
  'Loading cache...done.',
  'Initialising tasks...Sstate summary: Wanted 42 Local 3 Mirrors 0 Missed 39 Current 7 (7% match, 20% complete)',
  'NOTE: Executing Tasks',
  `NOTE: Running setscene task 1 of 2 (mc:arm:${T}:do_package_setscene)`,
  `NOTE: Running task 12 of 300 (${T}:do_compile)`,
  `NOTE: Running noexec task 13 of 300 (${T}:do_build)`,
  'NOTE: Running task x of 4 (not a number)',
  'NOTE: Running task 1 of 2 ()',
  'NOTE: Running task 1 of 2 (a\rb)',
  'NOTE: Running task 1 of 2 (a\u2028b)',
  'NOTE: Running task 99999999999999999999 of 2 (é)',
  'Initialising tasks...done.NOTE: Running task 5 of 6 (glued:do_x)',
  // A task start that holds the summary is the summary; one that holds only its name is a start.
  'NOTE: Running task 7 of 8 (x Sstate summary: Wanted 1 Local 1 Mirrors 0 Missed 0 Current 0 (100% match, 100% complete))',
  'NOTE: Running task 7 of 8 (Sstate summary: none)',
  'NOTE: recipe zlib-1.3.1-r0: task do_compile: Started',
  'done.NOTE: recipe zlib-1.3.1-r0: task do_compile: Succeeded',
  'NOTE: recipe\tzlib: task do_compile: Started',
  'NOTE: Setscene tasks completed',
  'NOTE: Setscene tasks completed ',
  "WARNING: Setscene task (/l/a.bb:do_p_setscene) failed with exit code '1' - real task will be run instead",
  'WARNING: zlib-1.3.1-r0 do_package_qa: QA Issue: no GNU_HASH [ldflags]',
  'ERROR: zlib-1.3.1-r0 do_compile: OSError: [Errno 28] No space left on device',
  'ERROR: Logfile of failure stored in: /b/tmp/work/x/zlib/1.3.1/temp/log.do_compile.123 ',
  "ERROR: Task (/l/zlib_1.3.1.bb:do_compile) failed with exit code '1'",
  '| DEBUG: Executing shell function do_compile',
  'checking whether ERROR: is defined... no',
  'DEBUG: d',
  'CRITICAL: c',
  'héllo wörld NOTE: ünïcode',
  Buffer.from([0x4e, 0x4f, 0x54, 0x45, 0x3a, 0x20, 0xe2, 0x82]), // 'NOTE: ' and a torn euro sign
  Buffer.from([0xff, 0xc3, 0x28]),
  `NOTE: Running task 1 of 2 (a long one: ${'y'.repeat(300)})`,
  'z'.repeat(400),
  "NOTE: Tasks Summary: Attempted 30 tasks of which 25 didn't need to be rerun and 1 failed.",
  "NOTE: Tasks Summary: Attempted 3 tasks of which 2 didn't need to be rerun and all succeeded.",
  'NOTE: Tasks Summary: junk',
];

/**
 * A log from LINES in a scrambled order with the block at the start and in the middle,
 * some lines ending in \r\n, no newline at the end.
 */
function trickyLog(lines = LINES): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < 400; i++) {
    if (i === 0 || i === 200) for (const line of BLOCK) parts.push(Buffer.from(`${line}\n`));
    // 11, a prime that divides neither count of lines: every line comes, in a scrambled order.
    const line = lines[(i * 11) % lines.length]!;
    parts.push(typeof line === 'string' ? Buffer.from(line) : line);
    parts.push(Buffer.from(i % 13 === 0 ? '\r\n' : '\n'));
  }
  parts.push(Buffer.from('NOTE: recipe last-1.0-r0: task do_build: Succeeded'));
  return Buffer.concat(parts);
}

function oracle(bytes: Buffer, maxLineBytes: number): { events: ConsoleEvent[]; skipped: number } {
  const lines: string[] = [];
  let skipped = 0;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    const next = end < 0 ? bytes.length : end + 1;
    if (end < 0) end = bytes.length;
    if (end - start <= maxLineBytes) {
      const stop = end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
      lines.push(bytes.toString('utf8', start, stop));
    } else skipped++;
    start = next;
  }
  return { events: parseConsoleLog(lines), skipped };
}

const KINDS: ConsoleEventKind[] = [
  'task-run',
  'recipe-task',
  'setscene-completed',
  'sstate-summary',
  'tasks-summary',
  'failure-logfile',
  'task-failed',
  'setscene-failed',
  'build-config',
  'layer',
  'message',
  'text',
];

describe('readConsoleLog with kinds', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rambake-console-kinds-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const tricky = join(dir, 'tricky.log');
  writeFileSync(tricky, trickyLog());

  const read = async (file: string, options: Parameters<typeof readConsoleLog>[2]) => {
    const events: ConsoleEvent[] = [];
    const result = await readConsoleLog(file, (e) => events.push(e), options);
    return { events, result };
  };

  // Past the reader's 64 KiB decode windows, with a line longer than a window among them, and
  // all ASCII: a window that is not is read line by line, never in place.
  const big = join(dir, 'big.log');
  const ascii = trickyLog(LINES.filter((l): l is string => typeof l === 'string' && isAscii(Buffer.from(l))));
  const tricky4 = Buffer.concat([ascii, Buffer.from('\n'), ascii, Buffer.from('\n')]);
  writeFileSync(big, Buffer.concat([tricky4, Buffer.from(`${'w'.repeat(100_000)}\n`), tricky4, tricky4]));

  it('an ASCII log of several decode windows: every read equals the oracle', async () => {
    const bytes = readFileSync(big);
    expect(bytes.length).toBeGreaterThan(4 * 64 * 1024);
    expect(isAscii(bytes)).toBe(true);
    const { events: all } = oracle(bytes, 1024 * 1024);
    for (const chunkBytes of [undefined, 100_000, 64]) {
      const sizes = chunkBytes === undefined ? {} : { chunkBytes };
      expect((await read(big, sizes)).events).toEqual(all);
      for (const kinds of [
        ['task-run'],
        ['task-run', 'recipe-task', 'sstate-summary'],
      ] as ConsoleEventKind[][])
        expect((await read(big, { ...sizes, kinds })).events, `${kinds} in ${chunkBytes}`).toEqual(
          all.filter((e) => kinds.includes(e.kind)),
        );
    }
  });

  it('the tricky log has every kind in it (else the comparisons below prove less)', () => {
    const kinds = new Set(oracle(readFileSync(tricky), 350).events.map((e) => e.kind));
    expect([...kinds].sort()).toEqual([...KINDS].sort());
  });

  for (const [name, file] of [
    ['the failed build', fixture],
    ['the tricky log', tricky],
  ] as const) {
    for (const maxLineBytes of [350, 1024 * 1024]) {
      it(`${name}, lines over ${maxLineBytes} bytes skipped: every read equals the oracle`, async () => {
        const bytes = readFileSync(file);
        const { events: all, skipped } = oracle(bytes, maxLineBytes);
        const lines = bytes.toString('latin1').split('\n').length;
        for (const chunkBytes of [5, 64, undefined]) {
          const sizes = chunkBytes === undefined ? { maxLineBytes } : { maxLineBytes, chunkBytes };
          const full = await read(file, sizes);
          expect(full.events).toEqual(all);
          for (const kinds of [
            ...KINDS.map((k) => [k]),
            ['sstate-summary', 'setscene-failed', 'tasks-summary'],
          ]) {
            const some = await read(file, { ...sizes, kinds: kinds as ConsoleEventKind[] });
            expect(some.events, `${kinds.join(',')} in chunks of ${chunkBytes}`).toEqual(
              all.filter((e) => kinds.includes(e.kind)),
            );
            expect(some.result).toEqual(full.result);
          }
          expect(full.result.bytes).toBe(bytes.length);
          // A final line without a newline is a line; a final newline starts none.
          expect(full.result.lines).toBe(bytes.at(-1) === 0x0a ? lines - 1 : lines);
          expect(full.result.skippedLongLines).toBe(skipped);
          if (name === 'the tricky log' && maxLineBytes === 350) expect(skipped).toBeGreaterThan(0);
        }
      });
    }
  }
});
