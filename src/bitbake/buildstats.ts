import { closeSync, constants, type Dirent, openSync, readdirSync, readSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { RefusedFileError } from '../errors.js';
import { openFifoPipes } from '../system/fifo-pipe.js';
import { type ReadKind, readTextSync } from '../system/read-file.js';
import { HEAD_LIMIT, headUsable, readFoldersWithHead } from './buildstats-head.js';
import { type BuildstatsTask, parseBuildstatsBytes, parseBuildstatsTask } from './buildstats-task.js';

// Pure parsers of the buildstats folder's files (meta/classes-global/buildstats.bbclass) and
// its reader; one task file's parser is in buildstats-task.ts.

export {
  type BuildstatsTask,
  IO_KEYS,
  parseBuildstatsBytes,
  parseBuildstatsTask,
  RUSAGE_KEYS,
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
   * Processes reading task files at once (buildstats-head.ts); 1 reads in this thread. Default:
   * the usable CPUs up to 4 when there are HEAD_MIN_FOLDERS PF folders or more, else 1.
   */
  processes?: number;
}

/** Below this many PF folders (~10 task files each) starting processes costs more than it saves. */
export const HEAD_MIN_FOLDERS = 200;
/** PF folders per find process at most, to stay far below the kernel's limit on arguments. */
const HEAD_BATCH_FOLDERS = 5000;

/**
 * Reads `${BUILDSTATS_BASE}/<BUILDNAME>/`: build_stats, monitor_disk.log and every
 * `<PF>/<task>` file. Task files are a few hundred bytes each and a big build has 50,000 of
 * them. From HEAD_MIN_FOLDERS PF folders on (and with two CPUs or more), find and head
 * processes read them, several at once, and this thread parses what they print
 * (buildstats-head.ts). Otherwise, and for any batch they could not read cleanly, files are
 * read here: synchronously, one PF folder at a time, yielding to the event loop every `sliceMs`
 * so watchers and timers keep running (a thread-pool round trip per file, fs/promises or a pool
 * of callback reads, costs about three times the synchronous read itself).
 *
 * Rejected (2026-12-04, 50,000 real-format files, 5,000 PF folders, quiet 2-core machine): a
 * worker thread reading 60 % of the folders into one transferred buffer while this thread reads
 * and parses the rest, then parses the worker's bytes: 831–1,130 ms against 866–914 ms on one
 * thread. Reads are 530 of the 720 ms, but two threads opening files in one tree slow each
 * other 1.6× (a read-only loop: 215 ms for 40 % alone, 353 ms beside the other thread), the
 * worker starts in 75–130 ms, and the parse stays on this thread; sending parsed tasks instead
 * costs 200 ms of structured clone per 25,000.
 */
export async function readBuildstatsBuild(
  dir: string,
  options: ReadBuildstatsOptions = {},
): Promise<BuildstatsBuild> {
  const build: BuildstatsBuild = { name: basename(dir), dir, tasks: [], unreadable: [] };
  const entries = await readdir(dir, { withFileTypes: true });
  const folders: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === 'build_stats')
      build.buildStats = parseBuildStats(readOrNote(build, path, 'index') ?? '');
    else if (entry.isFile() && entry.name === 'monitor_disk.log')
      build.monitorDisk = parseMonitorDisk(readOrNote(build, path, 'index') ?? '');
    else if (entry.isDirectory() && !entry.name.startsWith('reduced_proc')) folders.push(entry.name);
  }
  const processes =
    options.processes ?? (folders.length >= HEAD_MIN_FOLDERS ? Math.min(availableParallelism(), 4) : 1);
  if (processes > 1 && headUsable()) await readWithHead(build, folders, processes, options);
  else await readInThread(build, folders, options);
  build.tasks.sort(compareTasks);
  return build;
}

