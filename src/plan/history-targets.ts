// Which targets a buildstats build was run for. Buildstats do not say; BitBake's event log of
// that build does: its `allvariables` line holds BUILDNAME (the buildstats folder's name) and
// BB_CMDLINE (the command line, set by the cooker). Logs live in LOG_DIR, or in rambake-keep
// after `rambake apply` moved them.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readAllVariables } from '../bitbake/eventlog.js';
import { commandTargets } from '../timeline/timeline-runs.js';

/** How far apart (ms) an event log's name and a BUILDNAME may be and still be one build. */
const SAME_BUILD_MS = 120_000;
/** Event logs read at most per folder (each bitbake -e or getvar writes one too). */
const MAX_LOGS = 40;

/** `20261203120000` or `20261203120000.json` → epoch ms (UTC, as BitBake's DATETIME). */
function stampMs(name: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})/.exec(name);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

/**
 * BB_CMDLINE as an argv. The cooker sets it to a Python list and writes the event log's
 * variables as `str(v)` (cooker.py getAllKeysWithFlags), so the real value is the list's repr;
 * a JSON array and a plain string of words are read too.
 *   "['/srv/poky/bitbake/bin/bitbake', 'tiny-target']" → ['/srv/poky/bitbake/bin/bitbake', 'tiny-target']
 */
export function parseCmdline(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const repr = parsePythonStrList(value);
  if (repr) return repr;
  try {
    const v: unknown = JSON.parse(value);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  } catch {
    // a plain string: split on blanks below
  }
  return value.split(/\s+/).filter((w) => w !== '');
}

/** Python's repr of a list of str (`['a', "b'c", 'd\\e']`); undefined for anything else. */
function parsePythonStrList(value: string): string[] | undefined {
  const text = value.trim();
  if (!text.startsWith('[') || !text.endsWith(']')) return undefined;
  const item = /\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*(,|$)/y;
  const inner = text.slice(1, -1);
  const out: string[] = [];
  item.lastIndex = 0;
  while (item.lastIndex < inner.length) {
    const m = item.exec(inner);
    if (!m) return undefined;
    out.push(unescapePython(m[1] ?? m[2] ?? ''));
    if (m[3] === '') break;
  }
  return item.lastIndex >= inner.trimEnd().length ? out : undefined;
}

const PY_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' };

function unescapePython(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/g, (all, e: string) => {
    if (e.length > 1) return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    return PY_ESCAPES[e] ?? all;
  });
}

/** The targets of buildstats build `buildName` from the event log that names it; undefined when none does. */
export async function buildTargetsFromEventLogs(
  logDirs: readonly string[],
  buildName: string,
): Promise<{ targets: string[]; from: string; command: string[] } | undefined> {
  const at = stampMs(buildName);
  if (at === undefined) return undefined;
  for (const logDir of logDirs) {
    const dir = join(logDir, 'eventlog');
    const names = (await readdir(dir).catch(() => [] as string[]))
      .filter((n) => n.endsWith('.json'))
      .filter((n) => Math.abs((stampMs(n) ?? Number.POSITIVE_INFINITY) - at) <= SAME_BUILD_MS)
      .sort()
      .slice(-MAX_LOGS);
    for (const name of names.reverse()) {
      const vars = await readAllVariables(join(dir, name)).catch(() => undefined);
      if (!vars || vars.BUILDNAME?.v !== buildName) continue;
      const command = parseCmdline(vars.BB_CMDLINE?.v) ?? [];
      const targets = commandTargets(command);
      if (targets.length > 0) return { targets, from: join(dir, name), command };
    }
  }
  return undefined;
}
