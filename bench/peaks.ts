// Work-dir peak error on the fake BitBake's sato-like build: the peak `rambake run` records for
// each work dir against `du -sB1` of that dir at the end of its last task before rm_work.
// That truth comes from a second build of the same scenario (same seed) without rm_work: its
// work dirs end the build exactly as the rm_work build's stood when do_rm_work started, but
// for do_rm_work's own few log files in temp/. The watched build runs twice: sampling as densely
// per replayed second as a real build is sampled by default (the goal rows), and at the default
// interval itself (information: at this pace a sample is 100 s of a real build).

import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { scanTree } from '../src/system/du.js';
import { copyExample, FAKE_BIN } from '../test/helpers/exec.js';
import { ENTRY } from '../test/watch/helpers.js';
import type { BenchRow } from './types.js';

// do_rm_work lasts 0.6 build seconds: 12 ms between its first file in temp/ and the deletion
// here, shorter than the real one (rm_work rewrites stamps, a process or two each, first).
const TIME_SCALE = 0.02;

const env = () => ({
  PATH: `${FAKE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  NO_COLOR: '1',
  HOME: process.env.HOME ?? '/root',
  FAKE_BITBAKE_SCENARIO: 'sato-like',
  FAKE_BITBAKE_TIME_SCALE: String(TIME_SCALE),
});

async function truth(): Promise<Map<string, number>> {
  const copy = copyExample();
  try {
    await execa('bitbake', ['core-image-sato'], {
      cwd: copy.topdir,
      env: env(),
      extendEnv: false,
      reject: false,
    });
    const base = join(copy.topdir, 'tmp', 'work');
    const sizes = new Map<string, number>();
    for (const arch of existsSync(base) ? readdirSync(base) : [])
      for (const pn of readdirSync(join(base, arch)))
        for (const pv of readdirSync(join(base, arch, pn)))
          sizes.set(`${arch}/${pn}/${pv}`, (await scanTree(join(base, arch, pn, pv), { workers: 0 })).bytes);
    return sizes;
  } finally {
    copy.cleanup();
  }
}

/** The peaks `rambake run` records, sampling every `interval` seconds. */
async function watched(interval: number): Promise<Record<string, number>> {
  const copy = copyExample();
  try {
    appendFileSync(join(copy.topdir, 'conf', 'local.conf'), 'INHERIT += "rm_work"\n');
    const argv = [ENTRY, 'run', '--json', '--interval', String(interval), '--', 'bitbake', 'core-image-sato'];
    const r = await execa(process.execPath, argv, {
      cwd: copy.topdir,
      env: env(),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    return (
      JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as { workdirPeaks: Record<string, number> }
    ).workdirPeaks;
  } finally {
    copy.cleanup();
  }
}

/** --interval's default: what a user's `rambake run` samples at. */
const DEFAULT_INTERVAL = 2;

/** Each work dir's peak error against du before rm_work, for dirs of 1 MiB or more, sorted. */
function peakErrors(sizes: Map<string, number>, peaks: Record<string, number>): number[] {
  const errors: number[] = [];
  for (const [key, du] of sizes) {
    const peak = peaks[key];
    // Work dirs of a few KiB (noexec recipes) carry only temp/: the rm_work logs dominate.
    if (peak === undefined || du < 1024 * 1024) continue;
    errors.push(Math.abs(peak - du) / du);
  }
  return errors.sort((a, b) => a - b);
}

function rows(errors: number[], interval: number, goal: boolean): BenchRow[] {
  const within = errors.filter((e) => e <= 0.02).length / Math.max(1, errors.length);
  const worst = errors.at(-1) ?? 0;
  const pace = goal
    ? `--interval ${interval} s: ${DEFAULT_INTERVAL} s of a real build at this pace`
    : `--interval ${interval} s at ${1 / TIME_SCALE}× pace: ${interval / TIME_SCALE} s of a real build`;
  return [
    {
      bench: 'peaks',
      kind: 'measured',
      metric: `work dirs ≥ 1 MiB whose peak is within 2 % of du before rm_work (sato-like, ${errors.length} dirs, ${pace})`,
      value: within * 100,
      unit: '%',
      goal: goal ? '100 %' : 'information',
      ...(goal ? { ok: within === 1 } : {}),
    },
    {
      bench: 'peaks',
      kind: 'measured',
      metric: `work-dir peak error vs du before rm_work: median, worst (${pace})`,
      value: (errors[Math.floor(errors.length / 2)] ?? 0) * 100,
      reference: worst * 100,
      refName: '(worst)',
      unit: '%',
      goal: goal ? '≤ 2 %' : 'information',
      ...(goal ? { ok: worst <= 0.02 } : {}),
    },
  ];
}

// The goal rows sample as densely, per second of the replayed build, as `rambake run` samples a
// real build by default; the information rows keep the default interval at the replay's pace,
// where a dir is sized only as its do_rm_work starts or at a rare sample.
export default async function (): Promise<BenchRow[]> {
  const sizes = await truth();
  const scaled = DEFAULT_INTERVAL * TIME_SCALE;
  return [
    ...rows(peakErrors(sizes, await watched(scaled)), scaled, true),
    ...rows(peakErrors(sizes, await watched(DEFAULT_INTERVAL)), DEFAULT_INTERVAL, false),
  ];
}
