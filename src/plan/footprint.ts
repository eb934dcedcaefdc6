// What each task adds to TMPDIR, recovered from a recorded run: the file system's used bytes
// sampled over time, and when each task ended. A task's output lands while it runs and is
// complete when it ends, so the growth up to the first sample that follows a task's end
// (past the end timestamp's rounding) is credited to the tasks that landed on that sample.
// Tasks landing on one sample share its growth: by bytes written (buildstats `IO wchar`) when
// known, else by run time; do_rm_work by what the recipe had gathered times the share rm_work
// was seen to free. A task cannot add more than it wrote: growth beyond its wchar means
// rm_work freed less than usual (given back to it first) or the next task's output is already
// landing (carried to the next sample's tasks). No byte of growth is credited twice.
// Pure: samples and task spans come in as data.

export interface UsageSample {
  /** Epoch ms. */
  t: number;
  used: number;
}

export interface TaskSpan {
  pn: string;
  /** `do_x`, or `do_x_setscene`. */
  task: string;
  /** Epoch ms. */
  start: number;
  end: number;
  /** Bytes the task wrote (`IO wchar`), when buildstats recorded it. */
  wchar?: number;
}

export interface Footprint {
  /** Bytes per `<pn>:<do_x>`, negative for do_rm_work. */
  bytes: Map<string, number>;
  /** Per recipe: the most its tasks held at once (its work dir's peak, shared outputs included). */
  recipePeaks: Map<string, number>;
  /** Share of a recipe's bytes do_rm_work frees (the rest is sysroot, deploy and package feeds). */
  freedShare: number;
  /** Growth before the first task ended (what TMPDIR held at the start). */
  startBytes: number;
  /** TMPDIR's own peak in the recorded run, as sampled (what its replay is checked against). */
  peakBytes: number;
  /** On a shared disk: bytes the run wrote outside TMPDIR (sstate, downloads), taken out of the samples. */
  outsideBytes: number;
  /**
   * On a shared disk: the run's growth at its end less what TMPDIR holds now (others' writes on
   * that disk, or TMPDIR changed since); absent when TMPDIR could not be measured.
   */
  unexplainedBytes?: number;
}

const RM_WORK = 'do_rm_work';

export function spanKey(pn: string, task: string): string {
  return `${pn}:${task}`;
}

interface Landing {
  spans: TaskSpan[];
  delta: number;
}

/** The first sample at or after t (the last sample when none is). */
function sampleAtOrAfter(samples: readonly UsageSample[], t: number): number {
  let lo = 0;
  let hi = samples.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid]!.t >= t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Groups tasks by the sample their output is first complete in; each gets the growth since the previous group. */
function landings(samples: readonly UsageSample[], spans: readonly TaskSpan[], slack: number): Landing[] {
  const at = new Map<number, TaskSpan[]>();
  for (const s of spans) {
    const i = sampleAtOrAfter(samples, s.end + slack);
    const list = at.get(i);
    if (list) list.push(s);
    else at.set(i, [s]);
  }
  let prev = 0;
  return [...at.keys()]
    .sort((x, y) => x - y)
    .map((i) => {
      const delta = samples[i]!.used - samples[prev]!.used;
      prev = i;
      return { spans: at.get(i)!, delta };
    });
}

const isRmWork = (s: TaskSpan) => s.task === RM_WORK;

