// The live picture the display renders: fill, forecast, the biggest work dirs, warnings.

import type { SummaryBuilder } from '../timeline/summary.js';
import type { TimelineSample, WorkdirState } from '../timeline/timeline-types.js';
import { type Forecast, forecastFill } from './forecast.js';
import type { Sampler } from './sampler.js';
import type { WorkdirStates } from './states.js';

export interface WatchViewDir {
  workdir: string;
  pn: string;
  state: WorkdirState;
  reason?: string;
  bytes: number;
  /** Epoch ms it entered its state. */
  since: number;
  running: string[];
}

export interface WatchView {
  t: number;
  fs?: TimelineSample['fs'];
  /** Only while a build runs: with none, the slope is other processes' disk activity. */
  forecast?: Forecast;
  /** No build running (no task running, no build between its start and end). */
  idle: boolean;
  /** Biggest first, at most `TOP_DIRS`. */
  top: WatchViewDir[];
  counts: Partial<Record<WorkdirState, number>>;
  waitingBytes: number;
  heldGiBMin: number;
  enospc: boolean;
  log?: string;
  /** The running task of the fastest writer, e.g. 'webkitgtk/do_compile'. */
  topWriterTask?: string;
}

const TOP_DIRS = 8;

export function buildView(
  states: WorkdirStates,
  sampler: Sampler,
  summary: SummaryBuilder,
  enospc: boolean,
  log: string | undefined,
): WatchView {
  const dirs: WatchViewDir[] = [];
  const counts: WatchView['counts'] = {};
  let waitingBytes = 0;
  for (const e of states.entries.values()) {
    counts[e.state] = (counts[e.state] ?? 0) + 1;
    const bytes = sampler.bytes.get(e.id.key) ?? 0;
    if (e.state === 'waiting-rm-work') waitingBytes += bytes;
    const dir: WatchViewDir = {
      workdir: e.id.key,
      pn: e.id.pn,
      state: e.state,
      bytes,
      since: e.since,
      running: [...e.running],
    };
    if (e.reason !== undefined) dir.reason = e.reason;
    dirs.push(dir);
  }
  dirs.sort((a, b) => b.bytes - a.bytes);
  const last = sampler.history[sampler.history.length - 1];
  const idle = !states.building && dirs.every((d) => d.running.length === 0);
  const view: WatchView = {
    idle,
    t: last?.t ?? Date.now(),
    top: dirs.slice(0, TOP_DIRS),
    counts,
    waitingBytes,
    heldGiBMin: summary.heldGiBMin,
    enospc,
  };
  if (sampler.lastFs) view.fs = sampler.lastFs;
  const forecast = idle ? undefined : forecastFill(sampler.history);
  if (forecast) {
    view.forecast = forecast;
    const writer = forecast.topWriter && states.entries.get(forecast.topWriter.workdir);
    if (writer) view.topWriterTask = `${writer.id.pn}/${[...writer.running][0] ?? writer.state}`;
  }
  if (log !== undefined) view.log = log;
  return view;
}
