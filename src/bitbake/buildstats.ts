import { closeSync, constants, type Dirent, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { RefusedFileError } from '../errors.js';
import { type ReadKind, readTextSync, realFsDevice } from '../system/read-file.js';
import { type BuildstatsTask, parseBuildstatsBytes, parseBuildstatsTask } from './buildstats-task.js';
import { READ_LIMIT, type ReadBatch, readInWorker } from './buildstats-worker.js';

// Pure parsers of the buildstats folder's files (meta/classes-global/buildstats.bbclass) and
// its reader; one task file's parser is in buildstats-task.ts.

export {
  type BuildstatsTask,
  parseBuildstatsBytes,
  parseBuildstatsTask,
  splitTaskName,
  type TaskStatus,
} from './buildstats-task.js';

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
  /** Called per task as it is parsed (in read order), before the sorted result. */
  onTask?: (task: BuildstatsTask) => void;
  /** Longest stretch of synchronous reading before yielding to the event loop, in ms. */
  sliceMs?: number;
  /**
   * Whether a worker thread reads part of the folders (buildstats-worker.ts). Default: when there
   * are WORKER_MIN_FOLDERS PF folders or more and two CPUs or more.
   */
  worker?: boolean;
}

/** Below this many PF folders (~10 task files each) starting a worker costs more than it saves. */
export const WORKER_MIN_FOLDERS = 200;

/**
 * Reads `${BUILDSTATS_BASE}/<BUILDNAME>/`: build_stats, monitor_disk.log and every
 * `<PF>/<task>` file. Task files are a few hundred bytes each and a big build has 50,000 of
 * them. Files are read synchronously, one PF folder at a time, yielding to the event loop every
 * `sliceMs` so watchers and timers keep running (a thread-pool round trip per file, fs/promises
 * or a pool of callback reads, costs about three times the synchronous read itself). From
 * WORKER_MIN_FOLDERS PF folders on, with two CPUs or more, a worker thread reads part of the
 * folders meanwhile and this thread parses what it hands over (buildstats-worker.ts); if the
 * worker fails, its folders are read here.
 */
export async function readBuildstatsBuild(
  dir: string,
  options: ReadBuildstatsOptions = {},
): Promise<BuildstatsBuild> {
  const build: BuildstatsBuild = { name: basename(dir), dir, tasks: [], unreadable: [] };
  const entries = await readdir(dir, { withFileTypes: true });
  const folders: string[] = [];
  // A path is joined only for the two files read here: joined for each of 5,000 entries this
  // loop took 22 ms in a new process, and 5 ms without (12-07, the loop timed alone).
  for (const entry of entries) {
    if (entry.isFile() && entry.name === 'build_stats')
      build.buildStats = parseBuildStats(readOrNote(build, join(dir, entry.name), 'index') ?? '');
    else if (entry.isFile() && entry.name === 'monitor_disk.log')
      build.monitorDisk = parseMonitorDisk(readOrNote(build, join(dir, entry.name), 'index') ?? '');
    else if (entry.isDirectory() && !entry.name.startsWith('reduced_proc')) folders.push(entry.name);
  }
  const worker = options.worker ?? (folders.length >= WORKER_MIN_FOLDERS && availableParallelism() > 1);
  const device = realFsDevice(dir);
  if (worker) await readWithWorker(build, folders, options, device);
  else await readInThread(build, folders, options, device);
  build.tasks.sort(compareTasks);
  return build;
}

