// The one rule for reading a file rambake did not write itself: it must be a regular file on a
// real file system, it is opened without blocking, and it is read with a size limit suited to
// its kind. A FIFO would block a read for ever (bblayers.conf as a FIFO, `include /proc/kmsg`),
// a device or a /proc file never ends (`/dev/zero`, `/proc/self/pagemap`): each is refused with
// one line naming the file, before it is opened.

import {
  closeSync,
  constants,
  createReadStream,
  promises as fsp,
  fstatSync,
  openSync,
  type ReadStream,
  readSync,
  type Stats,
  statfsSync,
  statSync,
} from 'node:fs';
import { RefusedFileError } from '../errors.js';

export { RefusedFileError };

const MiB = 1024 * 1024;

/**
 * Size limits by kind, far above real files of that kind (local.conf ~20 kB, bitbake.conf
 * 40 kB, a buildstats entry 2–5 kB, state.json under 1 kB, poky's `bitbake -g` task-depends.dot
 * for core-image-sato ~30 MB). Console logs and timelines are streamed, never read whole.
 */
export const READ_LIMITS = {
  /** Conf files and their backups. */
  conf: 16 * MiB,
  /** rambake's own small files: state.json, the conf lock, saved results, saved_tmpdir. */
  state: 1 * MiB,
  /** One build record file: a buildstats entry, log.task_order, a stamp. */
  record: 4 * MiB,
  /** Big machine-written files read whole: sstate-control indexes, task-depends.dot, caches, saved scans, recorded runs. */
  index: 256 * MiB,
} as const;

export type ReadKind = keyof typeof READ_LIMITS;

// statfs f_type of the kernel's own file systems, whose "files" are state, not data.
const KERNEL_FS = new Map<number, string>([
  [0x9fa0, 'procfs'],
  [0x62656572, 'sysfs'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x27e0eb, 'cgroupfs'],
  [0x63677270, 'cgroup2fs'],
  [0x62656570, 'configfs'],
  [0xde5e81e4, 'efivarfs'],
  [0x42494e4d, 'binfmt_misc'],
]);

// One statfs per device, not per file: a buildstats folder holds 50,000 files on one device.
const fsTypeByDev = new Map<number, string | undefined>();
function kernelFs(path: string, dev: number): string | undefined {
  if (!fsTypeByDev.has(dev)) fsTypeByDev.set(dev, KERNEL_FS.get(statfsSync(path).type));
  return fsTypeByDev.get(dev);
}

/**
 * The device of the folder `path` when it is on a real file system, else undefined: a reader in
 * another thread takes a file found on that device as checked, once fstat says it is regular.
 */
export function realFsDevice(path: string): number | undefined {
  const st = statSync(path);
  return kernelFs(path, st.dev) === undefined ? st.dev : undefined;
}

// O_NONBLOCK: a FIFO swapped in between the check and the open still cannot block the open.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

const describe = (st: Stats): string =>
  st.isFIFO()
    ? 'a FIFO'
    : st.isCharacterDevice()
      ? 'a character device'
      : st.isBlockDevice()
        ? 'a block device'
        : st.isSocket()
          ? 'a socket'
          : st.isDirectory()
            ? 'a folder'
            : 'a special file';

/** Throws unless `st` (of `path`) is a regular file on a real file system, within `limit`. */
function checkRegular(path: string, st: Stats, limit: number): void {
  if (!st.isFile())
    throw new RefusedFileError(
      path,
      `${describe(st)}, not a regular file (refused: reading it could block or never end)`,
    );
  const fs = kernelFs(path, st.dev);
  if (fs !== undefined)
    throw new RefusedFileError(path, `a file of ${fs} (kernel state, not a build file): refused`);
  if (st.size > limit) throw tooLarge(path, limit);
}

const tooLarge = (path: string, limit: number) =>
  new RefusedFileError(path, `larger than ${limit / MiB} MiB, more than a file of this kind holds: refused`);

/** The opened file must be the one checked (not swapped for a FIFO or device in between). */
function checkSame(path: string, before: Stats, after: Stats): void {
  if (!after.isFile() || after.ino !== before.ino || after.dev !== before.dev) {
    throw new RefusedFileError(path, 'changed while being opened: refused');
  }
}

