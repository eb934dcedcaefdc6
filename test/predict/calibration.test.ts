// The pieces of a disk-recorded prediction that need no build: samples less what was written
// outside TMPDIR, the footprint's own peak and start above the baseline, the replay's error,
// and how the text says how sure it is (and calls a replay off by more than 15 % rough).

import { describe, expect, it } from 'vitest';
import { measureFootprint, type TaskSpan } from '../../src/plan/footprint.js';
import { withoutWritten } from '../../src/plan/history-outside.js';
import type { SimTask } from '../../src/plan/peak.js';
import { type Prediction, reconcileVerdict } from '../../src/plan/predict.js';
import { calibrate } from '../../src/plan/predict-calibration.js';
import { planRamBuild } from '../../src/plan/sizing.js';
import { renderCalibration } from '../../src/report/predict.js';
import { makeColors } from '../../src/text/format.js';
import type { RecordedRun } from '../../src/timeline/timeline-runs.js';
import { GiB, makeBuildDir, makeFacts, makeHistory } from '../plan/fixture.js';

const MiB = 2 ** 20;
const BASE = 100_000 * MiB;

describe('history recorded on a shared disk', () => {
  // The disk: 100,000 MiB of others' files, then TMPDIR grows 10 MiB (a), 30 MiB (b), rm_work
  // frees 20; meanwhile 5 MiB of sstate lands at t=25.
  const disk = [
    { t: 0, used: BASE },
    { t: 10, used: BASE + 10 * MiB },
    { t: 30, used: BASE + 45 * MiB },
    { t: 40, used: BASE + 25 * MiB },
  ];
  const spans: TaskSpan[] = [
    { pn: 'a', task: 'do_compile', start: 0, end: 9 },
    { pn: 'b', task: 'do_compile', start: 10, end: 29 },
    { pn: 'b', task: 'do_rm_work', start: 30, end: 39 },
  ];

  it('takes what was written outside TMPDIR out from its time on', () => {
    const own = withoutWritten(disk, [{ t: 25, bytes: 5 * MiB }]);
    expect(own.map((s) => s.used - BASE)).toEqual([0, 10 * MiB, 40 * MiB, 20 * MiB]);
  });

  it('gives the footprint a start and a peak above the baseline, not the disk', () => {
    const f = measureFootprint(withoutWritten(disk, [{ t: 25, bytes: 5 * MiB }]), spans, {
      baselineBytes: BASE,
      outsideBytes: 5 * MiB,
      resolutionMs: 0,
    });
    expect(f.startBytes).toBe(0);
    expect(f.peakBytes).toBe(40 * MiB);
    expect(f.outsideBytes).toBe(5 * MiB);
    expect(f.bytes.get('b:do_compile')).toBe(30 * MiB);
  });

  it('replays the run and measures its own error', () => {
    const f = measureFootprint(disk, spans, { baselineBytes: BASE, resolutionMs: 0 });
    const task = (id: string, deps: string[], seconds: number): SimTask => {
      const [pn, t] = id.split(':') as [string, string];
      return { id, pn, task: t, deps, seconds, bytes: f.bytes.get(id) ?? 0 };
    };
    const tasks = new Map(
      [
        task('a:do_compile', [], 9),
        task('b:do_compile', ['a:do_compile'], 19),
        task('b:do_rm_work', ['b:do_compile'], 9),
        task('b:do_build', ['b:do_rm_work'], 0),
      ].map((t) => [t.id, t]),
    );
    const run = { file: 'r.jsonl', targets: ['b'], onTmpfs: false, baselineBytes: BASE } as RecordedRun;
    const cal = calibrate(
      tasks,
      run,
      { steps: [], roots: ['b:do_build'], footprint: f },
      {
        threads: 1,
        scheduler: 'speed',
      },
    );
    expect(cal.recordedPeakBytes).toBe(45 * MiB);
    expect(cal.replayedPeakBytes).toBe(45 * MiB);
    expect(cal).toMatchObject({ error: 0, rough: false, history: 'shared-disk', baselineBytes: BASE });
    // A footprint that says less than the run measured: the replay says by how much.
    const low = calibrate(
      tasks,
      run,
      { steps: [], roots: ['b:do_build'], footprint: { ...f, peakBytes: 60 * MiB } },
      {
        threads: 1,
        scheduler: 'speed',
      },
    );
    expect(low.error).toBeCloseTo(45 / 60 - 1, 6);
    expect(low.rough).toBe(true);
    const text = renderCalibration(low, makeColors(false));
    expect(text).toMatch(
      /gives 45\.0 MiB against 60\.0 MiB measured: −25\.0 %; recorded on a disk shared with other files/,
    );
    expect(text).toMatch(/rough: off by more than 15 %/);
    expect(renderCalibration(cal, makeColors(false))).not.toMatch(/rough/);
  });
});

describe('a rough prediction', () => {
  const plan = planRamBuild({
    bd: makeBuildDir(),
    facts: makeFacts({ ram: 16 * GiB, cpus: 8 }),
    history: makeHistory(),
    opts: { target: 'core-image-sato' },
    owner: { uid: 1, gid: 1 },
  });
  const p = {
    schemaVersion: 2,
    target: 'core-image-sato',
    targets: ['core-image-sato'],
    targetsFrom: 'asked',
    predicted: true,
    threads: 8,
    scheduler: 'speed',
    steps: [],
    peakBytes: 12 * GiB,
    peakRecipes: [],
    seconds: 60,
    perStep: [],
    tmpfsSize: 14 * GiB,
    fits: true,
    sources: { graph: 'task-depends.dot', buildstats: [] },
    coverage: { tasks: 10, timed: 10, sized: 10 },
    notes: [],
  } satisfies Prediction;
  const cal = {
    run: 'r.jsonl',
    threads: 8,
    steps: [],
    targets: ['core-image-sato'],
    replayedPeakBytes: 13 * GiB,
    recordedPeakBytes: 10 * GiB,
    error: 0.3,
    history: 'tmpfs' as const,
    baselineBytes: 0,
    outsideBytes: 0,
    rough: true,
  };

  it('says so in the verdict when the replay is off by more than 15 %', () => {
    expect(reconcileVerdict(plan, { ...p, calibration: cal }).verdict.text).toMatch(
      /^fits: predicted peak 12\.0 GiB .*; rough: replaying the recorded run is off by 30 %$/,
    );
    expect(
      reconcileVerdict(plan, { ...p, calibration: { ...cal, error: 0.05, rough: false } }).verdict.text,
    ).not.toMatch(/rough/);
    expect(renderCalibration(cal, makeColors(false))).toMatch(
      /: \+30\.0 %; recorded on a tmpfs of its own; rough/,
    );
  });

  it('says so when a shared disk grew more than TMPDIR holds (other writers)', () => {
    const noisy = {
      ...cal,
      error: 0,
      replayedPeakBytes: 10 * GiB,
      history: 'shared-disk' as const,
      baselineBytes: 100 * GiB,
      unexplainedBytes: 4 * GiB,
    };
    expect(reconcileVerdict(plan, { ...p, calibration: noisy }).verdict.text).toMatch(
      /; rough: the recorded disk grew 4\.00 GiB more than TMPDIR holds$/,
    );
    expect(renderCalibration(noisy, makeColors(false))).toMatch(
      /the disk grew 4\.00 GiB more than TMPDIR holds now \(other writers on it, or TMPDIR changed since\).*rough/,
    );
    const quiet = { ...noisy, unexplainedBytes: 0.5 * GiB, rough: false };
    expect(renderCalibration(quiet, makeColors(false))).not.toMatch(/more than TMPDIR|rough/);
  });
});
