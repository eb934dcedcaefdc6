// A small datastore with BitBake's read rules (data_smart.py, bitbake-formats.md §1): a value,
// a weak default (??=), flags, pending :append/:prepend/:remove with their override conditions,
// override variants (VAR:o) chosen by OVERRIDES, and ${VAR} expansion. Written for the fake
// BitBake; it shares no code with rambake's own evaluator.

import os from 'node:os';

export interface HistoryEntry {
  op: string;
  file: string;
  line: number;
  detail: string;
}

/** Where an assignment came from; `op` names the operator as BitBake's history does. */
export type Origin = Omit<HistoryEntry, 'detail'>;

interface Pending {
  value: string;
  /** Overrides that must all be active, `o1:o2`; none: always. */
  when?: string;
}

interface Entry {
  content?: string;
  weak?: string;
  flags: Map<string, string>;
  append: Pending[];
  prepend: Pending[];
  remove: Pending[];
  history: HistoryEntry[];
}

// `FOO:append:pn-bar` → base FOO, keyword :append, when pn-bar
const KEYWORD = /^(.*?)(:append|:prepend|:remove)(?::([^A-Z]*))?$/;
const VAR_REF = /\$\{[a-zA-Z0-9\-_+./~:]+\}/g;
const PY_REF = /\$\{@(?:\{.*?\}|.)+?\}/g;

/** CPUs this process may run on, capped at 64: oe.utils.cpu_count(). */
export function cpuCount(): number {
  return Math.max(1, Math.min(os.availableParallelism(), 64));
}

/** The few strftime fields bitbake.conf's DATE and TIME use, in UTC. */
function utcStrftime(format: string, d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const fields: Record<string, string> = {
    Y: String(d.getUTCFullYear()),
    m: two(d.getUTCMonth() + 1),
    d: two(d.getUTCDate()),
    H: two(d.getUTCHours()),
    M: two(d.getUTCMinutes()),
    S: two(d.getUTCSeconds()),
  };
  return format.replace(/%([YmdHMS%])/g, (_, f: string) => (f === '%' ? '%' : (fields[f] ?? '')));
}

/** bb.utils.to_boolean, for flags such as [export]. */
export function toBoolean(v: string | undefined): boolean {
  return v !== undefined && ['1', 'yes', 'y', 'true', 't', 'on'].includes(v.trim().toLowerCase());
}

export class Store {
  private vars = new Map<string, Entry>();
  /** Base name → its override variants (`TMPDIR` → `TMPDIR:forcevariable`, override `forcevariable`). */
  private variants = new Map<string, { name: string; override: string }[]>();
  private cache = new Map<string, string | undefined>();
  private overridesList: string[] | undefined;
  private computingOverrides = false;

  clone(): Store {
    const c = new Store();
    for (const [k, e] of this.vars) {
      c.vars.set(k, {
        ...e,
        flags: new Map(e.flags),
        append: [...e.append],
        prepend: [...e.prepend],
        remove: [...e.remove],
        history: [...e.history],
      });
    }
    for (const [k, v] of this.variants) c.variants.set(k, [...v]);
    return c;
  }

  /** A plain `=` (or the result of ?=, +=, …). `VAR:append` and friends are queued on VAR. */
  set(name: string, value: string, origin: Origin): void {
    this.changed();
    const m = KEYWORD.exec(name);
    if (m) {
      const base = m[1] ?? '';
      const list = m[2] === ':append' ? 'append' : m[2] === ':prepend' ? 'prepend' : 'remove';
      const e = this.entry(base);
      e[list].push({ value, ...(m[3] ? { when: m[3] } : {}) });
      e.history.push({ ...origin, op: m[3] ? `${m[2]}[${m[3]}]` : (m[2] ?? ''), detail: value });
      this.registerVariant(base);
      return;
    }
    const e = this.entry(name);
    e.content = value;
    e.history.push({ ...origin, detail: value });
    this.registerVariant(name);
  }

  /** `??=`: used only when nothing else sets the variable; the last one wins. */
  setWeak(name: string, value: string, origin: Origin): void {
    this.changed();
    const e = this.entry(name);
    e.weak = value;
    e.history.push({ ...origin, detail: value });
    this.registerVariant(name);
  }

  setFlag(name: string, flag: string, value: string): void {
    this.changed();
    this.entry(name).flags.set(flag, value);
  }

  flag(name: string, flag: string): string | undefined {
    return this.vars.get(name)?.flags.get(flag);
  }

  deleteFlag(name: string, flag: string): void {
    this.changed();
    this.vars.get(name)?.flags.delete(flag);
  }

  /** `unset VAR`: the variable, its queued operations and its variants go. */
  delete(name: string): void {
    this.changed();
    this.vars.delete(name);
    this.variants.delete(name);
  }

  /** The value as assigned so far, no weak default, nothing applied (what ?= and += look at). */
  raw(name: string): string | undefined {
    return this.vars.get(name)?.content;
  }

  has(name: string): boolean {
    return this.vars.has(name);
  }

  isExported(name: string): boolean {
    return toBoolean(this.flag(name, 'export'));
  }

  history(name: string): HistoryEntry[] {
    return this.vars.get(name)?.history ?? [];
  }

  /** expandVarref: `${LAYERDIR}` written into every stored value now, as the cooker does per layer. */
  replaceReference(ref: string, value: string): void {
    this.changed();
    const put = (s: string) => s.split(`\${${ref}}`).join(value);
    for (const e of this.vars.values()) {
      if (e.content !== undefined) e.content = put(e.content);
      if (e.weak !== undefined) e.weak = put(e.weak);
      for (const list of [e.append, e.prepend, e.remove]) {
        for (const p of list) p.value = put(p.value);
      }
    }
  }

