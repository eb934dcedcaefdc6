// Partial results stay true: `rambake run` checks every timeline write. With the timeline on a
// file system that fills up during the build (a real 4 KiB tmpfs, 1 KiB left), the command's success is not
// the run's: exit 1, one line saying the timeline is incomplete and why, and the JSON summary
// says so too. Root only (it mounts a tmpfs).

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyExample, runRambake } from '../helpers/exec.js';

const isRoot = process.getuid?.() === 0;
const disposers: (() => void)[] = [];
afterEach(() => {
  for (const d of disposers.splice(0).reverse()) d();
});

function buildWithTinyDisk(): { topdir: string; timeline: string } {
  const ex = copyExample();
  disposers.push(ex.cleanup);
  const small = join(ex.root, 'small');
  mkdirSync(small);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4k', 'rambake-test-small', small]);
  disposers.push(() => execFileSync('umount', [small]));
  // 1 KiB left: the header may fit, the lines after it do not.
  writeFileSync(join(small, 'fill'), Buffer.alloc(3 * 1024));
  return { topdir: ex.topdir, timeline: join(small, 'run.jsonl') };
}

const run = (topdir: string, timeline: string, command: string[], json = false) =>
  runRambake([
    '-B',
    topdir,
    ...(json ? ['--json'] : []),
    'run',
    '--ignore-doctor',
    '--interval',
    '0.05',
    '--timeline',
    timeline,
    '--',
    ...command,
  ]);

describe.skipIf(!isRoot)('run: a timeline that cannot be written whole', () => {
  it('a command that succeeds: exit 1 and one line naming the timeline and the reason', async () => {
    const { topdir, timeline } = buildWithTinyDisk();
    const r = await run(topdir, timeline, ['sh', '-c', 'sleep 2']);
    expect(r.exitCode, r.stderr).toBe(1);
    const line = r.stderr.split('\n').find((l) => l.includes('the timeline is incomplete'));
    expect(line).toMatch(
      new RegExp(`^rambake: ${timeline}: the timeline is incomplete \\(ENOSPC.*; \\d+ lines lost\\)`),
    );
  }, 60_000);

  it('--json: the summary says so; a failing command keeps its own exit code', async () => {
    const { topdir, timeline } = buildWithTinyDisk();
    const r = await run(topdir, timeline, ['sh', '-c', 'sleep 2; exit 3'], true);
    expect(r.exitCode, r.stderr).toBe(3);
    const summary = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
    expect(summary.timelineIncomplete.reason).toMatch(/ENOSPC/);
    expect(summary.timelineIncomplete.linesLost).toBeGreaterThan(0);
  }, 60_000);

  it('a timeline on a disk with room: no such line, exit 0', async () => {
    const ex = copyExample();
    disposers.push(ex.cleanup);
    const r = await run(ex.topdir, join(ex.root, 'run.jsonl'), ['sh', '-c', 'sleep 0.5']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('incomplete');
  }, 60_000);
});
