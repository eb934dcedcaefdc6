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

describe('write setscene after rm_work, and the reuse rows', () => {
  const z = 'zlib-1.3.1-r0';
  const h = 'hello-1.0-r0';
  const fresh = build('b1', [
    task(z, 'do_package_write_deb', 1),
    task(z, 'do_rm_work', 2),
    task(h, 'do_rm_work', 2),
  ]);
  // `bitbake -c cleansstate hello`: no do_rm_work in it.
  const clean = build('b2', [task(h, 'do_cleansstate', 10)]);
  const again = build('b3', [
    task(z, 'do_package_write_deb_setscene', 20),
    task(z, 'do_recipe_qa_setscene', 20),
    task(h, 'do_recipe_qa', 21),
    task(h, 'do_package_write_deb', 22),
    task(h, 'do_create_package_spdx', 23),
  ]);

  it('compares with the last build that ran the recipe’s do_rm_work, not the build just before', () => {
    const r = analyzeChurn([fresh, clean, again], '/bs');
    expect(r.builds[2]!.writeSetsceneAfterRmWork.map((w) => `${w.pn} ${w.task}`)).toEqual([
      'zlib do_package_write_deb_setscene',
    ]);
  });

  it('reads older builds as rm_work history only', () => {
    const history = { ...build('b1', []), contextOnly: true, rmWorkRan: [z] };
    const r = analyzeChurn([history, clean, again], '/bs');
    expect(r.builds.map((b) => b.name)).toEqual(['b2', 'b3']);
    expect(r.builds[1]!.writeSetsceneAfterRmWork.map((w) => w.pn)).toEqual(['zlib']);
  });

  it('a real package write since the rm_work ends it: no later setscene is blamed on it', () => {
    const rewrite = build('b2', [task(z, 'do_package_write_deb', 10)]);
    const r = analyzeChurn([fresh, rewrite, again], '/bs');
    expect(r.builds[2]!.writeSetsceneAfterRmWork).toEqual([]);
  });

  it('lists every task seen as setscene, with its real runs, in the reuse table', () => {
    const r = analyzeChurn([fresh, clean, again], '/bs');
    expect(r.builds[2]!.reuse).toEqual([
      { task: 'do_package_write_deb', setscene: 1, real: 1 },
      { task: 'do_recipe_qa', setscene: 1, real: 1 },
    ]);
  });
});