  /** Every variable name BitBake's keys() would list: stored ones and bases of active variants. */
  names(): string[] {
    const out = new Set([...this.vars.keys()].filter((k) => !k.startsWith('__')));
    for (const base of this.variants.keys()) if (this.pickVariant(base)) out.add(base);
    return [...out].sort();
  }

  /** The value as BitBake's getVar(name) gives it: variant, appends, prepends, expansion, removes. */
  get(name: string): string | undefined {
    return this.expanded(name, new Set());
  }

  /** The value before expansion (BitBake's getVar(name, False)). */
  unexpanded(name: string): string | undefined {
    const e = this.vars.get(name);
    const variant = this.pickVariant(name);
    let value = variant !== undefined ? this.unexpanded(variant) : undefined;
    if (value === undefined && e) value = e.content ?? e.weak;
    if (!e) return value;
    for (const a of e.append) if (this.active(a.when)) value = (value ?? '') + a.value;
    for (const p of e.prepend) if (this.active(p.when)) value = p.value + (value ?? '');
    return value;
  }

  /** Expands ${VAR} references until nothing changes; ${@…} stays unless it is a known form. */
  expand(text: string, seen: Set<string> = new Set()): string {
    let s = text;
    while (s.includes('${')) {
      const before = s;
      s = s.replace(VAR_REF, (ref) => {
        const key = ref.slice(2, -1);
        if (seen.has(key)) return ref; // a cycle: BitBake stops with an error; the fake keeps it literal
        return this.expanded(key, seen) ?? ref;
      });
      s = s.replace(PY_REF, (ref) => this.knownPython(ref.slice(3, -1).trim()) ?? ref);
      if (s === before) break;
    }
    return s;
  }

  /** OVERRIDES as a list (forcevariable is normally last). */
  overrides(): string[] {
    if (this.overridesList) return this.overridesList;
    if (this.computingOverrides) return [];
    this.computingOverrides = true;
    try {
      this.overridesList = (this.get('OVERRIDES') ?? '').split(':').filter((o) => o !== '');
    } finally {
      this.computingOverrides = false;
    }
    return this.overridesList;
  }

  private expanded(name: string, seen: Set<string>): string | undefined {
    if (this.cache.has(name)) return this.cache.get(name);
    const raw = this.unexpanded(name);
    if (raw === undefined) return undefined;
    let value = this.expand(raw, new Set([...seen, name]));
    const removes = new Set<string>();
    for (const r of this.vars.get(name)?.remove ?? []) {
      if (this.active(r.when)) for (const w of this.expand(r.value).split(/\s+/)) if (w) removes.add(w);
    }
    // Whole words go, the blanks around them stay (data_smart splits on single blanks).
    if (removes.size > 0)
      value = value
        .split(/(\s)/)
        .filter((w) => !removes.has(w))
        .join('');
    this.cache.set(name, value);
    return value;
  }

  /**
   * The few Python forms of OE-Core's conf files the fake knows the answer to; anything else
   * is left as written and the caller treats the variable as unset.
   */
  private knownPython(code: string): string | undefined {
    if (code === 'oe.utils.cpu_count()') return String(cpuCount());
    // bitbake.conf's DATE and TIME: `time.strftime('%Y%m%d', time.gmtime())`.
    const clock = /^time\.strftime\(\s*['"]([^'"]*)['"]\s*,\s*time\.gmtime\(\)\s*\)$/.exec(code);
    if (clock) return utcStrftime(clock[1] ?? '', new Date());
    const getvar = /^d\.getVar\(\s*['"]([\w-]+)['"]\s*\)(?:\s+or\s+(?:''|""))?$/.exec(code);
    if (getvar) return this.get(getvar[1] ?? '') ?? '';
    return undefined;
  }

  private active(when: string | undefined): boolean {
    if (!when) return true;
    const ov = this.overrides();
    return when.split(':').every((o) => ov.includes(o));
  }

  /** The variant whose override comes latest in OVERRIDES (forcevariable beats all). */
  private pickVariant(name: string): string | undefined {
    const list = this.variants.get(name);
    if (!list || this.computingOverrides) return undefined;
    const ov = this.overrides();
    let best: string | undefined;
    let rank = -1;
    for (const v of list) {
      if (!this.vars.has(v.name)) continue;
      const parts = v.override.split(':');
      if (!parts.every((p) => ov.includes(p))) continue;
      const r = Math.max(...parts.map((p) => ov.lastIndexOf(p)));
      if (r >= rank) {
        best = v.name;
        rank = r;
      }
    }
    return best;
  }

  /** `A:b:c` is a variant of `A:b` (override c) and of `A` (override b:c). */
  private registerVariant(full: string): void {
    let idx = full.lastIndexOf(':');
    while (idx > 0) {
      const override = full.slice(idx + 1);
      const base = full.slice(0, idx);
      if (!/^[a-z0-9]/.test(override)) break;
      const list = this.variants.get(base) ?? [];
      if (!list.some((v) => v.name === full)) list.push({ name: full, override });
      this.variants.set(base, list);
      idx = base.lastIndexOf(':');
    }
  }

  private entry(name: string): Entry {
    let e = this.vars.get(name);
    if (!e) {
      e = { flags: new Map(), append: [], prepend: [], remove: [], history: [] };
      this.vars.set(name, e);
    }
    return e;
  }

  private changed(): void {
    this.cache.clear();
    this.overridesList = undefined;
  }
}
