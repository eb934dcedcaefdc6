// Preloaded into the built CLI by the kill-step tests (node --import): counts every step that
// changes something on disk or the mounts (a file opened for writing, a write, a rename, a link,
// a removal, a folder made or removed, a `mount`/`umount` started) and, when the count reaches
// RAMBAKE_KILL_AT_STEP, kills the process with SIGKILL just before that step. With
// RAMBAKE_KILL_AT_STEP=0 it only lists the steps (RAMBAKE_KILL_LOG gets one line per step).
// No hook in rambake itself: the product is the one users run.

import cp from 'node:child_process';
import fs, { appendFileSync, constants } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const killAt = Number(process.env.RAMBAKE_KILL_AT_STEP ?? 0);
const log = process.env.RAMBAKE_KILL_LOG;
let step = 0;

function reach(what) {
  step++;
  if (log) appendFileSync(log, `${step} ${what}\n`);
  if (step === killAt) process.kill(process.pid, 'SIGKILL');
}

const WRITE_FLAGS = constants.O_WRONLY | constants.O_RDWR | constants.O_CREAT;
const writes = (flags) =>
  typeof flags === 'number' ? (flags & WRITE_FLAGS) !== 0 : typeof flags === 'string' && /[wax+]/.test(flags);

const p = fs.promises;
for (const name of [
  'writeFile',
  'appendFile',
  'rename',
  'link',
  'symlink',
  'unlink',
  'rm',
  'rmdir',
  'mkdir',
  'copyFile',
]) {
  const orig = p[name];
  p[name] = function (...args) {
    reach(`${name} ${args[0]}${name === 'rename' || name === 'link' ? ` -> ${args[1]}` : ''}`);
    return orig.apply(this, args);
  };
}
const open = p.open;
p.open = function (path, flags, ...rest) {
  if (writes(flags)) reach(`open-for-write ${path}`);
  return open.call(this, path, flags, ...rest);
};
for (const name of ['spawn', 'execFile']) {
  const orig = cp[name];
  if (typeof orig !== 'function') continue;
  cp[name] = function (file, ...args) {
    if (/(^|\/)u?mount$/.test(String(file)))
      reach(`${name} ${file} ${(Array.isArray(args[0]) ? args[0] : []).join(' ')}`);
    return orig.call(this, file, ...args);
  };
}
syncBuiltinESMExports();
