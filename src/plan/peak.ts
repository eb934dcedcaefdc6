// Predicting the tmpfs peak of a build before running it: BitBake's run queue replayed on a
// virtual clock (bitbake-formats.md §6) over the task graph, each task taking its measured
// time and adding (or, for do_rm_work, removing) the bytes it was seen to add to TMPDIR in a
// recorded run. Pure: graph, durations and footprints come in as data.

export type Scheduler = 'speed' | 'completion';

export interface SimTask {
  /** Unique key, `<pn>:<do_task>`. */
  id: string;
  pn: string;
  task: string;
  /** Ids of tasks this one waits for. */
  deps: string[];
  /** Wall seconds it takes (0 for noexec tasks). */
  seconds: number;
  /** Bytes TMPDIR gains when it ends (negative for do_rm_work). */
  bytes: number;
}

export interface SimOptions {
  threads: number;
  scheduler: Scheduler;
  /** Tasks already built by earlier invocations: not run again. */
  done?: ReadonlySet<string>;
  /** TMPDIR usage when this invocation starts. */
  startBytes?: number;
}

export interface SimResult {
  peakBytes: number;
  /** Seconds after the invocation started. */
  peakAt: number;
  /** Recipes with a task running at the peak. */
  peakRecipes: string[];
  seconds: number;
  endBytes: number;
  /** Tasks run, in start order. */
  ran: string[];
}

/** BitBake's weights (runqueue.py): end points weigh 10, every task 1 plus its dependents'. */
export function weighTasks(tasks: ReadonlyMap<string, SimTask>): Map<string, number> {
  const dependents = dependentsOf(tasks);
  const weight = new Map<string, number>();
  for (const t of topoOrder(tasks).reverse()) {
    const ds = dependents.get(t.id) ?? [];
    let w = ds.length === 0 ? 10 : 1;
    for (const d of ds) w += weight.get(d) ?? 0;
    weight.set(t.id, w);
  }
  return weight;
}

function dependentsOf(tasks: ReadonlyMap<string, SimTask>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of tasks.values()) {
    for (const d of t.deps) {
      if (!tasks.has(d)) continue;
      const list = out.get(d);
      if (list) list.push(t.id);
      else out.set(d, [t.id]);
    }
  }
  return out;
}

/** Dependencies before dependents; a cycle (a broken graph) is broken where it is met. */
export function topoOrder(tasks: ReadonlyMap<string, SimTask>): SimTask[] {
  const out: SimTask[] = [];
  const state = new Map<string, 1 | 2>();
  for (const root of tasks.values()) {
    if (state.has(root.id)) continue;
    // Iterative DFS: real graphs are 10,000+ tasks deep enough to overflow recursion.
    const stack: [SimTask, number][] = [[root, 0]];
    state.set(root.id, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const [t, i] = top;
      if (i < t.deps.length) {
        top[1]++;
        const d = tasks.get(t.deps[i]!);
        if (d && !state.has(d.id)) {
          state.set(d.id, 1);
          stack.push([d, 0]);
        }
        continue;
      }
      stack.pop();
      state.set(t.id, 2);
      out.push(t);
    }
  }
  return out;
}

/** Every task `roots` need, themselves included. */
export function closureOf(tasks: ReadonlyMap<string, SimTask>, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    const t = tasks.get(id);
    if (!t) continue;
    seen.add(id);
    stack.push(...t.deps);
  }
  return seen;
}

interface Running {
  id: string;
  end: number;
  seq: number;
}

/**
 * One `bitbake` invocation over `tasks` (already restricted to its run queue): at most
 * `threads` tasks at once, the next one chosen by the scheduler among those whose
 * dependencies have ended; usage changes when a task ends.
 */