const missing = (err: unknown) => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

/** The bytes of a regular file, at most READ_LIMITS[kind]; undefined when it does not exist. */
export function readFileBoundedSync(path: string, kind: ReadKind): Buffer | undefined {
  const limit = READ_LIMITS[kind];
  let st: Stats;
  try {
    st = statSync(path);
  } catch (err) {
    if (missing(err)) return undefined;
    throw err;
  }
  checkRegular(path, st, limit);
  // No second fstat here (50,000 buildstats entries are read this way): a FIFO swapped in after
  // the check cannot block an O_NONBLOCK open or read, and a device is cut off at the limit.
  const fd = openSync(path, OPEN_FLAGS);
  try {
    return readToLimit(path, limit, st.size, (buf, at) => readSync(fd, buf, at, buf.length - at, null));
  } finally {
    closeSync(fd);
  }
}

/** The async form of readFileBoundedSync. */
export async function readFileBounded(path: string, kind: ReadKind): Promise<Buffer | undefined> {
  const limit = READ_LIMITS[kind];
  let st: Stats;
  try {
    st = await fsp.stat(path);
  } catch (err) {
    if (missing(err)) return undefined;
    throw err;
  }
  checkRegular(path, st, limit);
  const handle = await fsp.open(path, OPEN_FLAGS);
  try {
    checkSame(path, st, await handle.stat());
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(limit + 1 - total, Math.max(st.size + 1 - total, 64 * 1024)));
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total > limit) throw tooLarge(path, limit);
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

// A file can grow after fstat (a log being written): read until EOF, never past limit + 1.
function readToLimit(
  path: string,
  limit: number,
  size: number,
  read: (buf: Buffer, at: number) => number,
): Buffer {
  let buf = Buffer.allocUnsafe(Math.min(limit + 1, size + 1));
  let total = 0;
  for (;;) {
    if (total === buf.length) {
      if (total > limit) throw tooLarge(path, limit);
      const bigger = Buffer.allocUnsafe(Math.min(limit + 1, Math.max(buf.length * 2, 64 * 1024)));
      buf.copy(bigger, 0, 0, total);
      buf = bigger;
    }
    const asked = buf.length - total;
    const n = read(buf, total);
    total += n;
    // A short read of a regular file is its end (one read for a file that did not grow).
    if (n < asked) break;
  }
  if (total > limit) throw tooLarge(path, limit);
  return buf.subarray(0, total);
}

/** Text of a regular file (utf8 unless told), bounded; undefined when it does not exist. */
export function readTextSync(
  path: string,
  kind: ReadKind,
  encoding: BufferEncoding = 'utf8',
): string | undefined {
  return readFileBoundedSync(path, kind)?.toString(encoding);
}

export async function readText(
  path: string,
  kind: ReadKind,
  encoding: BufferEncoding = 'utf8',
): Promise<string | undefined> {
  return (await readFileBounded(path, kind))?.toString(encoding);
}

/**
 * A stream of a regular file of any size, for readers that keep memory bounded themselves
 * (console logs, event logs, timelines). Throws ENOENT as createReadStream would.
 */
export async function openCheckedStream(
  path: string,
  opts: { highWaterMark?: number } = {},
): Promise<ReadStream> {
  const st = await fsp.stat(path);
  checkRegular(path, st, Number.POSITIVE_INFINITY);
  const handle = await fsp.open(path, OPEN_FLAGS);
  try {
    checkSame(path, st, await handle.stat());
  } catch (err) {
    await handle.close();
    throw err;
  }
  return createReadStream(path, {
    fd: handle,
    ...(opts.highWaterMark ? { highWaterMark: opts.highWaterMark } : {}),
  });
}

/**
 * A file descriptor on a regular file of any size, for a reader that follows a growing file
 * itself (the watcher's console log). Throws as openSync would, or a RefusedFileError.
 */
export function openCheckedSync(path: string): number {
  const st = statSync(path);
  checkRegular(path, st, Number.POSITIVE_INFINITY);
  const fd = openSync(path, OPEN_FLAGS);
  try {
    checkSame(path, st, fstatSync(fd));
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** True when `path` is a folder (following links); false when missing or anything else. */
export function isDirectorySync(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
