// doctor: a bitbake.lock that no server holds. BitBake copes with one: at start it opens the
// file and takes the flock (lib/bb/main.py lockBitbake → lib/bb/utils.py lockfile), which
// succeeds on a stale file, writes its own PID into it, and removes it when that server exits.
// Unless it cannot open the file for writing: a stale lock left by another user (root) stops
// every build with "Unable to acquire lock 'Permission denied'" (checked on BitBake 2.15.2).
// rambake ignores a stale file and never deletes it itself.

import { join } from 'node:path';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { renderShellCommand } from '../text/shell.js';
import type { Finding } from './findings.js';

export function checkBitbakeLock(bd: BuildDir): Finding[] {
  const lock = bd.bitbakeLock;
  if (lock?.state !== 'stale') return [];
  const file = join(bd.topdir, 'bitbake.lock');
  if (lock.ownerCanOpen === false) {
    return [
      {
        id: 'stale-bitbake-lock-unwritable',
        severity: 'warning',
        message: `stale bitbake.lock, ${lock.detail}, and the owner of ${bd.topdir} cannot open it for writing: BitBake will stop with "Unable to acquire lock 'Permission denied'"`,
        file,
        fix: `no server holds it: remove it as a user who may (e.g. ${renderShellCommand(['sudo', 'rm', file])})`,
      },
    ];
  }
  return [
    {
      id: 'stale-bitbake-lock',
      severity: 'info',
      message: `stale bitbake.lock, ${lock.detail}; BitBake takes it over at its next start and removes it when that server exits`,
      file,
      fix: 'nothing to do: rambake ignores it (no server holds it, so removing it by hand is safe too)',
    },
  ];
}