export function simulateBuild(tasks: ReadonlyMap<string, SimTask>, opts: SimOptions): SimResult {
  const done = opts.done ?? new Set<string>();
  const weight = weighTasks(tasks);
  const index = new Map([...tasks.keys()].map((id, i) => [id, i]));
  const dependents = dependentsOf(tasks);
  const waiting = new Map<string, number>();
  const ready: string[] = [];
  for (const t of tasks.values()) {
    if (done.has(t.id)) continue;
    const n = t.deps.filter((d) => tasks.has(d) && !done.has(d)).length;
    waiting.set(t.id, n);
    if (n === 0) ready.push(t.id);
  }
  const started = new Set<string>();
  const before = (a: string, b: string): boolean => {
    if (opts.scheduler === 'completion') {
      const sa = started.has(tasks.get(a)!.pn);
      const sb = started.has(tasks.get(b)!.pn);
      if (sa !== sb) return sa;
    }
    const wa = weight.get(a) ?? 0;
    const wb = weight.get(b) ?? 0;
    if (wa !== wb) return wa > wb;
    return (index.get(a) ?? 0) < (index.get(b) ?? 0);
  };
  let now = 0;
  let seq = 0;
  let usage = opts.startBytes ?? 0;
  const result: SimResult = {
    peakBytes: usage,
    peakAt: 0,
    peakRecipes: [],
    seconds: 0,
    endBytes: usage,
    ran: [],
  };
  const running: Running[] = [];
  const threads = Math.max(1, opts.threads);
  for (;;) {
    while (running.length < threads && ready.length > 0) {
      let best = 0;
      for (let i = 1; i < ready.length; i++) if (before(ready[i]!, ready[best]!)) best = i;
      const id = ready.splice(best, 1)[0]!;
      const t = tasks.get(id)!;
      started.add(t.pn);
      result.ran.push(id);
      running.push({ id, end: now + t.seconds, seq: seq++ });
    }
    if (running.length === 0) break;
    running.sort((a, b) => a.end - b.end || a.seq - b.seq);
    const next = running.shift()!;
    now = next.end;
    usage += tasks.get(next.id)!.bytes;
    if (usage > result.peakBytes) {
      result.peakBytes = usage;
      result.peakAt = now;
      result.peakRecipes = [...new Set(running.map((r) => tasks.get(r.id)!.pn))];
    }
    for (const d of dependents.get(next.id) ?? []) {
      const left = (waiting.get(d) ?? 1) - 1;
      waiting.set(d, left);
      if (left === 0) ready.push(d);
    }
  }
  result.seconds = now;
  result.endBytes = usage;
  return result;
}

export interface StepPeak {
  /** The recipe built (`bitbake <step>`), the target last. */
  step: string;
  peakBytes: number;
  seconds: number;
}

export interface StepsResult {
  peakBytes: number;
  /** The step whose invocation holds the overall peak. */
  peakStep: string;
  peakRecipes: string[];
  seconds: number;
  steps: StepPeak[];
}

/**
 * `bitbake step1`, …, `bitbake target` one after the other: each invocation runs what its
 * target needs and the earlier ones did not build; what they left in TMPDIR stays.
 */
export function simulateSteps(
  tasks: ReadonlyMap<string, SimTask>,
  roots: readonly string[],
  opts: Omit<SimOptions, 'done' | 'startBytes'>,
): StepsResult {
  const done = new Set<string>();
  let usage = 0;
  const out: StepsResult = { peakBytes: 0, peakStep: '', peakRecipes: [], seconds: 0, steps: [] };
  for (const root of roots) {
    const ids = closureOf(tasks, [root]);
    const sub = new Map([...tasks].filter(([id]) => ids.has(id)));
    const r = simulateBuild(sub, { ...opts, done, startBytes: usage });
    for (const id of r.ran) done.add(id);
    usage = r.endBytes;
    const step = tasks.get(root)?.pn ?? root;
    out.steps.push({ step, peakBytes: r.peakBytes, seconds: r.seconds });
    out.seconds += r.seconds;
    if (r.peakBytes > out.peakBytes || out.peakStep === '') {
      out.peakBytes = r.peakBytes;
      out.peakStep = step;
      out.peakRecipes = r.peakRecipes;
    }
  }
  return out;
}
