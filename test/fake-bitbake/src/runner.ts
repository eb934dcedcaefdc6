// Runs jobs at most `slots` at a time on a virtual clock: every decision (what starts next,
// what ends first) is made in virtual seconds, so a seed gives the same order however slow
// the disk is; the real sleeps only pace the replay (virtual seconds × time scale), and no
// job ends sooner after its real start than its own duration × time scale.

export interface Job {
  id: string;
  duration: number;
}

export interface RunnerHooks<J extends Job> {
  /** The next job to start among the ready ones, or undefined to start nothing now. */
  pick(ready: J[]): J | undefined;
  start(job: J, vt: number): void;
  /** Returns false when the job failed. */
  end(job: J, vt: number): boolean;
  /** Jobs that became ready because `job` ended. */
  released(job: J, ok: boolean): J[];
  /** No new jobs start (a failure without -k); running ones still finish. */
  halted(): boolean;
  /** Stop now (SIGINT/SIGTERM, the disk monitor's HALT): running jobs are left unfinished. */
  aborted(): boolean;
  /** Once per step of the loop, before new jobs start: BitBake's heartbeat (disk monitor). */
  heartbeat?(): void;
  /** Called every `everyMs` of real time while jobs run, with the virtual time (output streaming into logs). */
  progress?: { everyMs: number; at(vt: number): void };
}

export async function runJobs<J extends Job>(
  initial: J[],
  slots: number,
  timeScale: number,
  hooks: RunnerHooks<J>,
  startVt = 0,
): Promise<number> {
  const t0 = Date.now() - startVt * timeScale * 1000;
  let vt = startVt;
  let seq = 0;
  const ready = [...initial];
  const running: { job: J; end: number; seq: number; realEnd: number }[] = [];
  for (;;) {
    hooks.heartbeat?.();
    if (hooks.aborted()) break;
    while (!hooks.halted() && !hooks.aborted() && running.length < slots && ready.length > 0) {
      const job = hooks.pick(ready);
      if (!job) break;
      ready.splice(ready.indexOf(job), 1);
      hooks.start(job, vt);
      // A replay behind its clock (its own work, such as writing a task's files, outlasting the
      // time between two events) would otherwise run the jobs due meanwhile in no time at all: a
      // do_rm_work deleting in the millisecond it began, which no watcher can size before. No
      // task of a real build is shorter on a slow host.
      const realEnd = Date.now() + job.duration * timeScale * 1000;
      running.push({ job, end: vt + job.duration, seq: seq++, realEnd });
    }
    if (running.length === 0) break;
    running.sort((a, b) => a.end - b.end || a.seq - b.seq);
    const next = running.shift()!;
    vt = next.end;
    const due = Math.max(t0 + vt * timeScale * 1000, next.realEnd);
    for (let wait = due - Date.now(); wait > 0; ) {
      const step = hooks.progress ? Math.min(wait, hooks.progress.everyMs) : wait;
      await new Promise((r) => setTimeout(r, step));
      // One reading of the clock, and never past the event's time: a second reading, or the
      // rounding of t0 + vt, could fall after it and stream more output than the tasks' durations
      // hold (one line in CI, 12-06).
      const now = Date.now();
      wait = due - now;
      if (wait > 0) hooks.progress?.at(Math.min(vt, (now - t0) / (timeScale * 1000)));
    }
    // Catch up to the event's own time: a run behind the clock (a loaded host) waits only out the
    // job's own duration above, and a task's output is all in its log before it ends, however
    // late the end comes.
    hooks.progress?.at(vt);
    if (hooks.aborted()) {
      running.unshift(next);
      break;
    }
    const ok = hooks.end(next.job, vt);
    ready.push(...hooks.released(next.job, ok));
  }
  return vt;
}
