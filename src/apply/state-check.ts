// `${TOPDIR}/rambake/state.json` sits in the user-writable build directory: whatever is in it is
// checked for the shape rambake writes before anything acts on it. What revert may unmount is a
// separate, stricter check (revert.ts): this one only turns a damaged file into one line.

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
  return value as ApplyState;
}