export function measureFootprint(
  samplesIn: readonly UsageSample[],
  spans: readonly TaskSpan[],
  options: { resolutionMs?: number; baselineBytes?: number; outsideBytes?: number } = {},
): Footprint {
  const samples = [...samplesIn].sort((a, b) => a.t - b.t);
  // buildstats round Started/Ended to 10 ms: the true end can be half of that later.
  const groups = samples.length > 0 ? landings(samples, spans, (options.resolutionMs ?? 10) / 2) : [];
  const bytes = new Map<string, number>();
  const held = new Map<string, number>();
  const peaks = new Map<string, number>();
  const credit = (s: TaskSpan, n: number) => {
    const key = spanKey(s.pn, s.task);
    bytes.set(key, (bytes.get(key) ?? 0) + n);
    const h = Math.max(0, (held.get(s.pn) ?? 0) + n);
    held.set(s.pn, h);
    peaks.set(s.pn, Math.max(peaks.get(s.pn) ?? 0, h));
  };

  // Pass 1: what share rm_work frees, from samples where only rm_work landed.
  let dropped = 0;
  let gatheredAll = 0;
  const probe = new Map<string, number>();
  let carry = 0;
  for (const g of groups) {
    const rm = g.spans.filter(isRmWork);
    const gathered = rm.reduce((sum, s) => sum + (probe.get(s.pn) ?? 0), 0);
    if (rm.length === g.spans.length && gathered > 0 && g.delta <= 0) {
      dropped -= g.delta;
      gatheredAll += gathered;
    }
    carry = splitLanding(
      g,
      carry,
      0,
      (s, n) => probe.set(s.pn, Math.max(0, (probe.get(s.pn) ?? 0) + n)),
      probe,
    );
  }
  // Over all bytes rather than a median of recipes: the big work dirs, which make the peak, weigh most.
  const freedShare = Math.min(1, gatheredAll > 0 ? dropped / gatheredAll : 0.8);

  // Pass 2: the credit, with mixed landings using that share for their rm_work tasks.
  carry = 0;
  for (const g of groups) carry = splitLanding(g, carry, freedShare, credit, held);
  // On a disk shared with other files, `used` counts them too: TMPDIR held only what is above them.
  const base = options.baselineBytes ?? 0;
  const startBytes = Math.max(0, (samples[0]?.used ?? 0) - base);
  const peakBytes = samples.reduce((most, s) => Math.max(most, s.used - base), 0);
  return {
    bytes,
    recipePeaks: peaks,
    freedShare,
    startBytes,
    peakBytes,
    outsideBytes: options.outsideBytes ?? 0,
  };
}

/** do_fetch writes to DL_DIR, outside TMPDIR: it takes a share only when it landed alone. */
const weightOf = (s: TaskSpan, byWchar: boolean): number =>
  s.task === 'do_fetch' ? 0 : byWchar ? s.wchar! : Math.max(0, s.end - s.start);

/** Credits one landing; returns the growth no task here could have written (carried on). */
function splitLanding(
  g: Landing,
  carry: number,
  freedShare: number,
  credit: (s: TaskSpan, n: number) => void,
  held: ReadonlyMap<string, number>,
): number {
  const rm = g.spans.filter(isRmWork);
  const others = g.spans.filter((s) => !isRmWork(s));
  if (others.length === 0) {
    // Only rm_work landed: the measured drop, shared by what each recipe held.
    const gathered = rm.reduce((sum, s) => sum + (held.get(s.pn) ?? 0), 0);
    for (const s of rm)
      credit(s, gathered > 0 ? (g.delta * (held.get(s.pn) ?? 0)) / gathered : g.delta / rm.length);
    return carry;
  }
  let rest = g.delta + carry;
  const freed = rm.map((s) => freedShare * (held.get(s.pn) ?? 0));
  const freeing = freed.reduce((a, b) => a + b, 0);
  rest += freeing;
  const byWchar = others.every((s) => s.wchar !== undefined);
  const weights = others.map((s) => weightOf(s, byWchar));
  const total = weights.reduce((a, b) => a + b, 0);
  const shares = others.map((_, i) => (total > 0 ? (rest * weights[i]!) / total : rest / others.length));
  // Growth past what the tasks wrote means rm_work freed less than its usual share: give it
  // back to rm_work first (down to nothing freed), and carry only the rest on.
  let excess = others.reduce((sum, s, i) => sum + Math.max(0, shares[i]! - (s.wchar ?? Infinity)), 0);
  const back = Math.min(excess, freeing);
  excess -= back;
  rm.forEach((s, i) => {
    credit(s, -freed[i]! * (freeing > 0 ? 1 - back / freeing : 1));
  });
  others.forEach((s, i) => {
    credit(s, Math.min(shares[i]!, s.wchar ?? Infinity));
  });
  return excess;
}
