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
 * BB_CMDLINE as an argv: BitBake stores a Python list, which the event log writes as a JSON
 * array (read back as its JSON text).
 *   '["/srv/poky/bitbake/bin/bitbake", "tiny-target"]' → ['/srv/poky/bitbake/bin/bitbake', 'tiny-target']
 */
export function parseCmdline(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(value);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  } catch {
    // a plain string: split on blanks below
  }
  return value.split(/\s+/).filter((w) => w !== '');
}

/** The targets of buildstats build `buildName` from the event log that names it; undefined when none does. */
export async function buildTargetsFromEventLogs(
  logDirs: readonly string[],
  buildName: string,
): Promise<{ targets: string[]; file: string } | undefined> {
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
      const targets = commandTargets(parseCmdline(vars.BB_CMDLINE?.v));
      if (targets.length > 0) return { targets, file: join(dir, name) };
    }
  }
  return undefined;
}
