// The work-directory state machine: inputs (task starts and ends, folders found on disk, a
// cleaned folder growing, the build ending) in, state changes out. No I/O: the watcher feeds
// it, tests drive it directly.

import type { WorkdirState } from '../timeline/timeline-types.js';
import {
  type classifyFound,
  deliverablesDone,
  isKernelTask,
  looksLikeKernel,
  type WorkdirId,
  workdirKey,
} from './classify.js';

export type StateInput =
  | { kind: 'build-start'; t: number }
  | { kind: 'build-end'; t: number; interrupted?: boolean }
  /** A folder seen on disk that no watched task made (at attach time, or a new folder). */
  /** `new`: it appeared while watching (a task is about to use it). */
  | { kind: 'found'; t: number; id: WorkdirId; content: FoundContent; mtimeMs?: number }
  | { kind: 'shared'; t: number; id: WorkdirId }
  | { kind: 'gone'; t: number; key: string }
  /** A cleaned folder grew while no task of its recipe ran (setscene restores we missed). */
  | { kind: 'grew'; t: number; key: string }
  | { kind: 'task-start'; t: number; pn: string; pv: string; arch?: string; task: string; setscene: boolean }
  | {
      kind: 'task-end';
      t: number;
      pn: string;
      pv: string;
      arch?: string;
      task: string;
      setscene: boolean;
      ok: boolean;
    };

export interface StateChange {
  t: number;
  id: WorkdirId;
  state: WorkdirState;
  reason?: string;
  from?: WorkdirState;
}

export interface StatesConfig {
  rmWork: boolean;
  /** RM_WORK_EXCLUDE, as PNs. */
  rmWorkExclude: readonly string[];
}

export interface WorkdirEntry {
  id: WorkdirId;
  state: WorkdirState;
  reason?: string;
  /** When it entered this state (epoch ms). */
  since: number;
  /** Tasks running now (`do_x` or `do_x_setscene`). */
  running: Set<string>;
  /** Tasks finished in this build (setscene runs under the task's own name). */
  done: Set<string>;
  /** A task of this recipe ran in this build. */
  touched: boolean;
  /** do_rm_work ran and no real task since. */
  cleaned: boolean;
  /** Setscene restores after do_rm_work (or growth seen while cleaned). */
  refilled: boolean;
  failed?: string;
  kernel: boolean;
  found?: FoundContent;
  staleReason?: string;
  mtimeMs?: number;
  shared: boolean;
}

export type FoundContent = ReturnType<typeof classifyFound> | 'new';

type TaskInput = Extract<StateInput, { kind: 'task-start' | 'task-end' }>;

export class WorkdirStates {
  readonly entries = new Map<string, WorkdirEntry>();
  /** Task inputs whose folder is not known yet, by `pn/pv`; replayed when it is found. */
  private readonly pending = new Map<string, TaskInput[]>();
  private readonly archOf = new Map<string, string>();
  /** Between a build's start and its end (as the console log tells). */
  building = false;

  constructor(private readonly cfg: StatesConfig) {}

  apply(input: StateInput): StateChange[] {
    const changes: StateChange[] = [];
    this.applyInto(input, changes);
    return changes;
  }

  get pendingCount(): number {
    let n = 0;
    for (const list of this.pending.values()) n += list.length;
    return n;
  }

  private applyInto(input: StateInput, out: StateChange[]): void {
    switch (input.kind) {
      case 'build-start':
        this.building = true;
        for (const e of this.entries.values()) {
          e.touched = false;
          e.done.clear();
        }
        return;
      case 'build-end':
        this.building = false;
        this.endBuild(input.t, input.interrupted === true, out);
        return;
      case 'found':
      case 'shared':
        this.addFound(input, out);
        return;
      case 'gone':
        this.entries.delete(input.key);
        return;
      case 'grew': {
        const e = this.entries.get(input.key);
        if (e && e.running.size === 0 && (e.cleaned || e.found === 'cleaned')) {
          e.refilled = true;
          this.settle(e, input.t, out);
        }
        return;
      }
      default:
        this.applyTask(input, out);
    }
  }

  private addFound(input: Extract<StateInput, { kind: 'found' | 'shared' }>, out: StateChange[]): void {
    if (this.entries.has(input.id.key)) return;
    const e = this.newEntry(input.id, input.t);
    e.shared = input.kind === 'shared';
    if (input.kind === 'found') {
      e.found = input.content;
      if (input.mtimeMs !== undefined) e.mtimeMs = input.mtimeMs;
      this.archOf.set(`${e.id.pn}/${e.id.pv}`, e.id.arch);
      this.markOlderVersions(e, input.t, out);
    }
    this.settle(e, input.t, out, true);
    const key = `${e.id.pn}/${e.id.pv}`;
    const waiting = this.pending.get(key);
    if (waiting && input.kind === 'found') {
      this.pending.delete(key);
      for (const task of waiting) this.applyTask({ ...task, arch: e.id.arch }, out);
    }
  }

