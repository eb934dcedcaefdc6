// What revert may act on, as root, from `${TOPDIR}/rambake/state.json` — a file in the
// user-writable build directory, so anyone who can write there can write it. Nothing in it is
// trusted: the conf file must be one of this build's own conf files, and the tmpfs must be
// mounted at the recorded path with the source name apply derives from this TOPDIR.

import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT_USAGE, RambakeError } from '../errors.js';
import { tmpfsSourceName } from '../plan/mount-commands.js';
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
  if (state.mount && state.mount.source !== source) {
    throw refuse(
      file,
      `the tmpfs source ${JSON.stringify(state.mount.source)} is not this build's (${source})`,
    );
  }
}

/**
 * The mount at `realPath` (the recorded path, resolved) when it is this build's tmpfs;
 * undefined when nothing is mounted there; a refusal when something else is.
 */
export function ourMount(
  topdir: string,
  entries: readonly MountEntry[],
  realPath: string,
  file: string,
): MountEntry | undefined {
  const entry = mountAt(entries, realPath);
  if (entry === undefined) return undefined;
  const source = tmpfsSourceName(topdir);
  if (entry.fstype !== 'tmpfs' || entry.source !== source) {
    throw refuse(file, `${realPath} is ${entry.fstype} ${entry.source}, not this build's tmpfs ${source}`);
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
