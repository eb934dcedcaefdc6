// `bitbake -e` and `bitbake-getvar` output (bitbake/lib/bb/data.py emit_var,
// data_smart.py VariableHistory.emit): `# $VAR` history comments, then `VAR="value"` or
// `export VAR="value"` with `"`, newlines and `$` escaped for a shell.

import type { BuildConf } from './read.js';
import type { Store } from './store.js';

/** True when the value still holds Python the fake could not evaluate. */
export const holdsPython = (v: string | undefined): boolean => v?.includes('${@') === true;

/** emit_var's escaping: `"` → `\"`, newline → ` \` + newline, `$` → `\$` (in that order). */
export function escapeValue(v: string): string {
  return v.replace(/"/g, '\\"').replace(/\n/g, ' \\\n').replace(/\$/g, '\\$');
}

export function formatHistory(store: Store, name: string): string {
  const h = store.history(name);
  if (h.length === 0) return `#\n# $${name}\n#   [no history recorded]\n#\n`;
  let out = h.length === 1 ? `#\n# $${name}\n` : `#\n# $${name} [${h.length} operations]\n`;
  for (const e of h)
    out += `#   ${e.op} ${e.file}:${e.line}\n#     "${e.detail.replace(/\n/g, '\n#     ')}"\n`;
  if (h.length > 1)
    out += `# pre-expansion value:\n#   "${String(store.unexpanded(name)).replace(/\n/g, '\n#')}"\n`;
  return out;
}

/** One variable's line, or a comment saying why the fake leaves it out. */
export function formatVar(store: Store, name: string): string {
  const v = store.get(name);
  if (v === undefined) return '';
  if (holdsPython(v)) return `# $${name} holds Python the fake BitBake cannot evaluate: left out\n`;
  return `${store.isExported(name) ? 'export ' : ''}${name}="${escapeValue(v)}"\n`;
}

/** The whole `bitbake -e` text: notes first, then every variable, sorted by name. */
export function formatEnv(conf: BuildConf): string {
  let out = conf.notes.map((n) => `# NOTE (fake BitBake): ${n}\n`).join('');
  for (const name of conf.store.names()) {
    const line = formatVar(conf.store, name);
    if (line === '') continue;
    out += `${formatHistory(conf.store, name)}${line}\n`;
  }
  return out;
}
