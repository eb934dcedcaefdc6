import { describe, expect, it } from 'vitest';
import { confLines, schedulerOverridden } from '../../src/plan/conf-lines.js';
import {
  diskmonValue,
  formatDiskmonInodes,
  formatDiskmonSize,
  parseDiskmonDirs,
  parseDiskmonSize,
  tmpfsThresholds,
} from '../../src/plan/diskmon.js';
import { GiB, MiB, makeBuildDir } from './fixture.js';

describe('BB_DISKMON_DIRS values', () => {
  it('writes sizes in the largest exact G/M/K unit, and bare numbers as bytes', () => {
    expect(formatDiskmonSize(GiB)).toBe('1G');
    expect(formatDiskmonSize(100 * MiB)).toBe('100M');
    expect(formatDiskmonSize(1536 * MiB)).toBe('1536M');
    expect(formatDiskmonSize(4096)).toBe('4K');
    // Not a whole KiB: a bare number, which monitordisk reads as bytes (not KB).
    expect(formatDiskmonSize(1500)).toBe('1500');
    expect(formatDiskmonSize(0)).toBe('0');
  });

  it('counts inodes with the same suffixes: 100K is 102400', () => {
    expect(formatDiskmonInodes(102_400)).toBe('100K');
    expect(formatDiskmonInodes(1024)).toBe('1K');
    expect(formatDiskmonInodes(1000)).toBe('1000');
  });

  it('fits the tmpfs thresholds to its size and inodes: the table in diskmon.ts', () => {
    const K = 1024;
    const row = (size: number, inodes: number) => {
      const t = tmpfsThresholds(size, inodes);
      return [
        `${formatDiskmonSize(t.stopSpace)},${formatDiskmonInodes(t.stopInodes)}`,
        `${formatDiskmonSize(t.haltSpace)},${formatDiskmonInodes(t.haltInodes)}`,
      ];
    };
    expect(row(512 * MiB, 400 * K)).toEqual(['51M,40K', '10M,4K']);
    expect(row(GiB, 400 * K)).toEqual(['102M,40K', '20M,4K']);
    expect(row(8 * GiB, 512 * K)).toEqual(['819M,51K', '100M,5K']);
    expect(row(14 * GiB, 896 * K)).toEqual(['1G,89K', '143M,8K']);
    expect(row(64 * GiB, 4096 * K)).toEqual(['3276M,204K', '655M,40K']);
  });

  it('never stops before 90% nor halts before 98% of the tmpfs is used, nor stops later than 95%', () => {
    for (let size = 64 * MiB; size <= 512 * GiB; size = Math.round(size * 1.37)) {
      const inodes = Math.max(400 * 1024, Math.ceil((size / GiB) * 65_536));
      const t = tmpfsThresholds(size, inodes);
      expect(t.stopSpace, `${size}`).toBeLessThanOrEqual(size * 0.1);
      expect(t.haltSpace, `${size}`).toBeLessThanOrEqual(size * 0.02);
      expect(t.stopInodes).toBeLessThanOrEqual(inodes * 0.1);
      expect(t.haltInodes).toBeLessThanOrEqual(inodes * 0.02);
      expect(t.haltSpace).toBeLessThan(t.stopSpace);
      expect(t.haltInodes).toBeLessThan(t.stopInodes);
      // At least 5% (rounded down to a whole MiB) is kept for tasks already running.
      expect(t.stopSpace).toBeGreaterThan(size * 0.05 - MiB);
    }
  });

  it('writes no inode threshold for a tmpfs with unlimited inodes (BitBake drops it anyway)', () => {
    expect(diskmonValue('/r', GiB, 0).split(' ').slice(0, 2)).toEqual(['STOPTASKS,/r,102M', 'HALT,/r,20M']);
    expect(parseDiskmonDirs('STOPTASKS,/r,102M').entries[0]).toEqual({
      text: 'STOPTASKS,/r,102M',
      action: 'STOPTASKS',
      dir: '/r',
      minSpace: 102 * MiB,
    });
  });

  it('keeps DL_DIR and SSTATE_DIR at Poky’s thresholds, space and inodes both set', () => {
    const value = diskmonValue('/b/tmp-ram', 20 * GiB, 1_310_720);
    expect(value).toBe(
      'STOPTASKS,/b/tmp-ram,1G,100K HALT,/b/tmp-ram,204M,12K ' +
        'STOPTASKS,${DL_DIR},1G,100K HALT,${DL_DIR},100M,1K STOPTASKS,${SSTATE_DIR},1G,100K HALT,${SSTATE_DIR},100M,1K',
    );
    for (const entry of value.split(' ')) expect(entry.split(',')).toHaveLength(4);
  });
});

