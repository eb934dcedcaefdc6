// What an anonymous Python function changes in the datastore, read from its text (never run).
// Only literal names count: `d.setVar(name, …)` with a computed name cannot be known here.

// Example: "    d.appendVar('TUNE_CCARGS', ' -mthumb')" → appendVar of TUNE_CCARGS.
const CALL =
  /\.(setVar|appendVar|prependVar|delVar|renameVar|setVarFlag|appendVarFlag|prependVarFlag|delVarFlag)\(\s*(['"])([^'"\\\n]+)\2\s*(?:,\s*(['"])([^'"\\\n]+)\4)?/g;

export interface PythonSets {
  /** Variables whose value changes, e.g. `TMPDIR`; flags as `NAME[flag]`. */
  targets: string[];
  /** Calls whose variable name is computed (rambake cannot say which variable changes). */
  computed: number;
}

/**
 * Example: ['d.setVar("A", "1")', 'd.setVarFlag("B", "doc", "x")', 'd.setVar(name, v)'] →
 * { targets: ['A', 'B[doc]'], computed: 1 }.
 */
export function pythonSets(body: readonly string[]): PythonSets {
  const targets = new Set<string>();
  let computed = 0;
  for (const line of body) {
    if (!line.includes('Var')) continue;
    const literal = new Set<number>();
    for (const m of line.matchAll(CALL)) {
      literal.add(m.index);
      const [, method, , name, , second] = m;
      if (method === 'renameVar') {
        targets.add(name!);
        if (second) targets.add(second);
      } else if (method!.endsWith('Flag')) targets.add(second ? `${name}[${second}]` : name!);
      else targets.add(name!);
    }
    for (const m of line.matchAll(/\.(?:set|append|prepend|del|rename)Var(?:Flag)?\(/g)) {
      if (!literal.has(m.index)) computed++;
    }
  }
  return { targets: [...targets], computed };
}
