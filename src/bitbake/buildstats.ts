import { readdirSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { RefusedFileError } from '../errors.js';
import { type ReadKind, readTextSync } from '../system/read-file.js';

// Pure parsers of buildstats files (meta/classes-global/buildstats.bbclass). A task file grows
// in two writes: the first two lines when the task starts, the rest when it ends, so a file
// with only `Event:`/`Started:` is a task still running (or a setscene task that failed).
// Several lines end in a blank ("Started: 1764512345.67 "): values are trimmed.

export type TaskStatus = 'PASSED' | 'FAILED';

export interface BuildstatsTask {
  pf: string;
  /** `do_x` without `_setscene`. */
  task: string;
  setscene: boolean;
  /** Epoch seconds. */
  started?: number;
  ended?: number;
  /** Seconds, as BitBake measured them. */
  elapsed?: number;
  status?: TaskStatus;
  /** Clock ticks from /proc/<pid>/stat. */
  utime?: number;
  stime?: number;
  cutime?: number;
  cstime?: number;
  /** /proc/<pid>/io keys (rchar, wchar, read_bytes, …). */
  io: Record<string, number>;
  /** getrusage(RUSAGE_SELF): ru_utime, ru_maxrss (KiB), … */
  rusage: Record<string, number>;
  /** getrusage(RUSAGE_CHILDREN). */
  childRusage: Record<string, number>;
  /** `Key: value` lines this parser does not know, kept as text. */
  other: Record<string, string>;
  /** The task finished: a Status or Ended line is present. */
  complete: boolean;
  /** Lines that are not `key: value`, for diagnostics. */
  skipped: string[];
}

const SETSCENE = '_setscene';
const TIME_KEYS = new Set(['utime', 'stime', 'cutime', 'cstime']);

/** Splits `do_package_setscene` into `{ task: 'do_package', setscene: true }`. */
export function splitTaskName(name: string): { task: string; setscene: boolean } {
  return name.endsWith(SETSCENE)
    ? { task: name.slice(0, -SETSCENE.length), setscene: true }
    : { task: name, setscene: false };
}

/**
 * Parses one task file. `where` is the PF folder and file name, needed because a running
 * task's file does not name them yet.
 *   'Child rusage ru_maxrss: 51200 ' → childRusage.ru_maxrss = 51200
 *   'zlib-1.3.1-r0: do_compile'      → pf 'zlib-1.3.1-r0', task 'do_compile'
 */
export function parseBuildstatsTask(text: string, where?: { pf: string; taskFile: string }): BuildstatsTask {
  const named = splitTaskName(where?.taskFile ?? '');
  const record: BuildstatsTask = {
    pf: where?.pf ?? '',
    task: named.task,
    setscene: named.setscene,
    io: {},
    rusage: {},
    childRusage: {},
    other: {},
    complete: false,
    skipped: [],
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const colon = line.indexOf(': ');
    const key = colon < 0 ? (line.endsWith(':') ? line.slice(0, -1) : '') : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 2).trim();
    if (key === '' || !applyLine(record, key, value)) record.skipped.push(raw);
  }
  return record;
}

function applyLine(r: BuildstatsTask, key: string, value: string): boolean {
  switch (key) {
    case 'Event':
      return value !== '';
    case 'Started':
      return setNumber(value, (n) => {
        r.started = n;
      });
    case 'Ended':
      r.complete = true;
      return setNumber(value, (n) => {
        r.ended = n;
      });
    case 'Elapsed time':
      return setNumber(value.replace(/\s*seconds$/, ''), (n) => {
        r.elapsed = n;
      });
    case 'Status':
      if (value !== 'PASSED' && value !== 'FAILED') return false;
      r.status = value;
      r.complete = true;
      return true;
  }
  if (TIME_KEYS.has(key)) {
    return setNumber(value, (n) => {
      r[key as 'utime'] = n;
    });
  }
  const space = key.indexOf(' ');
  const group = space < 0 ? '' : key.slice(0, space);
  if (group === 'IO') return setIn(r.io, key.slice('IO '.length), value);
  if (group === 'rusage') return setIn(r.rusage, key.slice('rusage '.length), value);
  if (key.startsWith('Child rusage ')) return setIn(r.childRusage, key.slice('Child rusage '.length), value);
  // The third line names the task: `<PF>: do_x` (a PF has no blanks).
  if (space < 0 && value.startsWith('do_') && !value.includes(' ')) {
    r.pf = key;
    const named = splitTaskName(value);
    r.task = named.task;
    r.setscene = named.setscene;
    return true;
  }
  if (/^[A-Za-z][\w ]*$/.test(key)) {
    r.other[key] = value;
    return true;
  }
  return false;
}

