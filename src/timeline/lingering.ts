// What a build leaves behind in TMPDIR: every work dir that is not cleaned at the end, with
// its size and why it stays. Pure: states and sizes in, a sorted list out.

import type { TimelineSummary, WorkdirState } from './timeline-types.js';

export type Lingering = TimelineSummary['lingering'][number];

export interface LingeringInput {
  /** `<arch>/<pn>/<pv>` or `work-shared/…`. */
  workdir: string;
  pn: string;
  pv: string;
  state: WorkdirState;
  reason?: string;
  path?: string;
}

/** Why each state keeps its bytes, when the state change carried no reason of its own. */
const DEFAULT_REASON: Record<WorkdirState, string> = {
  active: 'a task was still running',
  'waiting-rm-work': 'finished, do_rm_work did not run',
  cleaned: '',
  refilled: 'grew again after do_rm_work (setscene restores)',
  excluded: 'in RM_WORK_EXCLUDE',
  'work-shared': 'never cleaned by rm_work',
  stale: 'not part of this build',
  failed: 'left by a failed task',
};

/** Every dir not cleaned, biggest first (then by key, so equal sizes keep a stable order). */
export function findLingering(
  entries: Iterable<LingeringInput>,
  bytesOf: (workdir: string) => number,
): Lingering[] {
  const out: Lingering[] = [];
  for (const e of entries) {
    if (e.state === 'cleaned') continue;
    const item: Lingering = {
      pn: e.pn,
      pv: e.pv,
      workdir: e.workdir,
      state: e.state,
      bytes: bytesOf(e.workdir),
      reason: e.reason ?? DEFAULT_REASON[e.state],
    };
    if (e.path !== undefined) item.path = e.path;
    out.push(item);
  }
  return out.sort(
    (a, b) => b.bytes - a.bytes || (a.workdir < b.workdir ? -1 : a.workdir > b.workdir ? 1 : 0),
  );
}

/** Total bytes per state, for one-line summaries ("excluded 1.2 GiB, stale 300 MiB"). */
export function bytesByState(lingering: readonly Lingering[]): Partial<Record<WorkdirState, number>> {
  const totals: Partial<Record<WorkdirState, number>> = {};
  for (const l of lingering) totals[l.state] = (totals[l.state] ?? 0) + l.bytes;
  return totals;
}
