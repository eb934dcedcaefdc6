// readTaskRun, the task-start line read by hand, against the regular expression it replaced,
// on lines made at random from the pieces of the form and its near misses: read as a whole
// line, and in place inside an ASCII chunk (the bulk reader's way) with the tid copied.

import { isAscii } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { readTaskRun } from '../../src/bitbake/console-task-run.js';

const RUNNING = /^Running (?:(setscene|noexec) )?task (\d+) of (\d+) \((.+)\)$/;

function expected(line: string, lineNo: number) {
  const m = RUNNING.exec(line);
  if (!m) return undefined;
  const mode = m[1] ?? 'normal';
  return { kind: 'task-run', mode, index: Number(m[2]), total: Number(m[3]), tid: m[4], lineNo };
}

const PIECES = [
  '',
  'Running ',
  'Running',
  'setscene ',
  'noexec ',
  'setscene',
  'task ',
  'task',
  ' of ',
  ' of',
  '0',
  '7',
  '42',
  '9007199254740993',
  '123456789012345678901234',
  ' (',
  '(',
  ')',
  ') ',
  ' ',
  'a',
  '/l/zlib_1.3.1.bb:do_compile',
  'mc:arm:virtual:native:',
  '\r',
  '\u2028',
  '\u2029',
  'é',
  '\t',
];

// A small seeded generator: the same lines every run, so a failure names a line to look at.
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

function makeLine(next: () => number): string {
  // Half the lines follow the form with one piece changed, half are pieces at random.
  if (next() < 0.5) {
    const parts = [
      'Running ',
      ['', 'setscene ', 'noexec '][Math.floor(next() * 3)]!,
      'task ',
      '12',
      ' of ',
      '300',
      ' (',
      '/l/x.bb:do_y',
      ')',
    ];
    parts[Math.floor(next() * parts.length)] = PIECES[Math.floor(next() * PIECES.length)]!;
    return parts.join('');
  }
  let line = '';
  const n = 1 + Math.floor(next() * 12);
  for (let i = 0; i < n; i++) line += PIECES[Math.floor(next() * PIECES.length)]!;
  return line;
}

const whole = (line: string, lineNo = 1) => readTaskRun(line, 0, line.length, lineNo);

describe('readTaskRun', () => {
  it('reads the three forms', () => {
    expect(whole('Running setscene task 11 of 12 (/l/z.bb:do_package_setscene)', 3)).toEqual({
      kind: 'task-run',
      mode: 'setscene',
      index: 11,
      total: 12,
      tid: '/l/z.bb:do_package_setscene',
      lineNo: 3,
    });
    expect(whole('Running noexec task 1 of 2 (x:do_build)')?.mode).toBe('noexec');
    expect(whole('Running task 1 of 2 (a)b)')?.tid).toBe('a)b');
  });

  it('refuses the near misses', () => {
    for (const line of [
      'Running task 1 of 2 ()',
      'Running task 1 of 2 (x) ',
      'Running task 1 of 2(x)',
      'Running task  1 of 2 (x)',
      'Running task 1 of  (x)',
      'Running setscenetask 1 of 2 (x)',
      'Running task 1 of 2 (a\rb)',
      'Running task 1 of 2 (a\u2028b)',
      'Running  task 1 of 2 (x)',
    ])
      expect(whole(line), JSON.stringify(line)).toBeUndefined();
  });

  it('agrees with the regular expression on 20,000 generated lines, whole and in a chunk', () => {
    const next = random(20261205);
    let matched = 0;
    for (let i = 0; i < 20000; i++) {
      const line = makeLine(next);
      const want = expected(line, i + 1);
      expect(readTaskRun(line, 0, line.length, i + 1), JSON.stringify(line)).toEqual(want);
      if (want) matched++;
      // In place: the line between others in an ASCII chunk decoded as latin1.
      if (isAscii(Buffer.from(line))) {
        const bytes = Buffer.from(`NOTE: Running task 1 of 2 (before)\nNOTE: ${line}\nafter (x)\n`, 'latin1');
        const text = bytes.toString('latin1');
        const from = text.indexOf('\n') + 1 + 'NOTE: '.length;
        expect(readTaskRun(text, from, from + line.length, i + 1, bytes), JSON.stringify(line)).toEqual(want);
      }
    }
    // Enough of both answers for the agreement to mean something.
    expect(matched).toBeGreaterThan(1000);
    expect(matched).toBeLessThan(18000);
  });
});