async function readInThread(build: BuildstatsBuild, folders: string[], options: ReadBuildstatsOptions) {
  const sliceMs = options.sliceMs ?? 10;
  let sliceStart = performance.now();
  for (const folder of folders) {
    readPfFolder(build, folder, options);
    if (performance.now() - sliceStart > sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

interface HeadOutcome {
  folders: string[];
  tasks: BuildstatsTask[];
  /** `<folder>/<name>` to read through the checked reader: not regular, or as big as head's limit. */
  checked: string[];
  /** The batch did not end cleanly: its folders are read in this thread. */
  failed: boolean;
}

/** Reads the folders in at least `processes` batches, all at once (buildstats-head.ts), and parses here. */
async function readWithHead(
  build: BuildstatsBuild,
  folders: string[],
  processes: number,
  options: ReadBuildstatsOptions,
): Promise<void> {
  // All batches start at once: a spawn from a Node process grown by the tasks already read
  // costs tens of ms (6 batches in turn: 240 ms of 1 s).
  const count = Math.max(processes, Math.ceil(folders.length / HEAD_BATCH_FOLDERS));
  const size = Math.ceil(folders.length / count);
  const outcomes: HeadOutcome[] = [];
  for (let i = 0; i < folders.length; i += size)
    outcomes.push({ folders: folders.slice(i, i + size), tasks: [], checked: [], failed: false });
  const pipes = openFifoPipes(outcomes.length);
  if (pipes === undefined) {
    await readInThread(build, folders, options);
    return;
  }
  const read = async (outcome: HeadOutcome, i: number): Promise<void> => {
    const clean = await readFoldersWithHead(
      build.dir,
      outcome.folders,
      pipes[i]!,
      (pf, taskFile, buf, from, to) => {
        if (buf === undefined || to - from >= HEAD_LIMIT) outcome.checked.push(`${pf}/${taskFile}`);
        else outcome.tasks.push(parseBuildstatsBytes(buf, to, { pf, taskFile }, from));
      },
    );
    outcome.failed = !clean;
  };
  await Promise.all(outcomes.map(read));
  // Refusals (a FIFO, a device) are thrown from here, once no process runs any more.
  for (const outcome of outcomes) {
    if (outcome.failed) {
      for (const folder of outcome.folders) readPfFolder(build, folder, options);
      continue;
    }
    for (const task of outcome.tasks) {
      build.tasks.push(task);
      options.onTask?.(task);
    }
    for (const entry of outcome.checked) {
      const slash = entry.indexOf('/');
      const text = readOrNote(build, join(build.dir, entry));
      if (text === undefined) continue;
      const task = parseBuildstatsTask(text, { pf: entry.slice(0, slash), taskFile: entry.slice(slash + 1) });
      build.tasks.push(task);
      options.onTask?.(task);
    }
  }
}

function readPfFolder(build: BuildstatsBuild, pf: string, options: ReadBuildstatsOptions): void {
  const folder = join(build.dir, pf);
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (err) {
    build.unreadable.push({ path: folder, error: errorText(err) });
    return;
  }
  for (const [i, entry] of entries.entries()) {
    const path = `${folder}/${entry.name}`;
    // The first file goes through the checked reader (regular, not on a kernel file system:
    // the folder's device); the others, listed as regular files, are read in one bounded read.
    const where = { pf, taskFile: entry.name };
    let task: BuildstatsTask;
    const length = i > 0 && entry.isFile() ? readSmall(build, path) : -1;
    if (length === -2) continue; // noted as unreadable
    if (length >= 0) task = parseBuildstatsBytes(SMALL, length, where);
    else {
      const text = readOrNote(build, path);
      if (text === undefined) continue;
      task = parseBuildstatsTask(text, where);
    }
    build.tasks.push(task);
    options.onTask?.(task);
  }
}

// Task files are 1–3 kB: open, one read into a reused buffer, close (no stat, no allocation). O_NONBLOCK: a FIFO
// swapped in since the listing cannot block; a file that fills the buffer is read again through the checked reader.
const SMALL = Buffer.allocUnsafe(64 * 1024);
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Bytes read into SMALL; -1: too big for it (read it checked), -2: unreadable (noted). */
function readSmall(build: BuildstatsBuild, path: string): number {
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
    const n = readSync(fd, SMALL, 0, SMALL.length, 0);
    return n < SMALL.length ? n : -1;
  } catch (err) {
    build.unreadable.push({ path, error: errorText(err) });
    return -2;
  } finally {
    closeSync(fd);
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
