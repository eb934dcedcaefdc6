// What rambake knows about a build: where each of its paths lives, its deploy and sstate state,
// its managed block. Gathered at the edge (facts.ts) and handed to pure checks and reporters;
// the host's own facts are system/host-facts.ts.

import type { BuildPaths } from '../bitbake/builddir-types.js';
import type { HostFacts, MountFacts, PathFacts } from '../system/host-facts.js';
import type { DeployOwnership } from './deploy-owners.js';

export type { FsFacts, HostFacts, MountFacts, PathFacts } from '../system/host-facts.js';

export type PathKey = keyof BuildPaths;

export interface BuildFacts {
  host: HostFacts;
  paths: Record<PathKey, PathFacts>;
  /** The mount of /tmp (BitBake's sanity check refuses a noexec /tmp). */
  tmp?: MountFacts;
  /** Content of `${TMPDIR}/saved_tmpdir`, when present. */
  savedTmpdir?: string;
  /** DEPLOY_DIR outside TMPDIR, when it holds files: how many no sstate manifest lists (deploy-owners.ts). */
  deploy?: DeployOwnership;
  /** rambake's managed block, when a conf file of the build holds one. */
  managedBlock?: { file: string; lines: string[]; intact: boolean };
  /** The mount and statfs of each folder BB_DISKMON_DIRS names, by its resolved path. */
  diskmonDirs?: Record<string, PathFacts>;
}
