// What rambake knows about the host and about the file system a path lives on: memory, swap,
// CPUs, inotify limits, mounts and statfs. Read at the edge and handed to pure code.

import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { readCpus } from './cpus.js';
import { statFs } from './fsstat.js';
import { readInotifyLimits } from './inotify.js';
import { readMeminfo } from './meminfo.js';
import { findMount, type MountEntry, resolveExistingPath } from './mounts.js';
import { tmpfsSizeBytes } from './tmpfs-size.js';

export interface MountFacts {
  /** Mount id from /proc/self/mountinfo: two paths share a file system when it is equal. */
  id: number;
  mountPoint: string;
  fsType: string;
  source: string;
  options: string[];
  /** tmpfs `size=` and `nr_inodes=`, in bytes and inodes, when set. */
  sizeBytes?: number;
  nrInodes?: number;
}

export interface FsFacts {
  totalBytes: number;
  freeBytes: number;
  totalInodes: number;
  freeInodes: number;
}

export interface PathFacts {
  path: string;
  exists: boolean;
  /** The path itself, or its nearest existing ancestor, decides the mount. */
  mount?: MountFacts;
  fs?: FsFacts;
}

export interface HostFacts {
  memTotal: number;
  memAvailable: number;
  swapTotal: number;
  swapFree: number;
  cpusUsable: number;
  cpusOnline: number;
  inotifyMaxUserWatches?: number;
  isRoot: boolean;
}

export async function readHostFacts(): Promise<HostFacts> {
  const [mem, cpus, inotify] = await Promise.all([
    readMeminfo(),
    readCpus(),
    readInotifyLimits().catch(() => undefined),
  ]);
  return {
    memTotal: mem.memTotal,
    memAvailable: mem.memAvailable,
    swapTotal: mem.swapTotal,
    swapFree: mem.swapFree,
    cpusUsable: cpus.usable,
    cpusOnline: cpus.online,
    ...(inotify ? { inotifyMaxUserWatches: inotify.maxUserWatches } : {}),
    isRoot: process.getuid?.() === 0,
  };
}

export function toMountFacts(entry: MountEntry, memTotal: number): MountFacts {
  const facts: MountFacts = {
    id: entry.id,
    mountPoint: entry.mountPoint,
    fsType: entry.fstype,
    source: entry.source,
    options: entry.options,
  };
  if (entry.tmpfs) {
    const size = tmpfsSizeBytes(entry.tmpfs, memTotal);
    if (size !== undefined) facts.sizeBytes = size;
    if (entry.tmpfs.nrInodes) facts.nrInodes = entry.tmpfs.nrInodes;
  }
  return facts;
}

/** The mount and statfs of a path (or of its nearest existing ancestor, for paths not made yet). */
export async function describePath(path: string, mounts: MountEntry[], memTotal: number): Promise<PathFacts> {
  const resolved = await resolveExistingPath(path);
  // Mount points match by prefix, so a path not made yet still finds its file system.
  const fs = await statFs(nearestExisting(resolved)).catch(() => undefined);
  return {
    path,
    exists: existsSync(path),
    mount: toMountFacts(findMount(mounts, resolved), memTotal),
    ...(fs
      ? {
          fs: {
            totalBytes: fs.totalBytes,
            freeBytes: fs.freeBytes,
            totalInodes: fs.totalInodes,
            freeInodes: fs.freeInodes,
          },
        }
      : {}),
  };
}

/**
 * The path itself, or its closest ancestor that exists. `last`: what it returned for this path
 * before. It is the answer still when it exists and its next folder towards `path` does not
 * (nothing below a missing folder exists): two calls where the walk up from `path` makes one
 * per missing level. A watcher started before the first build asks every tick, for two paths
 * four and five levels below the build dir.
 *   ('/b/tmp/log/cooker/qemux86-64', '/b') with /b/tmp missing → '/b'
 */
export function nearestExisting(path: string, last?: string): string {
  if (last !== undefined && last !== path) {
    const under = last === '/' ? last : `${last}/`;
    const slash = path.indexOf('/', under.length);
    const next = slash < 0 ? path : path.slice(0, slash);
    if (path.startsWith(under) && !existsSync(next) && existsSync(last)) return last;
  }
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}
