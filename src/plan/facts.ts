// Gathers, at the edge, what the host and the file systems say about a build's paths (the
// host's own facts: system/host-facts.ts).

import { join } from 'node:path';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { describePath, readHostFacts, toMountFacts } from '../system/host-facts.js';
import { findMount, readMountinfo } from '../system/mounts.js';
import { readText } from '../system/read-file.js';
import { readDeployOwnership } from './deploy-owners.js';
import { diskmonDirPaths } from './diskmon.js';
import type { BuildFacts, PathFacts, PathKey } from './facts-types.js';
import { findBlock } from './managed-block.js';

export async function readBuildFacts(bd: BuildDir): Promise<BuildFacts> {
  const [host, mounts] = await Promise.all([readHostFacts(), readMountinfo()]);
  const keys = Object.keys(bd.paths) as PathKey[];
  const described = await Promise.all(keys.map((k) => describePath(bd.paths[k], mounts, host.memTotal)));
  const paths = Object.fromEntries(keys.map((k, i) => [k, described[i]])) as Record<PathKey, PathFacts>;
  const savedTmpdir = await readText(join(bd.paths.tmpdir, 'saved_tmpdir'), 'state').then(
    (t) => t?.trim(),
    () => undefined,
  );
  // Only a DEPLOY_DIR that outlives TMPDIR can hold files no manifest lists (a walk of it).
  const deployOutside = !bd.paths.deployDir.startsWith(`${bd.paths.tmpdir}/`);
  const deploy = deployOutside
    ? await readDeployOwnership(bd.paths.deployDir, bd.paths.sstateManifests).catch(() => undefined)
    : undefined;
  const managedBlock = await readManagedBlock(bd);
  const diskmonPaths = diskmonDirPaths(bd);
  const diskmonFacts = await Promise.all(diskmonPaths.map((d) => describePath(d, mounts, host.memTotal)));
  return {
    host,
    paths,
    ...(managedBlock ? { managedBlock } : {}),
    diskmonDirs: Object.fromEntries(diskmonFacts.map((f) => [f.path, f])),
    ...(deploy ? { deploy } : {}),
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
