import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { percentile, readHistory } from '../../src/plan/history.js';
import { needFromHistory } from '../../src/plan/sizing-need.js';
import { parseTimeline as parseTimelineText } from '../../src/timeline/timeline-file.js';
import {
  commandTargets,
  readRecordedRun as readRun,
  recordedRunFrom,
} from '../../src/timeline/timeline-runs.js';
import { ROOT } from '../helpers/exec.js';
import { GiB, MiB, makeBuildDir, makeHistory } from './fixture.js';

const BUILD = join(ROOT, 'test/fixtures/plan/history-killed-watcher-torn-line/build');
const RUNS = join(BUILD, 'rambake/runs');

const parseTimeline = (text: string) => recordedRunFrom(parseTimelineText(text), '<text>');

describe('reading recorded runs', () => {
  it('takes the peaks of a run that ended cleanly from its summary line', async () => {
    const run = await readRun(join(RUNS, '20251129T080000.jsonl'));
    expect(run).toMatchObject({
      summarised: true,
      onTmpfs: true,
      sizeBytes: 24 * GiB,
      peakBytes: 6 * GiB, // the summary saw a peak between the 5.5 GiB samples
      peakInodes: 420_000,
      skippedLines: 0,
      startedAt: Date.parse('2025-11-29T08:00:00.000Z'),
    });
    expect(run.samples).toHaveLength(2);
    expect(run.workdirPeaks['x86_64-linux/gcc-cross-x86_64/14.2.0']).toBe(3 * GiB + 100 * MiB);
  });

  it('recomputes the peaks of a killed watcher from its samples and skips the torn last line', async () => {
    const run = await readRun(join(RUNS, '20251130T142627.jsonl'));
    expect(run).toMatchObject({
      summarised: false,
      peakBytes: 7.5 * GiB, // not the 9 GiB of the half-written line
      peakInodes: 520_000,
      peakWorkBytes: 4.5 * GiB, // the third sample: linux-yocto alone
      skippedLines: 1,
    });
    expect(run.samples).toHaveLength(3);
    expect(run.workdirPeaks).toEqual({
      'core2-64-poky-linux/linux-yocto/6.12.9+git': 4.5 * GiB,
      'core2-64-poky-linux/busybox/1.37.0': 300 * MiB,
    });
  });

  it('marks a run that hit ENOSPC, and the need says its peak is a floor', () => {
    const text = [
      '{"type":"sample","t":1,"fs":{"usedBytes":100,"totalBytes":100,"usedInodes":5,"totalInodes":9},"workdirs":{}}',
      '{"type":"enospc","t":2,"message":"No space left on device"}',
    ].join('\n');
    const run = parseTimeline(text);
    expect(run.enospc).toBe(true);
    const need = needFromHistory(makeHistory([{ ...run, onTmpfs: true, baselineBytes: 0 }]), 'tmpdir');
    expect(need?.reason.text).toMatch(/ENOSPC.*floor/);
  });

  it('on a disk shared with other files, uses the growth during the run', () => {
    const line = (used: number) =>
      JSON.stringify({
        type: 'sample',
        t: 1,
        fs: { usedBytes: used, totalBytes: 0, usedInodes: 0, totalInodes: 0 },
        workdirs: {},
      });
    const header = JSON.stringify({
      type: 'header',
      schemaVersion: 1,
      startedAt: 'x',
      buildDir: '/b',
      tmpdir: '/b/tmp',
      tmpfs: { mountPoint: '/', fsType: 'ext4', source: '/dev/sda1' },
      host: { memTotal: 0, swapTotal: 0, cpus: 1 },
    });
    const run = parseTimeline([header, line(100 * GiB), line(110 * GiB)].join('\n'));
    expect(run.onTmpfs).toBe(false);
    const need = needFromHistory(makeHistory([run]), 'tmpdir');
    expect(need?.bytes).toBe(Math.ceil(10 * GiB * 1.2));
    expect(need?.reason.text).toMatch(/growth/);
  });
});

describe('readHistory', () => {
  it('merges runs and reads compile memory from buildstats do_compile tasks only', async () => {
    const base = makeBuildDir();
    const bd = {
      ...base,
      topdir: BUILD,
      paths: { ...base.paths, topdir: BUILD, buildstatsBase: join(BUILD, 'tmp/buildstats') },
    };
    const h = await readHistory(bd);
    expect(h.runs.map((r) => r.summarised)).toEqual([true, false]);
    expect(h.workdirPeaks['core2-64-poky-linux/linux-yocto/6.12.9+git']).toBe(4.5 * GiB);
    expect(h.notes.join('\n')).toMatch(/no summary line/);
    // gcc 1,800,000 KiB, linux 900,000, m4 120,000, zlib 60,000; do_install and the running busybox left out
    expect(h.compile).toMatchObject({ tasks: 4, p90Bytes: 1_800_000 * 1024, maxBytes: 1_800_000 * 1024 });
    expect(h.compile?.heaviest[0]?.pf).toBe('gcc-cross-x86_64-14.2.0-r0');
    const need = needFromHistory(h, 'tmpdir');
    expect(need?.bytes).toBe(Math.ceil(7.5 * GiB * 1.2));
    expect(need?.inodes).toBe(624_000);
  });

  it('is empty for a build never measured', async () => {
    const h = await readHistory(makeBuildDir());
    expect(h).toMatchObject({ runs: [], workdirPeaks: {}, times: { builds: [], spans: [] } });
    expect(h.run).toBeUndefined();
    expect(h.notes.join('\n')).toMatch(/no recorded run/);
  });
});

describe('the targets of a recorded run', () => {
  it('are every target of the command, not its last word', () => {
    expect(commandTargets(['bitbake', 'hello-data', 'os-release'])).toEqual(['hello-data', 'os-release']);
    expect(
      commandTargets(['runuser', '-u', 'b', '--', '/srv/poky/bitbake/bin/bitbake', '-k', 'a', 'b']),
    ).toEqual(['a', 'b']);
    expect(commandTargets(['bitbake', '-c', 'cleansstate', 'zlib'])).toEqual(['zlib']);
    expect(commandTargets(['bitbake', '-R', 'extra.conf', 'core-image-sato', '--continue'])).toEqual([
      'core-image-sato',
    ]);
  });

  it('of a run in steps are those of its last command', () => {
    const header = {
      type: 'header',
      schemaVersion: 1,
      startedAt: '2026-12-03T12:00:00.000Z',
      buildDir: '/b',
      tmpdir: '/b/tmp',
      tmpfs: { mountPoint: '/b/tmp', fsType: 'tmpfs', source: 'rambake-x' },
      host: { memTotal: 0, swapTotal: 0, cpus: 1 },
      command: ['bitbake', 'linux-yocto', 'bitbake', 'a', 'b'],
      steps: [
        ['bitbake', 'linux-yocto'],
        ['bitbake', 'a', 'b'],
      ],
    };
    expect(parseTimeline(JSON.stringify(header)).targets).toEqual(['a', 'b']);
  });
});

describe('percentile', () => {
  it('is nearest-rank', () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
    expect(percentile([5], 0.9)).toBe(5);
    expect(percentile([], 0.9)).toBe(0);
  });
});
