import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  buildNameToEpochMs,
  listBuilds,
  parseBuildStats,
  parseBuildstatsBytes,
  parseBuildstatsTask,
  parseMonitorDisk,
  readBuildstatsBuild,
} from '../../src/bitbake/buildstats.js';

const fixtures = fileURLToPath(new URL('../fixtures/records/', import.meta.url));
const build = join(fixtures, 'buildstats-setscene-running-failed-truncated', '20251130142627');
const read = (...p: string[]) => readFileSync(join(build, ...p), 'utf8');

describe('parseBuildstatsTask', () => {
  it('reads a finished task, trailing blanks and all', () => {
    const text = read('zlib-1.3.1-r0', 'do_compile');
    expect(text).toContain('Started: 1764512790.50 \n');
    const task = parseBuildstatsTask(text, { pf: 'zlib-1.3.1-r0', taskFile: 'do_compile' });
    expect(task).toEqual({
      pf: 'zlib-1.3.1-r0',
      task: 'do_compile',
      setscene: false,
      started: 1764512790.5,
      ended: 1764512802.84,
      elapsed: 12.34,
      status: 'PASSED',
      utime: 3,
      stime: 1,
      cutime: 1021,
      cstime: 187,
      // Only the keys rambake reads are kept; the other IO and rusage lines are checked.
      wchar: 10294831,
      writeBytes: 10964992,
      ruUtime: 0.031245,
      ruStime: 0.011022,
      ruMaxrss: 51200,
      childRuUtime: 10.214,
      childRuStime: 1.873,
      childRuMaxrss: 183212,
      other: {},
      complete: true,
      skipped: [],
    });
  });

  it('names a setscene task from its third line even without a file name', () => {
    const task = parseBuildstatsTask(read('zlib-1.3.1-r0', 'do_package_setscene'));
    expect([task.pf, task.task, task.setscene, task.status, task.elapsed]).toEqual([
      'zlib-1.3.1-r0',
      'do_package',
      true,
      'PASSED',
      0.42,
    ]);
  });

  it('sees a running task (two lines) as incomplete, named by its path', () => {
    const task = parseBuildstatsTask(read('zlib-1.3.1-r0', 'do_install'), {
      pf: 'zlib-1.3.1-r0',
      taskFile: 'do_install',
    });
    expect(task).toEqual({
      pf: 'zlib-1.3.1-r0',
      task: 'do_install',
      setscene: false,
      started: 1764512803.1,
      other: {},
      complete: false,
      skipped: [],
    });
  });

  it('reads bytes as it reads text, numbers as Number() does', () => {
    const text = read('zlib-1.3.1-r0', 'do_compile');
    const where = { pf: 'zlib-1.3.1-r0', taskFile: 'do_compile' };
    const padded = Buffer.concat([Buffer.from(text), Buffer.from('Ended: 9 \n')]);
    expect(parseBuildstatsBytes(padded, text.length, where)).toEqual(parseBuildstatsTask(text, where));
    const odd =
      'Started: 1764512802.84 \nElapsed time: .5 seconds\nutime: 1e3\nstime: 0x10\ncutime: -1\ncstime: 12345678901234567\nEnded: 1. \n';
    const task = parseBuildstatsTask(odd);
    expect([
      task.started,
      task.elapsed,
      task.utime,
      task.stime,
      task.cutime,
      task.cstime,
      task.ended,
    ]).toEqual([Number('1764512802.84'), 0.5, 1000, 16, -1, Number('12345678901234567'), 1]);
    for (const bad of [
      'Started: 12a',
      'Started: 1..2',
      'utime: ',
      'IO wchar: x',
      'Status: OK',
      'Elapsed time: seconds',
    ])
      expect(parseBuildstatsTask(bad).skipped, bad).toEqual([bad]);
  });

  it('reads a failed task', () => {
    const task = parseBuildstatsTask(read('busybox-1.37.0-r0', 'do_compile'));
    expect([task.status, task.complete, task.ended, task.cutime]).toEqual([
      'FAILED',
      true,
      1764512825.1,
      2402,
    ]);
  });

  it('keeps unknown keys, lists garbage and a torn last line, and stays incomplete', () => {
    const task = parseBuildstatsTask(read('busybox-1.37.0-r0', 'do_configure'));
    expect(task.other).toEqual({ 'Future key': 'some value' });
    expect(task.skipped).toEqual(['@@@ not a buildstats line @@@', 'Child rusage ru_ut']);
    expect([task.utime, task.elapsed, task.complete, task.status]).toEqual([1, 3.8, false, undefined]);
  });
});