/** Reads the folders `claim` hands out, in order by default, yielding every `sliceMs`. */
async function readInThread(
  build: BuildstatsBuild,
  folders: string[],
  options: ReadBuildstatsOptions,
  device: number | undefined,
  between?: () => void,
  claim: () => number = counter(),
) {
  const sliceMs = options.sliceMs ?? 10;
  let sliceStart = performance.now();
  for (let f = claim(); f < folders.length; f = claim()) {
    readPfFolder(build, folders[f]!, options, device);
    between?.();
    if (performance.now() - sliceStart > sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

const counter = () => {
  let next = 0;
  return () => next++;
};

/**
 * The worker and this thread claim folders one at a time from a shared counter: this thread
 * parses the worker's batches as they come, between its own folders, and reads what the worker
 * left. Who reads how much follows how fast each goes, GC pauses, a cold parser and a busy core
 * included (12-07, a fixed 65 % to the worker: this thread idle 0–320 ms at the end of a new
 * process's read of 50,000 files, waiting for the worker's last batch).
 */
async function readWithWorker(
  build: BuildstatsBuild,
  folders: string[],
  options: ReadBuildstatsOptions,
  device: number | undefined,
) {
  const claims = new Int32Array(new SharedArrayBuffer(4));
  const mine = new Uint8Array(folders.length);
  const claim = () => {
    const f = Atomics.add(claims, 0, 1);
    if (f < folders.length) mine[f] = 1;
    return f;
  };
  // The worker's part is kept apart until it ended cleanly: if it fails, its folders are read again.
  const side: BuildstatsBuild = { ...build, tasks: [], unreadable: [] };
  const quiet: ReadBuildstatsOptions = { ...options, onTask: undefined };
  const left: [number, string][] = [];
  let leftRead = 0;
  // Refusals are thrown from here, on this thread's stack, never from the message handler.
  const readLeft = () => {
    for (; leftRead < left.length; leftRead++) {
      const [index, name] = left[leftRead]!;
      if (name === '') readPfFolder(side, folders[index]!, quiet, device);
      else readEntry(side, folders[index]!, name, quiet);
    }
  };
  let wake: (() => void) | undefined;
  const reading = readInWorker(build.dir, folders, device, claims, (batch: ReadBatch) => {
    let from = 0;
    for (let i = 0; i < batch.lengths.length; i++) {
      const to = from + batch.lengths[i]!;
      const where = { pf: folders[batch.folders[i]!]!, taskFile: batch.names[i]! };
      side.tasks.push(parseBuildstatsBytes(batch.bytes, to, where, from));
      from = to;
    }
    for (const entry of batch.left) left.push(entry);
    wake?.();
  });
  let clean = false;
  let ended = false;
  void reading.done.then((ok) => {
    clean = ok;
    ended = true;
    wake?.();
  });
  try {
    await readInThread(build, folders, options, device, readLeft, claim);
    while (!ended) {
      readLeft();
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    if (clean) readLeft();
  } catch (err) {
    // A refused file ends this thread's reading, and the worker's with it.
    await reading.stop();
    throw err;
  }
  if (!clean) {
    await readInThread(
      build,
      folders.filter((_, f) => mine[f] === 0),
      options,
      device,
    );
    return;
  }
  for (const task of side.tasks) {
    build.tasks.push(task);
    options.onTask?.(task);
  }
  build.unreadable.push(...side.unreadable);
}

function readPfFolder(
  build: BuildstatsBuild,
  pf: string,
  options: ReadBuildstatsOptions,
  device: number | undefined,
): void {
  const folder = join(build.dir, pf);
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (err) {
    build.unreadable.push({ path: folder, error: errorText(err) });
    return;
  }
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    // Files listed as regular are read in one bounded read. The first stands for the folder (a
    // real file system, not procfs): it is read so only when fstat puts it on the build folder's
    // device, checked once (realFsDevice); else, as any other entry, by the checked reader.
    if (!entry.isFile() || (i === 0 && device === undefined)) {
      readEntry(build, pf, entry.name, options);
      continue;
    }
    const length = readSmall(build, `${folder}/${entry.name}`, i === 0 ? device : undefined);
    if (length === -2) continue; // noted as unreadable
    if (length === -1) {
      readEntry(build, pf, entry.name, options); // too big for one read, or not on the device
      continue;
    }
    const task = parseBuildstatsBytes(SMALL, length, { pf, taskFile: entry.name });
    build.tasks.push(task);
    options.onTask?.(task);
  }
}

/** One entry through the checked reader: noted when it vanished or cannot be read, refused when special. */
function readEntry(build: BuildstatsBuild, pf: string, name: string, options: ReadBuildstatsOptions): void {
  const text = readOrNote(build, join(build.dir, pf, name));
  if (text === undefined) return;
  const task = parseBuildstatsTask(text, { pf, taskFile: name });
  build.tasks.push(task);
  options.onTask?.(task);
}

// Task files are 1–3 kB: open, one read into a reused buffer, close (no stat but a folder's first file's fstat, no
// allocation). O_NONBLOCK: a FIFO swapped in since the listing cannot block; a file that fills the buffer or is not
// on the checked device is read again through the checked reader (12-05: 2,250 first files read checked cost this
// thread a statSync, a string and a copy each).
const SMALL = Buffer.allocUnsafe(READ_LIMIT);
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Bytes read into SMALL; -1: too big for it or, given `device`, not a regular file on it (read it checked); -2: unreadable (noted). */
function readSmall(build: BuildstatsBuild, path: string, device?: number): number {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const error = code === 'ENOENT' || code === 'ENOTDIR' ? 'vanished while being read' : errorText(err);
    build.unreadable.push({ path, error });
    return -2;
  }
  try {
    if (device !== undefined && !onDevice(fd, device)) return -1;
    const n = readSync(fd, SMALL, 0, SMALL.length, 0);
    return n < SMALL.length ? n : -1;
  } catch (err) {
    build.unreadable.push({ path, error: errorText(err) });
    return -2;
  } finally {
    closeSync(fd);
  }
}

function onDevice(fd: number, device: number): boolean {
  const st = fstatSync(fd);
  return st.isFile() && st.dev === device;
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
