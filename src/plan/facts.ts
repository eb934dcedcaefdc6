// Gathers, at the edge, what the host and the file systems say about a build's paths.

import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { readCpus } from '../system/cpus.js';
import { statFs } from '../system/fsstat.js';
import { readInotifyLimits } from '../system/inotify.js';
import { readMeminfo } from '../system/meminfo.js';
import { findMount, type MountEntry, readMountinfo, resolveExistingPath } from '../system/mounts.js';
import { readText } from '../system/read-file.js';
import { tmpfsSizeBytes } from '../system/tmpfs-size.js';
import { diskmonDirPaths } from './check-diskmon.js';
import type { BuildFacts, HostFacts, MountFacts, PathFacts, PathKey } from './facts-types.js';
import { findBlock } from './managed-block.js';

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

export async function readBuildFacts(bd: BuildDir): Promise<BuildFacts> {
  const [host, mounts] = await Promise.all([readHostFacts(), readMountinfo()]);
  const keys = Object.keys(bd.paths) as PathKey[];
  const described = await Promise.all(keys.map((k) => describePath(bd.paths[k], mounts, host.memTotal)));
  const paths = Object.fromEntries(keys.map((k, i) => [k, described[i]])) as Record<PathKey, PathFacts>;
  const savedTmpdir = await readText(join(bd.paths.tmpdir, 'saved_tmpdir'), 'state').then(
    (t) => t?.trim(),
    () => undefined,
  );
  const entries = (dir: string) => readdir(dir).catch(() => [] as string[]);
  const [deploy, manifests] = await Promise.all([
    entries(bd.paths.deployDir),
    entries(bd.paths.sstateManifests),
  ]);
  const managedBlock = await readManagedBlock(bd);
  const diskmonPaths = diskmonDirPaths(bd);
  const diskmonFacts = await Promise.all(diskmonPaths.map((d) => describePath(d, mounts, host.memTotal)));
  return {
    host,
    paths,
    ...(managedBlock ? { managedBlock } : {}),
    diskmonDirs: Object.fromEntries(diskmonFacts.map((f) => [f.path, f])),
    deployHasFiles: deploy.some((e) => e !== 'licenses'),
    manifestsPresent: manifests.some((e) => e.startsWith('manifest-')),
    tmp: toMountFacts(findMount(mounts, '/tmp'), host.memTotal),
    ...(savedTmpdir === undefined ? {} : { savedTmpdir }),
  };
}

/** The block in whichever of the build's own conf files holds it (auto, local, site). */
async function readManagedBlock(bd: BuildDir): Promise<BuildFacts['managedBlock']> {
  for (const file of [bd.confFiles.auto, bd.confFiles.local, bd.confFiles.site]) {
    if (file === undefined) continue;
    const text = await readText(file, 'conf', 'latin1');
    const found = text === undefined ? undefined : findBlock(text);
    if (found) return { file, lines: found.lines, intact: found.intact };
  }
  return undefined;
}

/** The path itself, or its closest ancestor that exists. */
export function nearestExisting(path: string): string {
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}
