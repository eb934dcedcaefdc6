// What each task adds to TMPDIR, recovered from a recorded run: the file system's used bytes
// sampled over time, and when each task ended. A task's output lands while it runs and is
// complete when it ends, so the growth between two moments is credited to the tasks that
// ended between them. Tasks ending within `toleranceMs` of each other form one cluster whose
// growth is shared: by run time among ordinary tasks (long tasks write more), and for
// do_rm_work by what the recipe had gathered times the share rm_work was seen to free.
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
}

const RM_WORK = 'do_rm_work';

export function spanKey(pn: string, task: string): string {
  return `${pn}:${task}`;
}

/** The latest sample at or before t (the first sample before the run). */
function usedAt(samples: readonly UsageSample[], t: number): number {
  let lo = 0;
  let hi = samples.length - 1;
  if (hi < 0) return 0;
  if (t < samples[0]!.t) return samples[0]!.used;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (samples[mid]!.t <= t) lo = mid;
    else hi = mid - 1;
  }
  return samples[lo]!.used;
}

interface Cluster {
  spans: TaskSpan[];
  delta: number;
}

function clusterSpans(samples: readonly UsageSample[], spans: TaskSpan[], tol: number): Cluster[] {
  const sorted = [...spans].sort((a, b) => a.end - b.end);
  const groups: TaskSpan[][] = [];
  for (const s of sorted) {
    const last = groups[groups.length - 1];
    const prev = last?.[last.length - 1];
    if (last && prev && s.end - prev.end <= tol) last.push(s);
    else groups.push([s]);
  }
  // Cut the timeline halfway between clusters so every byte of growth is counted once.
  const cuts: number[] = [samples[0]?.t ?? 0];
  for (let i = 0; i + 1 < groups.length; i++) {
    const a = groups[i]!;
    cuts.push((a[a.length - 1]!.end + groups[i + 1]![0]!.end) / 2);
  }
  cuts.push(Math.max(samples[samples.length - 1]?.t ?? 0, sorted[sorted.length - 1]?.end ?? 0));
  return groups.map((g, i) => ({
    spans: g,
    delta: usedAt(samples, cuts[i + 1]!) - usedAt(samples, cuts[i]!),
  }));
}

const isRmWork = (s: TaskSpan) => s.task === RM_WORK;

export function measureFootprint(
  samplesIn: readonly UsageSample[],
  spans: readonly TaskSpan[],
  options: { toleranceMs?: number } = {},
): Footprint {
  const samples = [...samplesIn].sort((a, b) => a.t - b.t);
  const clusters = clusterSpans(samples, [...spans], options.toleranceMs ?? 15);
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

  // Pass 1: what share rm_work frees, from clusters where only rm_work ended.
  const shares: number[] = [];
  const probe = new Map<string, number>();
  for (const c of clusters) {
    const rm = c.spans.filter(isRmWork);
    const gathered = rm.reduce((sum, s) => sum + (probe.get(s.pn) ?? 0), 0);
    if (rm.length === c.spans.length && gathered > 0 && c.delta <= 0) shares.push(-c.delta / gathered);
    splitCluster(c, 0, (s, n) => probe.set(s.pn, Math.max(0, (probe.get(s.pn) ?? 0) + n)), probe);
  }
  shares.sort((a, b) => a - b);
  const freedShare = Math.min(1, shares.length > 0 ? shares[shares.length >> 1]! : 0.8);

  // Pass 2: the credit, with mixed clusters using that share for their rm_work tasks.
  for (const c of clusters) splitCluster(c, freedShare, credit, held);
  return { bytes, recipePeaks: peaks, freedShare, startBytes: samples[0]?.used ?? 0 };
}

function splitCluster(
  c: Cluster,
  freedShare: number,
  credit: (s: TaskSpan, n: number) => void,
  held: ReadonlyMap<string, number>,
): void {
  const rm = c.spans.filter(isRmWork);
  const others = c.spans.filter((s) => !isRmWork(s));
  let rest = c.delta;
  if (others.length === 0) {
    // Only rm_work ended: the measured drop, shared by what each recipe held.
    const gathered = rm.reduce((sum, s) => sum + (held.get(s.pn) ?? 0), 0);
    for (const s of rm)
      credit(s, gathered > 0 ? (c.delta * (held.get(s.pn) ?? 0)) / gathered : c.delta / rm.length);
    return;
  }
  for (const s of rm) {
    const freed = -freedShare * (held.get(s.pn) ?? 0);
    credit(s, freed);
    rest -= freed;
  }
  const weights = others.map((s) => Math.max(0, s.end - s.start));
  const total = weights.reduce((a, b) => a + b, 0);
  others.forEach((s, i) => {
    credit(s, total > 0 ? (rest * weights[i]!) / total : rest / others.length);
  });
}
