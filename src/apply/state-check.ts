// `${TOPDIR}/rambake/state.json` sits in the user-writable build directory: whatever is in it is
// checked for the shape rambake writes, and for naming this TOPDIR, before anything acts on it.
// What revert may unmount is a separate, stricter check (revert-trust.ts).

import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { EXIT_USAGE, RambakeError } from '../errors.js';
import type { ApplyState } from './conf-write.js';

const HINT =
  'rambake wrote this file at apply; if it was damaged, check `findmnt -t tmpfs` and the conf block by hand, then remove it';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first thing wrong with the parsed value, or undefined when it has the shape of an ApplyState. */
function shapeProblem(v: unknown): string | undefined {
  if (!isObject(v)) return 'not a JSON object';
  if (v.schemaVersion !== 1) return `schemaVersion ${JSON.stringify(v.schemaVersion)}`;
  if (typeof v.topdir !== 'string') return 'no topdir';
  if (v.scope !== 'tmpdir' && v.scope !== 'workdir') return `scope ${JSON.stringify(v.scope)}`;
  if (typeof v.previousTmpdir !== 'string') return 'no previousTmpdir';
  if (v.conf !== undefined) {
    const c = v.conf;
    if (!isObject(c) || typeof c.file !== 'string' || typeof c.existed !== 'boolean')
      return 'a damaged conf entry';
    if (c.backup !== undefined && typeof c.backup !== 'string') return 'a damaged conf backup';
  }
  if (v.mount !== undefined) {
    const m = v.mount;
    if (
      !isObject(m) ||
      typeof m.path !== 'string' ||
      typeof m.source !== 'string' ||
      typeof m.createdFolder !== 'boolean'
    )
      return 'a damaged mount entry';
  }
  return undefined;
}

/** Parses state.json text; a damaged file is one line and exit 2, never "unexpected error". */
export function parseApplyState(text: string, file: string): ApplyState {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new RambakeError(`${file}: not valid JSON (${(err as Error).message})`, {
      exitCode: EXIT_USAGE,
      hint: HINT,
    });
  }
  const problem = shapeProblem(value);
  if (problem !== undefined) {
    throw new RambakeError(`${file}: not a state file rambake wrote (${problem})`, {
      exitCode: EXIT_USAGE,
      hint: HINT,
    });
  }
  const state = value as ApplyState;
  checkTopdir(state.topdir, file);
  return state;
}

/**
 * apply and revert write the state back to `<state.topdir>/rambake/state.json` (as root, when
 * run as root): a topdir naming another folder would have them write there. The state must
 * name the build directory it sits in (`file` is `<TOPDIR>/rambake/state.json`), compared
 * resolved, so a link to the same folder is the same TOPDIR.
 */
function checkTopdir(recorded: string, file: string): void {
  const topdir = dirname(dirname(file));
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  };
  const here = real(topdir) ?? topdir;
  if (real(recorded) !== here) {
    throw new RambakeError(
      `${file}: its topdir ${JSON.stringify(recorded)} is not this build directory (${here}): refused, nothing changed`,
      { exitCode: EXIT_USAGE, hint: HINT },
    );
  }
}
