// Renamed variables stop BitBake: setting one (any override or operation of it, or a flag of it)
// gives "Variable OLD has been renamed to NEW (file: … line: …)" and a non-zero exit. The table
// is the `BB_RENAMED_VARIABLES[OLD] = "NEW"` flags of the parsed configuration (oe-core's
// bitbake.conf) plus BitBake's own list (data_smart.py); a value with a blank in it is a sentence
// shown instead of a new name ("is a deprecated variable and support has been removed").

import type { DataStore } from './datastore.js';
import type { ConfDiagnostic, Statement } from './types.js';

/** BitBake's built-in renames (bb/data_smart.py), facts as of BitBake 2.15. */
export const BITBAKE_RENAMED: Readonly<Record<string, string>> = {
  BB_ENV_WHITELIST: 'BB_ENV_PASSTHROUGH',
  BB_ENV_EXTRAWHITE: 'BB_ENV_PASSTHROUGH_ADDITIONS',
  BB_HASHBASE_WHITELIST: 'BB_BASEHASH_IGNORE_VARS',
  BB_HASHCONFIG_WHITELIST: 'BB_HASHCONFIG_IGNORE_VARS',
  BB_HASHTASK_WHITELIST: 'BB_TASKHASH_IGNORE_TASKS',
  BB_SETSCENE_ENFORCE_WHITELIST: 'BB_SETSCENE_ENFORCE_IGNORE_TASKS',
  MULTI_PROVIDER_WHITELIST: 'BB_MULTI_PROVIDER_ALLOWED',
  BB_STAMP_WHITELIST: 'is a deprecated variable and support has been removed',
  BB_STAMP_POLICY: 'is a deprecated variable and support has been removed',
};

/** The whole table: the configuration's flags, then BitBake's own list over them. */
export function renamedTable(data: DataStore): Map<string, string> {
  const table = new Map(data.getVarFlags('BB_RENAMED_VARIABLES'));
  for (const [old, now] of Object.entries(BITBAKE_RENAMED)) table.set(old, now);
  return table;
}

/** BitBake's words. Example: ('PNBLACKLIST', 'SKIP_RECIPE') → 'Variable PNBLACKLIST has been renamed to SKIP_RECIPE'. */
export function renamedMessage(old: string, now: string, writtenAs?: string): string {
  const what = now.includes(' ') ? `Variable ${old} ${now}` : `Variable ${old} has been renamed to ${now}`;
  return writtenAs && writtenAs !== old ? `${what} (referenced as: ${writtenAs})` : what;
}

/**
 * One error per statement that sets a renamed variable, its overrides or operations
 * (`OLD:append`), or one of its flags; and one for a renamed variable that holds a value with no
 * statement to blame (it came from the environment).
 */
export function checkRenamedVariables(
  data: DataStore,
  statements: readonly Statement[],
  envNames: readonly string[] = [],
): ConfDiagnostic[] {
  const table = renamedTable(data);
  const out: ConfDiagnostic[] = [];
  const blamed = new Set<string>();
  for (const st of statements) {
    if (st.kind !== 'assign' && !(st.kind === 'function' && st.name !== undefined) && st.kind !== 'def')
      continue;
    const written = st.name!;
    const base = written.split(':')[0]!;
    const now = table.get(base);
    // BB_RENAMED_VARIABLES[OLD] itself is the table, not a use of OLD.
    if (now === undefined) continue;
    blamed.add(base);
    out.push(renamedError(base, now, st.loc.file, st.loc.line, written));
  }
  for (const [old, now] of table) {
    if (blamed.has(old)) continue;
    if (envNames.includes(old) && old in BITBAKE_RENAMED) {
      out.push({
        ...renamedError(old, now, '<environment>'),
        message: `Shell environment variable ${old} has been renamed to ${now}`,
      });
    } else if (data.getVar(old) !== undefined || data.hasOverrides(old)) {
      out.push(renamedError(old, now, '<environment>'));
    }
  }
  return out;
}

function renamedError(
  old: string,
  now: string,
  file: string,
  line?: number,
  written?: string,
): ConfDiagnostic {
  const replacement = now.includes(' ') ? undefined : written ? now + written.slice(old.length) : now;
  return {
    severity: 'error',
    code: 'renamed-variable',
    message: renamedMessage(old, now, written),
    file,
    ...(line === undefined ? {} : { line }),
    expected: replacement ? `${replacement} in place of ${written ?? old}` : `no ${old} (remove the line)`,
  };
}
