// A timeline line is read in bounded memory: a line longer than the cap (a file of no newlines,
// 1 GB of it) is skipped without being held and reported like a torn line, where a line reader
// gathered it into one string and crashed report and plan (RangeError: Invalid string length).

import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTimeline, TIMELINE_MAX_LINE_BYTES } from '../../src/timeline/timeline-file.js';
import { copyExample, runRambake, tempDir } from '../helpers/exec.js';
import { FIXTURES } from '../report/helpers.js';

const disposers: (() => void)[] = [];
afterEach(() => {
  for (const d of disposers.splice(0)) d();
});
const scratch = () => {
  const dir = tempDir('rambake-long-line-');
  disposers.push(dir.cleanup);
  return dir.path;
};

const RUN = join(FIXTURES, 'tmpfs-run-kernel-peak', 'rambake', 'runs', '20251130-142600.jsonl');

describe('readTimeline: an over-long line', () => {
  it('is skipped with its line number; the lines around it are read', async () => {
    const lines = readFileSync(RUN, 'utf8').trimEnd().split('\n');
    const file = join(scratch(), 'run.jsonl');
    // Line 3 of 4 KiB under a 2 KiB cap (the fixture's lines are shorter); one more at the very
    // end, with no newline.
    const long = `{"type":"sample","pad":"${'x'.repeat(4096)}"}`;
    writeFileSync(file, [...lines.slice(0, 2), long, ...lines.slice(2), long].join('\n'));
    const whole = await readTimeline(RUN);
    const t = await readTimeline(file, { maxLineBytes: 2048 });
    expect(t.skipped).toEqual([
      { lineNo: 3, text: '', why: 'a line longer than 2048 bytes' },
      { lineNo: lines.length + 2, text: '', why: 'a line longer than 2048 bytes' },
    ]);
    expect(t.samples).toEqual(whole.samples);
    expect(t.events).toEqual(whole.events);
    expect(t.summary).toEqual(whole.summary);
  });

  it('the default cap is 16 MiB', () => expect(TIMELINE_MAX_LINE_BYTES).toBe(16 * 2 ** 20));
});

describe('the built CLI on a 1 GiB timeline with no newline (sparse: no disk used)', () => {
  it('report FILE: one line, exit 2, no crash', async () => {
    const file = join(scratch(), 'run.jsonl');
    writeFileSync(file, '');
    truncateSync(file, 2 ** 30);
    const ex = copyExample();
    disposers.push(ex.cleanup);
    const r = await runRambake(['report', '-B', ex.topdir, file], { timeout: 60_000 });
    expect(r.stderr.trimEnd()).toBe(
      `rambake: ${file}:1: not a rambake timeline (a line longer than 16 MiB): ""`,
    );
    expect(r.exitCode).toBe(2);
  });

  it('plan with it among the recorded runs: no crash, the run is passed over', async () => {
    const ex = copyExample();
    disposers.push(ex.cleanup);
    const runs = join(ex.topdir, 'rambake', 'runs');
    mkdirSync(runs, { recursive: true });
    const file = join(runs, '20260101-000000.jsonl');
    writeFileSync(file, '');
    truncateSync(file, 2 ** 30);
    const r = await runRambake(['plan', '-B', ex.topdir, '--json'], { timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect([0, 1]).toContain(r.exitCode);
    expect(JSON.parse(r.stdout).schemaVersion).toBe(1);
  });
});
