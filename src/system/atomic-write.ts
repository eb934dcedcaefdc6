// The one atomic file write: a crash (kill -9, power loss) leaves the old file or the new one,
// never a mix. Used for conf files, rambake's state and its caches.

import { randomBytes } from 'node:crypto';
import { constants, promises as fsp } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to `path` atomically: a temp file in the same folder (rename is atomic only
 * within one file system), fsync, the old file's mode and owner, rename over, fsync the folder
 * so the rename itself survives a crash.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: { mode?: number } = {},
): Promise<void> {
  const dir = dirname(path);
  const old = await fsp.stat(path).catch(() => undefined);
  const temp = join(dir, `.${basename(path)}.rambake-tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const handle = await fsp.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(data);
    await handle.chmod((old?.mode ?? opts.mode ?? 0o644) & 0o7777);
    // Keep the owner; a new file belongs to the folder's owner, so a root apply does not
    // leave root-owned files in the user's build directory.
    const owner = old ?? (await fsp.stat(dir));
    if (owner.uid !== process.getuid?.() || owner.gid !== process.getgid?.()) {
      await handle.chown(owner.uid, owner.gid);
    }
    await handle.sync();
  } catch (error) {
    await handle.close();
    await fsp.rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await fsp.rename(temp, path);
  } catch (error) {
    await fsp.rm(temp, { force: true });
    throw error;
  }
  await syncDir(dir);
}

export async function syncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
