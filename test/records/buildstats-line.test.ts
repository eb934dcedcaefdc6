// The task-file parser's fast path (buildstats-line.ts) against its generic path, on files made
// at random from BitBake's lines and their near misses. A line that starts with a blank never
// takes the fast path (it wants the key at the line's start) and is trimmed by the generic one,
// so each file is parsed twice: as made, and with a blank before every line.

import { describe, expect, it } from 'vitest';
import { fastLine, pfLine } from '../../src/bitbake/buildstats-line.js';
import { type BuildstatsTask, parseBuildstatsTask } from '../../src/bitbake/buildstats-task.js';
import { Random } from '../fuzz/random.js';

const KEYS = [
  'Started',
  'Ended',
  'Elapsed time',
  'Status',
  'utime',
  'stime',
  'cutime',
  'cstime',
  'cxtime',
  'Event',
  'IO wchar',
  'IO write_bytes',
  'IO rchar',
  'IO ',
  'IO a:b',
  'IOwchar',
  'rusage ru_utime',
  'rusage ru_stime',
  'rusage ru_maxrss',
  'rusage ru_nvcsw',
  'rusage',
  'Child rusage ru_maxrss',
  'Child rusage ru_utime',
  'Child rusage ',
  'zlib-1.3.1-r0',
];
const SEPARATORS = [': ', ':', ':  ', ' : ', ':\t', ''];
const VALUES = [
  '4',
  '0',
  '0.004000',
  '1764512346.97',
  '.5',
  '5.',
  '1..2',
  '1e3',
  '-1',
  '0x10',
  '123456789012345',
  '1234567890123456',
  '12345678901.2345678',
  '',
  'x',
  '7 seconds',
  '7seconds',
  '7  seconds',
  '7 seconds x',
  'seconds',
  'PASSED',
  'FAILED',
  'PASSED x',
  'PASSEDx',
  'TaskStarted',
  'do_compile',
  'do_package_setscene',
];
const ENDS = ['', ' ', '  ', '\t', '\r', ' x', '\v'];

function makeFile(random: Random): string {
  const lines: string[] = [];
  const count = random.int(1, 40);
  for (let i = 0; i < count; i++) {
    // Half the lines in BitBake's form, half with each piece at random.
    const form = random.chance(0.5);
    const value = form
      ? random.pick(['4', '0.004000', '1764512346.97', '1764512346.970000001', '7 seconds', 'PASSED'])
      : random.pick(VALUES);
    lines.push(
      random.pick(KEYS) +
        (form ? ': ' : random.pick(SEPARATORS)) +
        value +
        random.pick(form ? ['', ' '] : ENDS),
    );
  }
  // A file torn by a build still writing it has no final newline.
  return lines.join('\n') + (random.chance(0.8) ? '\n' : '');
}

const padded = (text: string) =>
  text
    .split('\n')
    .map((line) => (line === '' ? line : ` ${line}`))
    .join('\n');

/** The record with `skipped` as the generic path keeps it from the padded text (a leading blank). */
const asPadded = (task: BuildstatsTask): BuildstatsTask => ({
  ...task,
  skipped: task.skipped.map((s) => ` ${s}`),
});

describe('the fast path of the task-file parser', () => {
  it('reads the lines BitBake writes, and leaves the others to the generic path', () => {
    const task = parseBuildstatsTask('');
    const read = (line: string) => fastLine(task, Buffer.from(line), 0, line.length);
    expect(read('Started: 1764512346.97 \nEnded: 1\n')).toBe(24);
    expect(read('Elapsed time: 0.57 seconds')).toBe(26);
    expect(read('Child rusage ru_maxrss: 1572\n')).toBe(29);
    expect(read('IO write_bytes: 190056\n')).toBe(23);
    expect(read('Status: FAILED \n')).toBe(16);
    expect(task).toMatchObject({ started: 1764512346.97, elapsed: 0.57, status: 'FAILED', complete: true });
    expect([task.childRuMaxrss, task.writeBytes, task.ruMaxrss, task.wchar]).toEqual([
      1572,
      190056,
      undefined,
      undefined,
    ]);
    expect(read('Event: TaskStarted \n')).toBe(20);
    for (const line of [
      'Event: ',
      'Event:  \t\nx',
      'zlib-1.3.1-r0: do_compile',
      'Started: 5.',
      'utime:  4',
      ' utime: 4',
    ])
      expect(read(line), line).toBe(-1);
  });

  it('reads the `<PF>: <task>` line that names the folder and file read, and only that', () => {
    const read = (line: string, pf = 'zlib-1.3.1-r0', taskFile = 'do_compile') =>
      pfLine(Buffer.from(line), 0, Buffer.byteLength(line), pf, taskFile);
    expect(read('zlib-1.3.1-r0: do_compile\nStarted: 1\n')).toBe(26);
    expect(read('zlib-1.3.1-r0: do_compile \t')).toBe(27);
    for (const [line, pf, taskFile] of [
      ['zlib-1.3.1-r0: do_compile x', undefined, undefined],
      ['zlib-1.3.1-r0: do_compil', undefined, undefined],
      ['zlib-1.3.1-r0:do_compile', undefined, undefined],
      [' zlib-1.3.1-r0: do_compile', undefined, undefined],
      ['zlib-1.3.1-r1: do_compile', undefined, undefined],
      // Names the generic path reads its own way: a blank, a letter beyond ASCII, no do_ prefix.
      ['bash 5.2-r0: do_compile', 'bash 5.2-r0', undefined],
      ['bäsh-5.2-r0: do_compile', 'bäsh-5.2-r0', undefined],
      ['zlib-1.3.1-r0: compile', undefined, 'compile'],
    ] as const)
      expect(read(line, pf, taskFile), line).toBe(-1);
  });

  it('reads 5,000 generated files as the generic path does', () => {
    const random = new Random(20261205);
    const where = { pf: 'zlib-1.3.1-r0', taskFile: 'do_compile' };
    let read = 0;
    for (let i = 0; i < 5000; i++) {
      const text = makeFile(random);
      const task = parseBuildstatsTask(text, where);
      expect(asPadded(task), JSON.stringify(text)).toEqual(parseBuildstatsTask(padded(text), where));
      const numbers = [
        task.started,
        task.ended,
        task.elapsed,
        task.utime,
        task.stime,
        task.cutime,
        task.cstime,
        task.wchar,
        task.writeBytes,
        task.ruUtime,
        task.ruStime,
        task.ruMaxrss,
        task.childRuUtime,
        task.childRuStime,
        task.childRuMaxrss,
      ];
      read += numbers.filter((n) => n !== undefined).length;
    }
    // Enough files with values read for the agreement to mean something.
    expect(read).toBeGreaterThan(10000);
  });
});
