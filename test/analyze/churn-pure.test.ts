// The pure parts of churn: log matching and the cause of a redundant restore.

import { describe, expect, it } from 'vitest';
import { analyzeChurn, type ChurnBuildInput } from '../../src/analyze/churn.js';
import { matchConsoleLogs } from '../../src/analyze/churn-read.js';
import { parseBuildstatsTask } from '../../src/bitbake/buildstats.js';

function task(pf: string, name: string, started: number, opts: { running?: boolean; status?: string } = {}) {
  const lines = ['Event: TaskStarted ', `Started: ${started} `];
  if (!opts.running)
    lines.push(
      `${pf}: ${name}`,
      'Elapsed time: 1.00 seconds',
      'IO wchar: 100',
      `Status: ${opts.status ?? 'PASSED'}`,
    );
  return parseBuildstatsTask(lines.join('\n'), { pf, taskFile: name });
}

const build = (name: string, tasks: ChurnBuildInput['tasks'], extra: Partial<ChurnBuildInput> = {}) => ({
  name,
  startedAt: 0,
  tasks,
  failedSetscene: [],
  ...extra,
});

describe('matchConsoleLogs', () => {
  it('pairs each build with the newest log named at or before it, each log once', () => {
    const logs = [
      { path: 'a.log', startedAt: 100 },
      { path: 'c.log', startedAt: 300 },
      { path: 'b.log', startedAt: 195 },
    ];
    const builds = [{ startedAt: 102 }, { startedAt: 200 }, { startedAt: 250 }, { startedAt: 300 }];
    expect(matchConsoleLogs(builds, logs).map((l) => l?.path)).toEqual([
      'a.log',
      'b.log',
      undefined,
      'c.log',
    ]);
  });

  it('leaves a build without a log when its command wrote none (a log is used once)', () => {
    const logs = [{ path: 'first.log', startedAt: 5 }];
    expect(
      matchConsoleLogs([{ startedAt: 3 }, { startedAt: 10 }, { startedAt: 100 }], logs).map((l) => l?.path),
    ).toEqual([undefined, 'first.log', undefined]);
  });
});

describe('analyzeChurn causes', () => {
  const pf = 'zlib-1.3.1-r0';

  it('a consumer whose setscene failed (console log) is named', () => {
    const r = analyzeChurn(
      [
        build(
          'B',
          [task(pf, 'do_package_setscene', 10), task(pf, 'do_package_qa_setscene', 11, { running: true })],
          {
            failedSetscene: [{ pn: 'zlib', task: 'do_package_qa' }],
          },
        ),
      ],
      '/b',
    );
    expect(r.builds[0]!.redundant[0]!.cause).toMatchObject({
      kind: 'consumer-setscene-failed',
      detail: 'setscene of do_package_qa failed (console log)',
    });
  });

  it('a real task that is no consumer points at a nostamp task or an extra dependency', () => {
    const r = analyzeChurn(
      [build('B', [task(pf, 'do_package_setscene', 10), task(pf, 'do_buildhistory_srcrev', 12)])],
      '/b',
    );
    expect(r.builds[0]!.redundant[0]!.cause?.kind).toBe('extra-task');
    expect(r.builds[0]!.redundant[0]!.cause?.detail).toContain('do_buildhistory_srcrev');
  });

  it('a consumer that ran before the restore does not make it legitimate; a failed restore is none', () => {
    const r = analyzeChurn(
      [
        build('B', [task(pf, 'do_package_qa', 5), task(pf, 'do_package_setscene', 10)]),
        build('C', [task(pf, 'do_package_setscene', 10, { status: 'FAILED' }), task(pf, 'do_package', 12)]),
      ],
      '/b',
    );
    expect(r.builds[0]!.redundant.map((x) => x.pf)).toEqual([pf]);
    expect(r.builds[1]!.redundant).toEqual([]);
    expect(r.builds[1]!.legitimate).toEqual([]);
    expect(r.recurring).toEqual([]);
  });
});