  private applyTask(input: TaskInput, out: StateChange[]): void {
    const arch = input.arch ?? this.archOf.get(`${input.pn}/${input.pv}`);
    if (arch === undefined) {
      const key = `${input.pn}/${input.pv}`;
      this.pending.set(key, [...(this.pending.get(key) ?? []), input]);
      return;
    }
    const key = workdirKey(arch, input.pn, input.pv);
    let e = this.entries.get(key);
    if (!e) {
      e = this.newEntry({ key, arch, pn: input.pn, pv: input.pv }, input.t);
      this.archOf.set(`${input.pn}/${input.pv}`, arch);
    }
    if (!e.touched) {
      e.touched = true;
      e.staleReason = undefined;
      this.markOlderVersions(e, input.t, out);
    }
    if (isKernelTask(input.task)) e.kernel = true;
    const name = input.setscene ? `${input.task}_setscene` : input.task;
    if (input.kind === 'task-start') {
      e.running.add(name);
      e.failed = undefined;
      if (input.task === 'do_rm_work') e.refilled = false;
      else if (!input.setscene) {
        e.cleaned = false;
        e.refilled = false;
        e.found = undefined;
      } else if (e.cleaned || e.found === 'cleaned' || e.found === 'refilled') e.refilled = true;
    } else {
      e.running.delete(name);
      if (!input.ok) e.failed = `${input.task}${input.setscene ? '_setscene' : ''} failed`;
      else {
        e.done.add(input.task);
        if (input.task === 'do_rm_work') {
          e.cleaned = true;
          e.refilled = false;
          e.found = undefined;
        }
      }
    }
    this.settle(e, input.t, out);
  }

  /** A new PV of a recipe makes the untouched folders of its other versions stale. */
  private markOlderVersions(e: WorkdirEntry, t: number, out: StateChange[]): void {
    for (const other of this.entries.values()) {
      if (other === e || other.shared || other.id.arch !== e.id.arch || other.id.pn !== e.id.pn) continue;
      if (other.touched) continue;
      // Two folders found at attach time: the older one (by mtime) is the stale one.
      if (!e.touched && e.mtimeMs !== undefined && other.mtimeMs !== undefined && other.mtimeMs > e.mtimeMs) {
        e.staleReason = `older PV beside ${other.id.pv}`;
        continue;
      }
      other.staleReason = `older PV beside ${e.id.pv}`;
      this.settle(other, t, out);
    }
  }

  private endBuild(t: number, interrupted: boolean, out: StateChange[]): void {
    for (const e of this.entries.values()) {
      if (e.running.size > 0) {
        e.failed = `${[...e.running].join(', ')} ${interrupted ? 'interrupted' : 'never finished'}`;
        e.running.clear();
      }
      // Untouched is not "not in this build": a recipe whose stamps cover it runs no task. A
      // kernel or RM_WORK_EXCLUDE dir is kept on purpose; anything else left full is stale.
      if (!e.touched && !e.shared && (e.found === 'left' || e.found === 'new') && !e.staleReason)
        if (!this.excludedReason(e)) e.staleReason = 'no task of this build touched it';
      this.settle(e, t, out, false, true);
    }
  }

  private newEntry(id: WorkdirId, t: number): WorkdirEntry {
    const e: WorkdirEntry = {
      id,
      state: 'active',
      since: t,
      running: new Set(),
      done: new Set(),
      touched: false,
      cleaned: false,
      refilled: false,
      kernel: looksLikeKernel(id.pn),
      shared: false,
    };
    this.entries.set(id.key, e);
    return e;
  }

  private settle(e: WorkdirEntry, t: number, out: StateChange[], isNew = false, buildEnded = false): void {
    const [state, reason] = this.stateOf(e, buildEnded);
    if (!isNew && state === e.state && reason === e.reason) return;
    const change: StateChange = { t, id: e.id, state };
    if (reason !== undefined) change.reason = reason;
    if (!isNew) change.from = e.state;
    e.state = state;
    e.reason = reason;
    e.since = t;
    out.push(change);
  }

  private stateOf(e: WorkdirEntry, buildEnded: boolean): [WorkdirState, string | undefined] {
    if (e.shared) return ['work-shared', 'never cleaned by rm_work'];
    if (e.running.size > 0) return ['active', [...e.running].join(', ')];
    if (e.failed) return ['failed', e.failed];
    if (e.staleReason) return ['stale', e.staleReason];
    const excluded = this.excludedReason(e);
    if (excluded) return ['excluded', excluded];
    if (e.refilled) return ['refilled', 'grew again after do_rm_work (setscene restores)'];
    if (e.cleaned || (!e.touched && e.found === 'cleaned')) return ['cleaned', undefined];
    if (!e.touched && e.found === 'refilled') return ['refilled', 'grew again after do_rm_work'];
    if (!e.touched && e.found === 'new' && !buildEnded) return ['active', 'created'];
    if (!e.touched)
      return ['stale', buildEnded ? 'no task of this build touched it' : 'left by an earlier build'];
    const norm = this.cfg.rmWork ? undefined : 'finished; rm_work is not in INHERIT';
    if (deliverablesDone(e.id.pn, e.id.arch, e.done)) return ['waiting-rm-work', norm];
    if (buildEnded) return ['waiting-rm-work', norm ?? 'the build ended before do_rm_work'];
    return ['active', 'between tasks'];
  }

  private excludedReason(e: WorkdirEntry): string | undefined {
    if (!this.cfg.rmWork) return undefined;
    if (this.cfg.rmWorkExclude.includes(e.id.pn)) return 'in RM_WORK_EXCLUDE';
    if (e.kernel) return 'kernel recipe (rm_work keeps kernels)';
    return undefined;
  }
}
