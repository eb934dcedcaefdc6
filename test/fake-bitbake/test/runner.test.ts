// The job runner's pacing: the output it streams while a job runs never passes the job's end.
// A clock that moves a millisecond at every reading makes each reading later than the one
// before, which a loaded host does at random (one line too many in CI, 12-06).

import { afterEach, describe, expect, it, vi } from 'vitest';
import { runJobs } from '../src/runner.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The latest time progress was reported for, running one job of `duration` at scale 0.01. */
async function latestProgress(duration: number): Promise<number> {
  let clock = 1_764_512_345_000;
  vi.spyOn(Date, 'now').mockImplementation(() => clock++);
  const seen: number[] = [];
  await runJobs([{ id: 'a', duration }], 1, 0.01, {
    pick: (ready) => ready[0],
    start: () => undefined,
    end: () => true,
    released: () => [],
    halted: () => false,
    aborted: () => false,
    progress: { everyMs: 1, at: (vt) => seen.push(vt) },
  });
  vi.restoreAllMocks();
  return Math.max(...seen);
}

describe('runJobs', () => {
  it('streams progress up to each job end, never past it, however late the clock is read', async () => {
    // At 0.01 these last 3.5–6.1 ms: each end falls between two whole milliseconds, at a
    // different place among the clock's readings.
    for (const duration of [0.35, 0.37, 0.41, 0.43, 0.47, 0.53, 0.61]) {
      expect(await latestProgress(duration), `a job of ${duration} s`).toBe(duration);
    }
  });

  it('keeps a job to its scaled duration from its real start when the replay runs late', async () => {
    let clock = 1_764_512_345_000;
    vi.spyOn(Date, 'now').mockImplementation(() => clock++);
    const real: Record<string, number> = {};
    // At 0.01, a and b (released by a's end) last 10 ms each. Ending a (writing its files) takes 50.
    await runJobs([{ id: 'a', duration: 1 }], 1, 0.01, {
      pick: (ready) => ready[0],
      start: (job) => {
        real[`${job.id} start`] = clock;
      },
      end: (job) => {
        real[`${job.id} end`] = clock;
        if (job.id === 'a') clock += 50;
        return true;
      },
      released: (job) => (job.id === 'a' ? [{ id: 'b', duration: 1 }] : []),
      halted: () => false,
      aborted: () => false,
    });
    expect(real['b end']! - real['b start']!).toBeGreaterThanOrEqual(10);
  });
});
