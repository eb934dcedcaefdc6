// Recorded runs as plan, steps and the prediction read them: every `*.jsonl` under
// `${TOPDIR}/rambake/runs/`, read by the one timeline reader (timeline-file.ts) and reduced to
// one typed model. Peaks are the larger of the summary line and the samples, so a run read by
// `plan` and by `steps` gives the same figures.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { baselineBytes, ownFileSystem } from './run-baseline.js';
import { readTimeline, type Timeline } from './timeline-file.js';
import type { TimelineHeader } from './timeline-types.js';

/** One task run as the watcher saw it (`do_x`, or `do_x_setscene`), epoch ms. */
export interface RunTaskSpan {
  pn: string;
  task: string;
  start: number;
  end: number;
}

export interface RecordedRun {
  file: string;
  header?: TimelineHeader;
  /** BitBake's targets in the recorded command (every one of them, in order). */
  targets: string[];
  /** Epoch ms of the first and last line with a time. */
  startedAt: number;
  endedAt: number;
  /** The summary line was there (false: a killed watcher, figures recomputed from samples). */
  summarised: boolean;
  /** Used bytes of the TMPDIR file system over time. */
  samples: { t: number; used: number }[];
  /** Task starts and ends from the watcher's events. */
  spans: RunTaskSpan[];
  /** Most bytes and inodes used on the TMPDIR file system. */
  peakBytes: number;
  peakInodes: number;
  /** Largest sum of live work-dir sizes in one sample (what a WORKDIR-only tmpfs must hold). */
  peakWorkBytes: number;
  /** TMPDIR had a file system of its own (a tmpfs): `peakBytes` is TMPDIR alone. */
  onTmpfs: boolean;
  /** What a shared disk held that was not the run's (run-baseline.ts); 0 on a tmpfs of its own. */
  baselineBytes: number;
  /** tmpfs size= of the run, when it was on a tmpfs. */
  sizeBytes?: number;
  /** Peak bytes per work dir `<arch>/<pn>/<pv>`. */
  workdirPeaks: Record<string, number>;
  /** ENOSPC seen: the run's peak is a floor, not the true need. */
  enospc: boolean;
  /** Lines that were not JSON (a torn last line of a killed watcher is one). */
  skippedLines: number;
}

/** Where `rambake run` and `rambake watch` record runs. */
export function runsDir(topdir: string): string {
  return join(topdir, 'rambake', 'runs');
}

/**
 * BitBake's targets in a command line: every word after `bitbake` that is neither an option
 * nor an option's value.
 *   ['bitbake', '-k', 'a', 'b'] → ['a', 'b'];  ['bitbake', '-c', 'fetch', 'a'] → ['a']
 */
export function commandTargets(command: readonly string[] | undefined): string[] {
  if (!command) return [];
  const at = command.findIndex((a) => /(^|\/)bitbake$/.test(a));
  const args = at < 0 ? command : command.slice(at + 1);
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    // argparse's end of options: every word after it is a target, a leading `-` included.
    if (a === '--') {
      out.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('-')) {
      if (TAKES_VALUE.has(a)) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** bitbake's options that take the next word as their value (bitbake --help, 2.15). */
const TAKES_VALUE = new Set([
  '-c',
  '--cmd',
  '-b',
  '--buildfile',
  '-r',
  '--read',
  '-R',
  '--postread',
  '-l',
  '--log-domains',
  '-u',
  '--ui',
  '-I',
  '--ignore-deps',
  '-S',
  '--dump-signatures',
  '-C',
  '--clear-stamp',
  '-P',
  '--profile',
  '-w',
  '--write-log',
  '--token',
  '--runall',
  '--runonly',
  '-B',
  '--bind',
  '-T',
  '--idle-timeout',
  '--mc-provider',
  '--remote-server',
]);

/** Pure: a parsed timeline as the run model. */
export function recordedRunFrom(tl: Timeline, file: string): RecordedRun {
  const header = tl.header;
  const onTmpfs = ownFileSystem(header);
  const run: RecordedRun = {
    file,
    ...(header ? { header } : {}),
    // A run in steps builds its targets in its last command (`command` is every step joined).
    targets: commandTargets(header?.steps?.at(-1) ?? header?.command),
    startedAt: Date.parse(header?.startedAt ?? '') || (tl.samples[0]?.t ?? 0),
    endedAt: 0,
    summarised: !tl.recomputed,
    samples: tl.samples.map((s) => ({ t: s.t, used: s.fs.usedBytes })),
    spans: [],
    peakBytes: tl.summary.peak.bytes,
    peakInodes: tl.summary.peak.inodes,
    peakWorkBytes: 0,
    onTmpfs,
    baselineBytes: baselineBytes(onTmpfs, tl.samples[0]),
    ...(onTmpfs && header?.tmpfs.sizeBytes !== undefined ? { sizeBytes: header.tmpfs.sizeBytes } : {}),
    workdirPeaks: { ...tl.summary.workdirPeaks },
    enospc: tl.events.some((e) => e.type === 'enospc'),
    skippedLines: tl.skipped.length,
  };
  for (const s of tl.samples) {
    run.peakBytes = Math.max(run.peakBytes, s.fs.usedBytes);
    run.peakInodes = Math.max(run.peakInodes, s.fs.usedInodes);
    let sum = 0;
    for (const [dir, bytes] of Object.entries(s.workdirs ?? {})) {
      sum += bytes;
      run.workdirPeaks[dir] = Math.max(run.workdirPeaks[dir] ?? 0, bytes);
    }
    run.peakWorkBytes = Math.max(run.peakWorkBytes, sum);
    run.endedAt = Math.max(run.endedAt, s.t);
  }
  const open = new Map<string, number>();
  for (const e of tl.events) {
    run.endedAt = Math.max(run.endedAt, e.t);
    if (e.type !== 'task-start' && e.type !== 'task-end') continue;
    const task = e.setscene ? `${e.task}_setscene` : e.task;
    const key = `${e.pn}:${task}`;
    if (e.type === 'task-start') open.set(key, e.t);
    else {
      run.spans.push({ pn: e.pn, task, start: open.get(key) ?? e.t, end: e.t });
      open.delete(key);
    }
  }
  return run;
}

export async function readRecordedRun(file: string): Promise<RecordedRun> {
  return recordedRunFrom(await readTimeline(file), file);
}

/** Every recorded run, oldest first (file names are start times); [] when there is none. */
export async function readRecordedRuns(topdir: string): Promise<RecordedRun[]> {
  const dir = runsDir(topdir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const files = names.filter((n) => n.endsWith('.jsonl')).sort();
  // A run removed since the listing is skipped; anything else unreadable is reported.
  const runs = await Promise.all(
    files.map((n) =>
      readRecordedRun(join(dir, n)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      }),
    ),
  );
  return runs.filter((r): r is RecordedRun => r !== undefined).sort((a, b) => a.startedAt - b.startedAt);
}
