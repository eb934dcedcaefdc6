// What revert may act on, as root, from `${TOPDIR}/rambake/state.json` — a file in the
// user-writable build directory, so anyone who can write there can write it. Nothing in it is
// trusted: its topdir must be this TOPDIR (state-check.ts), the conf file one of this build's
// own conf files, the tmpfs mounted at the recorded path with the source name apply derives
// from this TOPDIR, and a folder is removed only where this build's tmpfs was or would be.

import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT_USAGE, RambakeError } from '../errors.js';
import { DEFAULT_MOUNT_FOLDER, legacyTmpfsSourceName, tmpfsSourceName } from '../plan/mount-commands.js';
import type { MountEntry } from '../system/mounts.js';
import { mountAt, submountsOf } from '../system/tmpfs.js';
import type { ApplyState } from './conf-write.js';

/** The conf files apply may write its block into (`--conf auto|local|site`). */
export const BLOCK_CONF_NAMES = ['auto.conf', 'local.conf', 'site.conf'] as const;

const refuse = (file: string, what: string) =>
  new RambakeError(`${file}: ${what}: refused, nothing changed`, {
    exitCode: EXIT_USAGE,
    hint: 'rambake did not write this; check `findmnt -t tmpfs` and the conf block by hand',
  });

/**
 * Throws unless the state names only what apply could have written for this TOPDIR. A conf
 * file that is a link is recorded as its target (apply edits through the link): accepted when
 * one of the build's conf files resolves to it now.
 */
export async function checkRecordedState(topdir: string, state: ApplyState, file: string): Promise<void> {
  const named = BLOCK_CONF_NAMES.map((n) => join(topdir, 'conf', n));
  const confs = [...named, ...(await Promise.all(named.map((f) => realpath(f).catch(() => f))))];
  if (state.conf && !confs.includes(state.conf.file)) {
    throw refuse(
      file,
      `the conf file ${state.conf.file} is not one of ${join(topdir, 'conf')}/{auto,local,site}.conf`,
    );
  }
  const source = tmpfsSourceName(topdir);
  // An earlier rambake's shorter name is checked further where it is mounted (ourMount).
  if (state.mount && state.mount.source !== source && state.mount.source !== legacyTmpfsSourceName(topdir)) {
    throw refuse(
      file,
      `the tmpfs source ${JSON.stringify(state.mount.source)} is not this build's (${source})`,
    );
  }
}

/**
 * The mount at `realPath` (the recorded path, resolved) when it is this build's tmpfs;
 * undefined when nothing is mounted there; a refusal when something else is.
 *
 * Both the source and the path must be this TOPDIR's. The source name is 64 bits of
 * sha1(TOPDIR): no other build directory can be given it, so a tmpfs carrying it was mounted by
 * `rambake apply` for this TOPDIR, at the path that apply's plan chose (`${TOPDIR}/tmp-ram`,
 * BASE_WORKDIR for --scope workdir, or --path — revert has no flags to re-derive the last two,
 * and the name is the proof). A tmpfs under the name of an earlier rambake (8 hex digits of the
 * same sha1, which another build directory can be made to share) is accepted only at
 * `${TOPDIR}/tmp-ram` itself, the one path derived from TOPDIR alone.
 */
export function ourMount(
  topdir: string,
  entries: readonly MountEntry[],
  realPath: string,
  file: string,
  realTopdir: string,
): MountEntry | undefined {
  const entry = mountAt(entries, realPath);
  if (entry === undefined) return undefined;
  const source = tmpfsSourceName(topdir);
  const legacy = legacyTmpfsSourceName(topdir);
  const named = entry.source === source || entry.source === legacy;
  if (entry.fstype !== 'tmpfs' || !named) {
    throw refuse(file, `${realPath} is ${entry.fstype} ${entry.source}, not this build's tmpfs ${source}`);
  }
  const planned = plannedDefaultPath(realTopdir);
  if (entry.source === legacy && entry.mountPoint !== planned) {
    throw new RambakeError(
      `${file}: ${realPath} is mounted under ${legacy}, the short name of an earlier rambake that another build directory can share, and is not this build's ${planned}: refused, nothing changed`,
      { exitCode: EXIT_USAGE, hint: `if it is this build's tmpfs, unmount it yourself: umount ${realPath}` },
    );
  }
  const stacked = submountsOf(entries, realPath);
  if (stacked.length > 0) {
    throw new RambakeError(
      `${stacked[0]!.mountPoint} is mounted inside ${realPath}: its umount would fail, nothing changed`,
      {
        hint: `unmount ${stacked.map((e) => e.mountPoint).join(', ')} first`,
      },
    );
  }
  return entry;
}

/** `${TOPDIR}/tmp-ram` of the resolved TOPDIR: the plan's mount point when apply had no --path. */
export const plannedDefaultPath = (realTopdir: string): string => join(realTopdir, DEFAULT_MOUNT_FOLDER);

/**
 * The folder revert may remove (when apply recorded that it made it): where this build's tmpfs
 * was verified mounted (`verified`, the mount point from mountinfo), else only the plan's own
 * `${TOPDIR}/tmp-ram` — never another path state.json names, which anyone who can write the
 * build directory can set to any empty folder on the system. Undefined: leave it.
 */
export async function removableFolder(
  recorded: string,
  realTopdir: string,
  verified: string | undefined,
): Promise<string | undefined> {
  if (verified !== undefined) return verified;
  const planned = plannedDefaultPath(realTopdir);
  // The resolved path, so a link named tmp-ram (pointing anywhere) is not planned.
  const real = await realpath(recorded).catch(() => undefined);
  return real === planned ? planned : undefined;
}