describe('reading BB_DISKMON_DIRS as BitBake does', () => {
  it('reads back every value rambake writes, to the byte', () => {
    const t = tmpfsThresholds(GiB, 409_600);
    const parsed = parseDiskmonDirs(diskmonValue('/b/ram', GiB, 409_600));
    expect(parsed.error).toBeUndefined();
    expect(parsed.entries.slice(0, 2)).toMatchObject([
      { action: 'STOPTASKS', dir: '/b/ram', minSpace: t.stopSpace, minInodes: t.stopInodes },
      { action: 'HALT', dir: '/b/ram', minSpace: t.haltSpace, minInodes: t.haltInodes },
    ]);
  });

  it('takes G/M/K in any case, bare bytes, an empty threshold, ABORT as HALT, and blanks between entries', () => {
    expect(parseDiskmonSize('1g')).toBe(GiB);
    expect(parseDiskmonSize('100K')).toBe(102_400);
    expect(parseDiskmonSize('1500')).toBe(1500);
    const parsed = parseDiskmonDirs('  ABORT,/t,,1K \n\tWARN,/d,5M  ');
    expect(parsed).toEqual({
      entries: [
        { text: 'ABORT,/t,,1K', action: 'HALT', dir: '/t', minInodes: 1024 },
        { text: 'WARN,/d,5M', action: 'WARN', dir: '/d', minSpace: 5 * MiB },
      ],
    });
  });

  it('refuses what BitBake refuses (and then runs with no disk monitor at all)', () => {
    for (const bad of ['0', '1.5G', '01M', '-1M', '1T', 'G'])
      expect(parseDiskmonSize(bad), bad).toBeUndefined();
    expect(parseDiskmonDirs('STOPTASKS,/t,0,100K').error).toMatch(/disk space 0/);
    expect(parseDiskmonDirs('STOPTASKS,/t,,').error).toMatch(/neither/);
    expect(parseDiskmonDirs('STOP,/t,1G').error).toMatch(/unknown action STOP/);
    expect(parseDiskmonDirs('STOPTASKS,/t').error).toMatch(/not ACTION,DIR/);
    expect(parseDiskmonDirs('HALT,/t,1G,1.5K').error).toMatch(/inode count 1.5K/);
  });
});

describe('managed conf lines', () => {
  const input = { scope: 'tmpdir' as const, tmpfsPath: '/b/tmp-ram', diskmon: 'X', giants: [] };

  it('sets TMPDIR with a plain =, relocates what must outlive the tmpfs, forcevariable for buildstats', () => {
    expect(confLines(makeBuildDir(), input)).toEqual([
      'TMPDIR = "/b/tmp-ram"',
      'INHERIT += "rm_work"',
      'DEPLOY_DIR = "${TOPDIR}/rambake-keep/deploy"',
      'BUILDSTATS_BASE:forcevariable = "${TOPDIR}/rambake-keep/buildstats/"',
      'BB_CONSOLELOG = "${TOPDIR}/rambake-keep/log/cooker/${MACHINE}/${DATETIME}.log"',
      'BB_DEFAULT_EVENTLOG = "${TOPDIR}/rambake-keep/log/eventlog/${DATETIME}.json"',
      'BB_DISKMON_DIRS = "X"',
    ]);
  });

  it('never writes ?= for TMPDIR nor touches BASE_WORKDIR, whatever the input', () => {
    const lines = confLines(makeBuildDir(), {
      ...input,
      threads: { bbNumberThreads: 4, parallelMake: '-j 4' },
      giants: ['chromium-x11', 'webkitgtk'],
    });
    expect(lines.join('\n')).not.toMatch(/\?=/);
    expect(lines.join('\n')).not.toMatch(/BASE_WORKDIR/);
    expect(lines.filter((l) => l.startsWith('WORKDIR:pn-'))).toHaveLength(2);
    expect(lines).toContain('PARALLEL_MAKE = "-j 4"');
  });

  it('skips INHERIT when rm_work is inherited already', () => {
    const lines = confLines(makeBuildDir({ rmWork: true }), input);
    expect(lines.some((l) => l.startsWith('INHERIT'))).toBe(false);
  });

  it('sets BB_SCHEDULER only when the user overrides rm_work’s completion', () => {
    const byDefault = makeBuildDir({ rmWork: true });
    expect(schedulerOverridden(byDefault)).toBe(false);
    const byConf = makeBuildDir({
      vars: { BB_SCHEDULER: { value: 'speed', source: 'conf', file: 'local.conf', line: 3 } },
    });
    expect(confLines(byConf, input)).toContain('BB_SCHEDULER = "completion"');
    const byLog = makeBuildDir({ vars: { BB_SCHEDULER: { value: 'completion', source: 'eventlog' } } });
    expect(confLines(byLog, input).some((l) => l.startsWith('BB_SCHEDULER'))).toBe(false);
  });

  it('for the workdir scope writes no TMPDIR and no relocations', () => {
    const lines = confLines(makeBuildDir(), { ...input, scope: 'workdir', tmpfsPath: '/b/tmp/work' });
    expect(lines).toEqual(['INHERIT += "rm_work"', 'BB_DISKMON_DIRS = "X"']);
  });
});
