// The output of `bitbake -e` (bitbake/lib/bb/data.py emit_env): `#` history comments, then
// every variable as a shell assignment, then the shell functions. A value is written inside
// double quotes with three substitutions and no others: `"` → `\"`, `$` → `\$`, and each line
// break → ` \` + line break (backslashes themselves are not escaped). Variables with the
// `unexport` flag are printed as `unset NAME` without a value.
//   export TMPDIR="/b/tmp"        → TMPDIR = /b/tmp (exported)
//   A="x \$y \"q\" \              → A = x $y "q" ⏎ z
//   z"

export interface BitbakeEnv {
  vars: Map<string, string>;
  /** Variables printed with `export `. */
  exported: Set<string>;
}

// `export NAME="…` or `NAME="…`: names as emit_env writes them (no `-`, `.`, `{`, `}`, `+`).
const ASSIGN_RE = /^(export )?([A-Za-z0-9_][A-Za-z0-9_:/~]*)="(.*)$/;
// The first shell function ends the variables: emit_env sorts them after every variable.
const FUNCTION_RE = /^[^\s#=]+\(\) \{$/;

/** Pure: the text of `bitbake -e` → every variable's expanded value. */
export function parseBitbakeEnv(text: string): BitbakeEnv {
  const vars = new Map<string, string>();
  const exported = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '' || line.startsWith('#')) continue;
    if (FUNCTION_RE.test(line)) break;
    const m = ASSIGN_RE.exec(line);
    if (!m) continue;
    const parts = [m[3]!];
    // A value line that ends in ` \` was a line break inside the value.
    while (parts[parts.length - 1]!.endsWith(' \\') && i + 1 < lines.length) {
      const last = parts.pop()!;
      parts.push(last.slice(0, -2));
      parts.push(lines[++i]!);
    }
    const joined = parts.join('\n');
    if (!joined.endsWith('"')) continue; // a torn last line: not a value
    vars.set(m[2]!, unescapeValue(joined.slice(0, -1)));
    if (m[1]) exported.add(m[2]!);
  }
  return { vars, exported };
}

function unescapeValue(body: string): string {
  return body.replace(/\\(["$])/g, '$1');
}