function setIn(into: Record<string, number>, key: string, value: string): boolean {
  return setNumber(value, (n) => {
    into[key] = n;
  });
}

function setNumber(value: string, set: (n: number) => void): boolean {
  if (value === '') return false;
  const n = Number(value);
  if (!Number.isFinite(n)) return false;
  set(n);
  return true;
}

export interface BuildStats {
  /** `platform.uname()` fields joined by blanks. */
  hostInfo?: string;
  /** Epoch seconds. */
  started?: number;
  /** `du -sh` output of each image's rootfs, as written (e.g. `412M\t/…/rootfs`). */
  rootfsSizes: string[];
  failedAt: { pf: string; task: string }[];
  elapsed?: number;
  cpuPercent?: number;
  skipped: string[];
}

type LineRule = [RegExp, (stats: BuildStats, m: RegExpExecArray) => void];

const BUILD_STATS_LINES: LineRule[] = [
  [
    /^Host Info:\s*(.*)$/,
    (s, m) => {
      s.hostInfo = m[1]!.trim();
    },
  ],
  [
    /^Build Started: ([\d.]+)$/,
    (s, m) => {
      s.started = Number(m[1]);
    },
  ],
  [/^Uncompressed Rootfs size:\s*(.*)$/, (s, m) => s.rootfsSizes.push(m[1]!)],
  [/^Failed at: (\S+) at task: (\S+)$/, (s, m) => s.failedAt.push({ pf: m[1]!, task: m[2]! })],
  [
    /^Elapsed time: ([\d.]+) seconds$/,
    (s, m) => {
      s.elapsed = Number(m[1]);
    },
  ],
  [
    /^CPU usage: ([\d.]+)%$/,
    (s, m) => {
      s.cpuPercent = Number(m[1]);
    },
  ],
];

function applyMatch(re: RegExp, line: string, apply: (m: RegExpExecArray) => void): boolean {
  const m = re.exec(line);
  if (m) apply(m);
  return m !== null;
}

/**
 * Parses `${BUILDSTATS_BASE}/<BUILDNAME>/build_stats`.
 *   'Failed at: zlib-1.3.1-r0 at task: do_compile ' → failedAt [{ pf: 'zlib-1.3.1-r0', task: 'do_compile' }]
 *   'CPU usage: 812.5% ' → cpuPercent 812.5
 */
export function parseBuildStats(text: string): BuildStats {
  const stats: BuildStats = { rootfsSizes: [], failedAt: [], skipped: [] };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line !== '' && !BUILD_STATS_LINES.some(([re, apply]) => applyMatch(re, line, (m) => apply(stats, m))))
      stats.skipped.push(raw);
  }
  return stats;
}

export interface DiskSample {
  /** Epoch seconds. */
  time: number;
  /** Used bytes per device (BB_DISKMON names devices by their /proc/mounts source). */
  used: Record<string, number>;
}

/**
 * Parses `monitor_disk.log`: a time line, then `<device>: <used bytes>` lines.
 *   '1764512345' then 'tmpfs: 1073741824' → [{ time: 1764512345, used: { tmpfs: 1073741824 } }]
 */
export function parseMonitorDisk(text: string): DiskSample[] {
  const samples: DiskSample[] = [];
  let current: DiskSample | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (/^\d+(\.\d+)?$/.test(line)) {
      current = { time: Number(line), used: {} };
      samples.push(current);
      continue;
    }
    const m = /^(.+): (\d+)$/.exec(line);
    if (m && current) current.used[m[1]!] = Number(m[2]);
  }
  return samples;
}

// ---- readers (the only fs access in this module) ----

export interface BuildstatsBuild {
  /** BUILDNAME, the folder name. */
  name: string;
  dir: string;
  buildStats?: BuildStats;
  monitorDisk?: DiskSample[];
  /** Sorted by start time, then PF and task; tasks without a start time last. */
  tasks: BuildstatsTask[];
  /** Files that could not be read (vanished mid-read, permissions). */
  unreadable: { path: string; error: string }[];
}

