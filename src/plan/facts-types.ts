// What rambake knows about the host and about where each build path lives: gathered at the edge
// (facts.ts) and handed to pure checks and reporters.

import type { BuildPaths } from '../bitbake/builddir-types.js';

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

export type PathKey = keyof BuildPaths;

export interface BuildFacts {
  host: HostFacts;
  paths: Record<PathKey, PathFacts>;
  /** The mount of /tmp (BitBake's sanity check refuses a noexec /tmp). */
  tmp?: MountFacts;
  /** Content of `${TMPDIR}/saved_tmpdir`, when present. */
  savedTmpdir?: string;
  /** DEPLOY_DIR holds entries other than licenses/. */
  deployHasFiles?: boolean;
  /** rambake's managed block, when a conf file of the build holds one. */
  managedBlock?: { file: string; lines: string[]; intact: boolean };
  /** `${SSTATE_MANIFESTS}` holds manifests (the records of who installed what into DEPLOY_DIR). */
  manifestsPresent?: boolean;
  /** The mount and statfs of each folder BB_DISKMON_DIRS names, by its resolved path. */
  diskmonDirs?: Record<string, PathFacts>;
}
