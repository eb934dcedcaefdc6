// Which variables of the invoking user's environment BitBake takes into its datastore (before any
// conf file is read), from bb/utils.py and bb/data.py: the built-in preserved set, or
// BB_ENV_PASSTHROUGH instead of it when set, plus BB_ENV_PASSTHROUGH_ADDITIONS; with
// BB_PRESERVE_ENV set, everything. Pure: the environment comes in as data.

export type Environment = Readonly<Record<string, string | undefined>>;

/** Taken from the environment and marked for export. */
const PRESERVED_EXPORTED = [
  'BB_TASKHASH',
  'HOME',
  'LOGNAME',
  'PATH',
  'PWD',
  'SHELL',
  'USER',
  'LC_ALL',
  'BBSERVER',
];
/** Taken from the environment, not exported. */
const PRESERVED = ['BBPATH', 'BB_PRESERVE_ENV', 'BB_ENV_PASSTHROUGH_ADDITIONS', ...PRESERVED_EXPORTED];

export interface EnvVariable {
  name: string;
  value: string;
  exported: boolean;
}

const words = (s: string | undefined): string[] => (s ?? '').split(/\s+/).filter((w) => w !== '');

/** The names BitBake lets through (utils.approved_variables). */
export function approvedNames(env: Environment): Set<string> {
  if (env.BB_PRESERVE_ENV !== undefined) return new Set(Object.keys(env));
  const approved =
    env.BB_ENV_PASSTHROUGH !== undefined
      ? [...words(env.BB_ENV_PASSTHROUGH), 'BB_ENV_PASSTHROUGH']
      : [...PRESERVED];
  if (env.BB_ENV_PASSTHROUGH_ADDITIONS !== undefined) {
    approved.push(...words(env.BB_ENV_PASSTHROUGH_ADDITIONS), 'BB_ENV_PASSTHROUGH_ADDITIONS');
  }
  return new Set(approved);
}

/**
 * Example: { HOME: '/home/u', EDITOR: 'vi', BB_ENV_PASSTHROUGH_ADDITIONS: 'DL_DIR', DL_DIR: '/srv' } →
 * HOME (exported), DL_DIR and BB_ENV_PASSTHROUGH_ADDITIONS; EDITOR stays out.
 */
export function inheritedEnvironment(env: Environment): EnvVariable[] {
  const approved = approvedNames(env);
  const out: EnvVariable[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !approved.has(name)) continue;
    out.push({ name, value, exported: PRESERVED_EXPORTED.includes(name) });
  }
  return out;
}