export interface ReadBuildstatsOptions {
  /** Called per task as it is parsed (folder order), before the sorted result. */
  onTask?: (task: BuildstatsTask) => void;
  /** Longest stretch of synchronous reading before yielding to the event loop, in ms. */
  sliceMs?: number;
}

/**
 * Reads `${BUILDSTATS_BASE}/<BUILDNAME>/`: build_stats, monitor_disk.log and every
 * `<PF>/<task>` file. Task files are a few hundred bytes each and a big build has 50,000 of
 * them: a thread-pool round trip per file (fs/promises, or a pool of callback reads) costs
 * about three times the synchronous read itself, so files are read synchronously one PF folder
 * at a time, yielding to the event loop every `sliceMs` so watchers and timers keep running.
 */
export async function readBuildstatsBuild(
  dir: string,
  options: ReadBuildstatsOptions = {},
): Promise<BuildstatsBuild> {
  const build: BuildstatsBuild = { name: basename(dir), dir, tasks: [], unreadable: [] };
  const entries = await readdir(dir, { withFileTypes: true });
  const sliceMs = options.sliceMs ?? 10;
  let sliceStart = performance.now();
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === 'build_stats')
      build.buildStats = parseBuildStats(readOrNote(build, path, 'index') ?? '');
    else if (entry.isFile() && entry.name === 'monitor_disk.log')
      build.monitorDisk = parseMonitorDisk(readOrNote(build, path, 'index') ?? '');
    else if (entry.isDirectory() && !entry.name.startsWith('reduced_proc'))
      readPfFolder(build, entry.name, options);
    if (performance.now() - sliceStart > sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  build.tasks.sort(compareTasks);
  return build;
}

function readPfFolder(build: BuildstatsBuild, pf: string, options: ReadBuildstatsOptions): void {
  const folder = join(build.dir, pf);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (err) {
    build.unreadable.push({ path: folder, error: errorText(err) });
    return;
  }
  for (const taskFile of names) {
    const text = readOrNote(build, join(folder, taskFile));
    if (text === undefined) continue;
    const task = parseBuildstatsTask(text, { pf, taskFile });
    build.tasks.push(task);
    options.onTask?.(task);
  }
}

// A file may vanish between listing and reading (a build still running, a cleanup): noted. A
// FIFO, a device or a /proc file among the records is refused (system/read-file.ts).
function readOrNote(build: BuildstatsBuild, path: string, kind: ReadKind = 'record'): string | undefined {
  try {
    const text = readTextSync(path, kind);
    if (text === undefined) build.unreadable.push({ path, error: 'vanished while being read' });
    return text;
  } catch (err) {
    if (err instanceof RefusedFileError) throw err;
    build.unreadable.push({ path, error: errorText(err) });
    return undefined;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function compareTasks(a: BuildstatsTask, b: BuildstatsTask): number {
  const sa = a.started ?? Number.POSITIVE_INFINITY;
  const sb = b.started ?? Number.POSITIVE_INFINITY;
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (a.pf !== b.pf) return a.pf < b.pf ? -1 : 1;
  return a.task < b.task ? -1 : a.task > b.task ? 1 : Number(a.setscene) - Number(b.setscene);
}

export interface BuildstatsBuildRef {
  /** BUILDNAME: `YYYYmmddHHMMSS`, UTC at build start. */
  name: string;
  dir: string;
  /** Epoch ms of the build start, from the name. */
  startedAt: number;
}

/** BUILDNAME folders under BUILDSTATS_BASE, oldest first (newest last); [] when there are none. */
export async function listBuilds(buildstatsBase: string): Promise<BuildstatsBuildRef[]> {
  const entries = await readdir(buildstatsBase, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && /^\d{14}$/.test(e.name))
    .map((e) => ({ name: e.name, dir: join(buildstatsBase, e.name), startedAt: buildNameToEpochMs(e.name) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** '20251130142627' (UTC) → Date.UTC(2025, 10, 30, 14, 26, 27). */
export function buildNameToEpochMs(name: string): number {
  const n = (from: number, to: number) => Number(name.slice(from, to));
  return Date.UTC(n(0, 4), n(4, 6) - 1, n(6, 8), n(8, 10), n(10, 12), n(12, 14));
}
