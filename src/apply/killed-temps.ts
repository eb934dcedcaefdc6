// Temp files of a write that a kill -9 cut short: atomic writes of a conf file or of state.json
// (`.auto.conf.rambake-tmp-<pid>-<hex>`), lock attempts (`.rambake.lock.<pid>-<hex>`). apply and
// revert remove them, holding the conf lock, once their writer is dead; without this a killed
// apply would leave them in the build for ever (and keep revert from removing rambake/).

import { dirname, join } from 'node:path';
import { removeStaleTemps } from './conf-write.js';

export async function removeKilledTemps(topdir: string, confFile?: string): Promise<void> {
  const dirs = new Set([join(topdir, 'conf'), join(topdir, 'rambake')]);
  if (confFile !== undefined) dirs.add(dirname(confFile));
  for (const dir of dirs) await removeStaleTemps(dir).catch(() => undefined);
}