describe('build_stats and monitor_disk.log', () => {
  it('parses the build summary of a failed build', () => {
    expect(parseBuildStats(read('build_stats'))).toEqual({
      hostInfo: 'Linux buildhost 6.8.0-49-generic #49-Ubuntu SMP PREEMPT_DYNAMIC x86_64',
      started: 1764512787.12,
      rootfsSizes: [],
      failedAt: [{ pf: 'busybox-1.37.0-r0', task: 'do_compile' }],
      elapsed: 341.77,
      cpuPercent: 611.4,
      skipped: [],
    });
  });

  it('keeps rootfs sizes as written', () => {
    const stats = parseBuildStats(
      'Uncompressed Rootfs size: 412M\t/b/tmp/work/x/core-image-minimal/1.0/rootfs\n',
    );
    expect(stats.rootfsSizes).toEqual(['412M\t/b/tmp/work/x/core-image-minimal/1.0/rootfs']);
  });

  it('groups disk samples under their time line', () => {
    expect(parseMonitorDisk(read('monitor_disk.log'))).toEqual([
      { time: 1764512790, used: { 'tmpfs-rambake': 1073741824, '/dev/sda2': 52428800000 } },
      { time: 1764512800, used: { 'tmpfs-rambake': 2147483648, '/dev/sda2': 52428900000 } },
    ]);
  });
});

describe('readBuildstatsBuild', () => {
  it('reads every task file of a build, ordered by start time, running tasks included', async () => {
    const seen: string[] = [];
    const result = await readBuildstatsBuild(build, { onTask: (t) => seen.push(`${t.pf}/${t.task}`) });
    expect(result.name).toBe('20251130142627');
    expect(result.buildStats?.failedAt).toEqual([{ pf: 'busybox-1.37.0-r0', task: 'do_compile' }]);
    expect(result.monitorDisk).toHaveLength(2);
    expect(result.unreadable).toEqual([]);
    expect(result.tasks.map((t) => [t.pf, t.task, t.setscene, t.complete])).toEqual([
      ['zlib-1.3.1-r0', 'do_package', true, true],
      ['zlib-1.3.1-r0', 'do_compile', false, true],
      ['busybox-1.37.0-r0', 'do_configure', false, false],
      ['busybox-1.37.0-r0', 'do_compile', false, true],
      ['zlib-1.3.1-r0', 'do_install', false, false],
    ]);
    expect(seen).toHaveLength(5);
  });
});

describe('listBuilds', () => {
  it('lists BUILDNAME folders oldest first and ignores others', async () => {
    const base = join(fixtures, 'buildstats-base-list');
    expect(await listBuilds(base)).toEqual([
      {
        name: '20251129080000',
        dir: join(base, '20251129080000'),
        startedAt: Date.UTC(2025, 10, 29, 8, 0, 0),
      },
      {
        name: '20251130090000',
        dir: join(base, '20251130090000'),
        startedAt: Date.UTC(2025, 10, 30, 9, 0, 0),
      },
      {
        name: '20251130142627',
        dir: join(base, '20251130142627'),
        startedAt: Date.UTC(2025, 10, 30, 14, 26, 27),
      },
    ]);
    expect(await listBuilds(join(fixtures, 'no-such-folder'))).toEqual([]);
    expect(buildNameToEpochMs('20251130142627')).toBe(1764512787000);
  });
});
