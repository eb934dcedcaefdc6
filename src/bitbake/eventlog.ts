// The event log (`${LOG_DIR}/eventlog/<DATETIME>.json`): JSON lines. One early line,
// `{"allvariables": {"TMPDIR": {"v": "…", "history": […]}, …}}`, holds every variable's
// expanded value; the rest are pickled events Node cannot read. The file grows to megabytes
// during a build, so it is read line by line and closed at the allvariables line.

import { existsSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RefusedFileError } from '../errors.js';
import { readLines } from './lines.js';

export interface EventLogVariable {
  /**
   * The expanded value; undefined for a variable BitBake holds only flags of (e.g. `[doc]`):
   * cooker.py writes `str(None)`, so the line says `"v": "None"` for those.
   */
  v: string | undefined;
  history?: unknown;
}

const ALLVARIABLES_PREFIX = '{"allvariables"';
// The line holds thousands of variables with their histories: allow it to be large.
const MAX_ALLVARIABLES_BYTES = 512 * 1024 * 1024;

/** The parsed `allvariables` object of one JSON line; undefined for any other or a torn line. */
export function parseAllVariablesLine(line: string): Record<string, EventLogVariable> | undefined {
  if (!line.startsWith(ALLVARIABLES_PREFIX)) return undefined;
  try {
    const parsed: unknown = JSON.parse(line);
    const all = (parsed as { allvariables?: unknown }).allvariables;
    if (all === null || typeof all !== 'object' || Array.isArray(all)) return undefined;
    const out: Record<string, EventLogVariable> = {};
    for (const [name, entry] of Object.entries(all as Record<string, unknown>)) {
      const v = (entry as { v?: unknown } | null)?.v;
      if (v === undefined || v === null) continue;
      const history = (entry as { history?: unknown }).history;
      const text = typeof v === 'string' ? v : JSON.stringify(v);
      const variable: EventLogVariable = { v: text === 'None' && !assignedNone(history) ? undefined : text };
      if (history !== undefined) variable.history = history;
      out[name] = variable;
    }
    return out;
  } catch {
    return undefined;
  }
}

/**
 * True when the history shows a value assignment whose text is `None`: then "None" is a value.
 * Example: [{ op: 'set', detail: 'None' }] → true; [{ op: 'set', flag: 'doc', detail: '…' }] → false.
 */
function assignedNone(history: unknown): boolean {
  if (!Array.isArray(history)) return false;
  return history.some(
    (h: { flag?: unknown; detail?: unknown } | null) => h?.flag === undefined && h?.detail === 'None',
  );
}

/**
 * Reads lines until the `allvariables` line and stops there. Undefined when the file is
 * missing, has no such line yet, or the line is torn (the build is still writing it).
 */
export async function readAllVariables(path: string): Promise<Record<string, EventLogVariable> | undefined> {
  let found: Record<string, EventLogVariable> | undefined;
  let seen = false;
  try {
    await readLines(
      path,
      (line) => {
        if (!line.startsWith(ALLVARIABLES_PREFIX)) return true;
        seen = true;
        found = parseAllVariablesLine(line);
        return false;
      },
      { maxLineBytes: MAX_ALLVARIABLES_BYTES },
    );
  } catch (err) {
    // A FIFO or a device in place of an event log is hostile, not torn: refused with one line.
    if (err instanceof RefusedFileError) throw err;
    return undefined;
  }
  return seen ? found : undefined;
}

/**
 * The newest `<DATETIME>.json` (newest by name: DATETIME sorts in time order). Accepts either
 * LOG_DIR or its `eventlog/` folder.
 */
export async function findNewestEventLog(logDir: string): Promise<string | undefined> {
  const sub = join(logDir, 'eventlog');
  const dir = existsSync(sub) && statSync(sub).isDirectory() ? sub : logDir;
  const names = await readdir(dir).catch(() => [] as string[]);
  const logs = names.filter((n) => /^\d.*\.json$/.test(n)).sort();
  const newest = logs.at(-1);
  return newest === undefined ? undefined : join(dir, newest);
}

/**
 * The newest event log that holds an `allvariables` line, with its variables. Every
 * `bitbake -e` or `bitbake-getvar` writes an event log too, without that line: those are
 * passed over (up to `maxFiles` of the newest are read).
 */
export async function findNewestAllVariables(
  logDir: string,
  maxFiles = 8,
): Promise<{ path: string; vars: Record<string, EventLogVariable> } | undefined> {
  const newest = await findNewestEventLog(logDir);
  if (newest === undefined) return undefined;
  const dir = dirname(newest);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => /^\d.*\.json$/.test(n));
  for (const name of names.sort().reverse().slice(0, maxFiles)) {
    const vars = await readAllVariables(join(dir, name));
    if (vars) return { path: join(dir, name), vars };
  }
  return undefined;
}
