import { describe, expect, it } from 'vitest';
import { confLines, schedulerOverridden } from '../../src/plan/conf-lines.js';
import {
  diskmonValue,
  formatDiskmonInodes,
  formatDiskmonSize,
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

  it('scales the tmpfs thresholds with its size, never below Poky’s', () => {
    expect(tmpfsThresholds(64 * GiB, 4_194_304)).toEqual({
      stopSpace: Math.floor((64 * GiB * 0.05) / MiB) * MiB,
      haltSpace: Math.floor((64 * GiB * 0.01) / MiB) * MiB,
      stopInodes: 209_715 - (209_715 % 1024),
      haltInodes: 41_943 - (41_943 % 1024),
    });
    expect(tmpfsThresholds(4 * GiB, 400 * 1024)).toEqual({
      stopSpace: GiB,
      haltSpace: 100 * MiB,
      stopInodes: 100 * 1024,
      haltInodes: 4 * 1024,
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
