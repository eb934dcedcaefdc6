// How BitBake files and picks override variants (`VAR:o1`, `VAR:o1:o2`): pure helpers over the
// override index the datastore keeps (short name → [full name, override]).

export interface OverrideRef {
  /** The full variable name, e.g. `FOO:qemux86:poky`. */
  full: string;
  /** What must be in OVERRIDES for it to apply, e.g. `qemux86:poky` (every part). */
  override: string;
}

/** An override is only indexed when it starts like an override name (lower case or digit). */
const OVERRIDE_START = /^[a-z0-9]/;

/**
 * The index entries a variable name adds: one per trailing override, shortest base last.
 * Example: 'FOO:a:b' → [{short:'FOO:a', full:'FOO:a:b', override:'b'}, {short:'FOO', …, override:'a:b'}].
 */
export function overrideEntries(full: string): Array<{ short: string } & OverrideRef> {
  const out: Array<{ short: string } & OverrideRef> = [];
  let cut = full.lastIndexOf(':');
  while (cut > 0) {
    const override = full.slice(cut + 1);
    if (!override || !OVERRIDE_START.test(override)) break;
    const short = full.slice(0, cut);
    out.push({ short, full, override });
    cut = short.lastIndexOf(':');
  }
  return out;
}

// BitBake's inline Python (bb/data_smart.py's __expand_python_regexp__): `${@`, then braced
// text or any character, as few as possible, then `}`.
const INLINE_PYTHON = /\$\{@(?:\{.*?\}|.)+?\}/g;

/** The token splitOverrides puts where OVERRIDES holds Python: unknown overrides, at that place. */
export const PYTHON_SLOT = '\u0000';

/**
 * OVERRIDES split on `:` as BitBake splits it, with its unevaluated Python as a PYTHON_SLOT token
 * of its own: what the Python gives is unknown, so it joins no neighbour. The overrides around it
 * stay, as OE-Core writes them (`${@…'x86:'…}qemuall:qemux86-64`: BitBake sees qemuall either way).
 *   'a:${@bb.utils.contains("F", "x", "x86:", "", d)}qemuall:b' → ['a', '', SLOT, '', 'qemuall', 'b']
 */
export function splitOverrides(value: string): string[] {
  return value.replace(INLINE_PYTHON, `:${PYTHON_SLOT}:`).split(':');
}

/**
 * Whether the Python in OVERRIDES (its PYTHON_SLOT tokens) could change which variant wins. What
 * it gives stands where it is written and a later override beats an earlier one, so a winner all
 * of whose parts come after the last slot stays the winner (rambake's own `:forcevariable`, last
 * in OE-Core's OVERRIDES), unless a combined variant with a part only the Python could give might
 * still apply (`X:x86:forcevariable`). With no winner, the Python could make any variant apply.
 */
export function pickDependsOnPython(
  refs: readonly OverrideRef[],
  winner: string | undefined,
  overrides: readonly string[],
): boolean {
  const slot = overrides.lastIndexOf(PYTHON_SLOT);
  if (slot < 0) return false;
  const ref = winner === undefined ? undefined : refs.find((r) => r.full === winner);
  if (ref === undefined) return refs.length > 0;
  if (ref.override.split(':').some((part) => overrides.lastIndexOf(part) < slot)) return true;
  const active = new Set(overrides);
  return refs.some((r) => r !== ref && r.override.includes(':') && !overrideActive(r.override, active));
}

/** True when every part of `override` (`a` or `a:b`) is active. */
export function overrideActive(override: string, active: ReadonlySet<string>): boolean {
  if (active.has(override)) return true;
  if (!override.includes(':')) return false;
  return override.split(':').every((part) => active.has(part));
}

/**
 * Which variant wins: walking OVERRIDES in order, a later override beats an earlier one, and a
 * combined variant `a:b` is reduced part by part as its parts come up (BitBake's rule).
 * Returns the full name of the winning variant, or undefined.
 */
export function pickOverride(refs: readonly OverrideRef[], overrides: readonly string[]): string | undefined {
  const set = new Set(overrides);
  const pending = new Map<string, string>();
  for (const r of refs) if (overrideActive(r.override, set)) pending.set(r.override, r.full);
  let winner: string | undefined;
  let changed = pending.size > 0;
  while (changed) {
    changed = false;
    for (const o of overrides) {
      for (const [key, full] of [...pending]) {
        if (key.endsWith(`:${o}`)) {
          pending.delete(key);
          pending.set(key.slice(0, -(o.length + 1)), full);
          changed = true;
        } else if (key === o) {
          winner = full;
          pending.delete(key);
        }
      }
    }
  }
  return winner;
}

/**
 * Split `VAR:append:o1` into base, keyword and condition, or undefined for a plain name.
 * The first `:append`/`:prepend`/`:remove` followed by the end or `:<no capitals>` counts.
 * Example: 'FOO:append:qemux86' → { base: 'FOO', keyword: 'append', condition: 'qemux86' }.
 */
export function splitOperation(
  name: string,
): { base: string; keyword: 'append' | 'prepend' | 'remove'; condition?: string } | undefined {
  let at = name.indexOf(':');
  while (at >= 0) {
    for (const keyword of ['append', 'prepend', 'remove'] as const) {
      if (!name.startsWith(keyword, at + 1)) continue;
      const rest = name.slice(at + 1 + keyword.length);
      if (rest === '') return { base: name.slice(0, at), keyword };
      if (rest.startsWith(':') && !/[A-Z]/.test(rest)) {
        const condition = rest.slice(1);
        return condition
          ? { base: name.slice(0, at), keyword, condition }
          : { base: name.slice(0, at), keyword };
      }
    }
    at = name.indexOf(':', at + 1);
  }
  return undefined;
}
