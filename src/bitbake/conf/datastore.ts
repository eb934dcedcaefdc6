// A small BitBake datastore: what data_smart.py keeps per variable (value, weak default, flags,
// pending :append/:prepend/:remove) and how a read combines them: override variant, then appends,
// then prepends, then expansion, then removes. Python `${@…}` is never run.

import { hasInlinePython, listVarRefs, removeWords, replaceVarRefs, splitWords } from './expand.js';
import {
  type OverrideRef,
  overrideActive,
  overrideEntries,
  pickOverride,
  splitOperation,
} from './overrides.js';
import type { AssignOp, ConfDiagnostic, Location, Statement } from './types.js';

export interface VarValue {
  value: string;
  /** Holds `${@…}` that only BitBake can evaluate. */
  needsBitBake: boolean;
  /** The assignment whose base value won (weak default, override variant or plain value). */
  loc?: Location;
  /** `${NAME}` references left as written because NAME is not set. */
  unresolved: string[];
  /** Anonymous Python that runs after parsing changes this value (or one it references). */
  pythonSetAt?: Location;
}

export interface HistoryEntry {
  op: AssignOp | ':append' | ':prepend' | ':remove' | 'set' | 'unset' | 'export';
  /** The full name written, e.g. `FOO:append:arm`. */
  name: string;
  value: string;
  loc?: Location;
  flag?: string;
  /** Set when the operation changed nothing (`?=` on a set variable). */
  ignored?: boolean;
}

interface Pending {
  value: string;
  condition?: string;
  loc?: Location;
}

interface VarEntry {
  content?: string;
  contentLoc?: Location;
  weak?: string;
  weakLoc?: Location;
  flags: Map<string, string>;
  weakFlags: Map<string, string>;
  append: Pending[];
  prepend: Pending[];
  remove: Pending[];
}

type AssignStatement = Extract<Statement, { kind: 'assign' }>;

interface Raw {
  value: string | undefined;
  loc: Location | undefined;
  removes: Pending[];
}

const MAX_EXPANSION_ROUNDS = 100;

const newEntry = (): VarEntry => ({
  flags: new Map(),
  weakFlags: new Map(),
  append: [],
  prepend: [],
  remove: [],
});

export class DataStore {
  /** Expansion problems found while reading values (cycles), once per variable. */
  readonly diagnostics: ConfDiagnostic[] = [];
  private readonly vars = new Map<string, VarEntry>();
  private readonly overrideIndex = new Map<string, OverrideRef[]>();
  private readonly log = new Map<string, HistoryEntry[]>();
  private readonly cache = new Map<string, VarValue>();
  private overridesList: string[] | undefined;
  private computingOverrides = false;
  private readonly expanding = new Set<string>();
  private readonly reported = new Set<string>();
  private cycleHits = 0;
  /** Variables (and `NAME[flag]`s) that anonymous Python changes at finalisation. */
  private readonly pythonSets = new Map<string, Location>();
  /** Counts reads of Python-changed values, so a value that references one is marked too. */
  private pythonHits = 0;
  private pythonHitAt: Location | undefined;

  /** Apply one parsed assignment with BitBake's parse-time semantics. */
  assign(st: AssignStatement): void {
    const { name, flag, op, loc } = st;
    if (st.exported) this.setFlagRaw(name, 'export', '1', loc, 'export');
    const current = (): string | undefined =>
      flag === undefined ? this.vars.get(name)?.content : this.vars.get(name)?.flags.get(flag);
    let value = st.value;
    switch (op) {
      case '?=':
        if (current() !== undefined) {
          this.record(name, { op, name, value, loc, ...(flag ? { flag } : {}), ignored: true });
          return;
        }
        break;
      case ':=':
        // BitBake expands under the name `NAME[:=]`, so `A := "${A} x"` reads the current A.
        value = this.expandValue(st.value, `${name}[:=]`);
        break;
      case '+=':
        value = `${current() ?? ''} ${st.value}`;
        break;
      case '=+':
        value = `${st.value} ${current() ?? ''}`;
        break;
      case '.=':
        value = `${current() ?? ''}${st.value}`;
        break;
      case '=.':
        value = `${st.value}${current() ?? ''}`;
        break;
      default:
        break;
    }
    if (op === '??=') {
      const entry = this.entry(name);
      this.touch();
      if (flag === undefined) {
        entry.weak = value;
        entry.weakLoc = loc;
        this.indexOverrides(name);
      } else entry.weakFlags.set(flag, value);
      this.record(name, { op, name, value, loc, ...(flag ? { flag } : {}) });
      return;
    }
    if (flag !== undefined) this.setFlagRaw(name, flag, value, loc, op);
    else this.setVar(name, value, loc, op);
  }

  /** Set a value as a parse-time `=` does: pending :append/:prepend/:remove stay. */
  setVar(name: string, value: string, loc?: Location, op: HistoryEntry['op'] = 'set'): void {
    this.touch();
    const split = splitOperation(name);
    if (split) {
      const entry = this.entry(split.base);
      const pending: Pending = { value, ...(split.condition ? { condition: split.condition } : {}), loc };
      entry[split.keyword].push(pending);
      this.indexOverrides(split.base);
      this.record(split.base, { op: `:${split.keyword}`, name, value, loc });
      return;
    }
    const entry = this.entry(name);
    entry.content = value;
    entry.contentLoc = loc;
    this.indexOverrides(name);
    this.record(name, { op, name, value, loc });
  }

  /**
   * Replace a value outright, as BitBake's setVar outside parsing does (used by expandVarref for
   * `${LAYERDIR}`): pending operations are folded away and the active override variant is dropped.
   */
  replaceValue(name: string, value: string): void {
    const loc = this.rawValue(name).loc;
    const refs = this.overrideIndex.get(name) ?? [];
    const active = new Set(this.overrides());
    for (const r of refs.filter((ref) => overrideActive(ref.override, active))) this.delVar(r.full);
    const entry = this.entry(name);
    this.touch();
    entry.append = [];
    entry.prepend = [];
    entry.remove = [];
    entry.content = value;
    entry.contentLoc = loc;
    this.record(name, { op: 'set', name, value, loc });
  }

  setVarFlag(name: string, flag: string, value: string, loc?: Location): void {
    this.setFlagRaw(name, flag, value, loc, 'set');
  }

  /** `unset VAR`: value, weak default, flags and pending operations all go. */
  delVar(name: string, loc?: Location): void {
    this.touch();
    this.vars.set(name, newEntry());
    this.overrideIndex.delete(name);
    for (const { short, full, override } of overrideEntries(name)) {
      const refs = this.overrideIndex.get(short);
      if (refs) {
        this.overrideIndex.set(
          short,
          refs.filter((r) => !(r.full === full && r.override === override)),
        );
      }
    }
    this.record(name, { op: 'unset', name, value: '', loc });
  }

  delVarFlag(name: string, flag: string, loc?: Location): void {
    const entry = this.vars.get(name);
    if (!entry?.flags.has(flag)) return;
    this.touch();
    entry.flags.delete(flag);
    entry.weakFlags.delete(flag);
    this.record(name, { op: 'unset', name, value: '', loc, flag });
  }

  /** The value as BitBake's getVar would give it, expanded; undefined when unset. */
  getVar(name: string): VarValue | undefined {
    const cached = this.cache.get(name);
    if (cached) {
      if (cached.pythonSetAt) this.pythonHit(cached.pythonSetAt);
      return cached;
    }
    const raw = this.rawValue(name);
    const setByPython = this.pythonSets.get(name);
    if (raw.value === undefined) {
      if (setByPython === undefined) return undefined;
      this.pythonHit(setByPython);
      return { value: '', needsBitBake: true, unresolved: [], pythonSetAt: setByPython };
    }
    const before = this.cycleHits;
    const pythonBefore = this.pythonHits;
    let value = this.expandValue(raw.value, name);
    const active = raw.removes.filter((r) => this.conditionActive(r.condition));
    if (value && active.length > 0) {
      const words = new Set(active.flatMap((r) => splitWords(this.expandValue(r.value, name))));
      value = removeWords(value, words);
    }
    const result = this.finish(value, raw.loc);
    const pythonAt = setByPython ?? (this.pythonHits > pythonBefore ? this.pythonHitAt : undefined);
    if (pythonAt !== undefined) {
      result.needsBitBake = true;
      result.pythonSetAt = pythonAt;
      this.pythonHit(pythonAt);
    }
    // A value computed while a cycle was cut short depends on the path that reached it.
    if (this.cycleHits === before) this.cache.set(name, result);
    return result;
  }

  /** The unexpanded value after override selection and pending operations (BitBake's getVar(x, False)). */
  getRaw(name: string): string | undefined {
    return this.rawValue(name).value;
  }

  getVarFlag(name: string, flag: string): VarValue | undefined {
    const entry = this.vars.get(name);
    const raw = entry?.flags.get(flag) ?? entry?.weakFlags.get(flag);
    const setByPython = this.pythonSets.get(`${name}[${flag}]`);
    if (raw === undefined && setByPython === undefined) return undefined;
    const result = this.finish(this.expandValue(raw ?? '', `${name}[${flag}]`), undefined);
    if (setByPython !== undefined) {
      result.needsBitBake = true;
      result.pythonSetAt = setByPython;
    }
    return result;
  }

  /** Every flag of a variable and its value, unexpanded (BitBake's getVarFlags(name, expand=False)). */
  getVarFlags(name: string): Map<string, string> {
    const entry = this.vars.get(name);
    return new Map([...(entry?.weakFlags ?? []), ...(entry?.flags ?? [])]);
  }

  /** The variable has override variants (`NAME:o1 = …`), whether or not one is active. */
  hasOverrides(name: string): boolean {
    return (this.overrideIndex.get(name)?.length ?? 0) > 0;
  }

  /**
   * Anonymous Python (`python () { d.setVar('NAME', …) }`) changes NAME, or `NAME[flag]`, after
   * parsing: rambake never runs it, so reads of it (and of values referencing it) need BitBake.
   */
  markSetByPython(target: string, loc: Location): void {
    this.touch();
    if (!this.pythonSets.has(target)) this.pythonSets.set(target, loc);
  }

  /** Expand `${VAR}` references in any text, repeatedly until stable. */
  expand(text: string, varname?: string): VarValue {
    return this.finish(this.expandValue(text, varname), undefined);
  }

  /** Every operation on a variable (its override variants and pending operations included). */
  history(name: string): HistoryEntry[] {
    return [...(this.log.get(name.split(':')[0]!) ?? [])];
  }

  /** Names of variables that hold something (override variants appear under their full name). */
  names(): string[] {
    const out: string[] = [];
    for (const [name, e] of this.vars) {
      if (e.content !== undefined || e.weak !== undefined || e.append.length || e.prepend.length)
        out.push(name);
    }
    return out;
  }

  /** Names whose stored text (value, weak default or a pending operation) contains `text`: a cheap pre-filter. */
  namesMentioning(text: string): string[] {
    const out: string[] = [];
    const has = (p: Pending) => p.value.includes(text);
    for (const [name, e] of this.vars) {
      if (e.content?.includes(text) || e.weak?.includes(text) || e.append.some(has) || e.prepend.some(has)) {
        out.push(name);
      }
    }
    return out;
  }

  /** Variables marked for export (`export VAR`, `export VAR = …`). */
  exportedNames(): string[] {
    return [...this.vars].filter(([, e]) => e.flags.get('export') === '1').map(([n]) => n);
  }

  /** The active overrides (OVERRIDES split on `:`), computed until stable as BitBake does. */
  overrides(): readonly string[] {
    if (this.overridesList) return this.overridesList;
    if (this.computingOverrides) return [];
    this.computingOverrides = true;
    try {
      let current: string[] = [];
      for (let round = 0; round < 5; round++) {
        this.overridesList = current;
        this.cache.clear();
        const next = (this.getVar('OVERRIDES')?.value ?? '').split(':');
        if (next.length === current.length && next.every((o, i) => o === current[i])) break;
        current = next;
      }
      this.overridesList = current;
      this.cache.clear();
      return current;
    } finally {
      this.computingOverrides = false;
    }
  }

  private rawValue(name: string): Raw {
    let value: string | undefined;
    let loc: Location | undefined;
    let removes: Pending[] = [];
    const refs = this.overrideIndex.get(name);
    if (refs && refs.length > 0) {
      const winner = pickOverride(refs, this.overrides());
      if (winner !== undefined) ({ value, loc, removes } = this.rawValue(winner));
    }
    const entry = this.vars.get(name);
    if (!entry) return { value, loc, removes };
    if (value === undefined) {
      if (entry.content !== undefined) [value, loc] = [entry.content, entry.contentLoc];
      else if (entry.weak !== undefined) [value, loc] = [entry.weak, entry.weakLoc];
    }
    for (const a of entry.append) if (this.conditionActive(a.condition)) value = (value ?? '') + a.value;
    for (const p of entry.prepend) if (this.conditionActive(p.condition)) value = p.value + (value ?? '');
    return { value, loc, removes: [...removes, ...entry.remove] };
  }

  private conditionActive(condition: string | undefined): boolean {
    if (condition === undefined) return true;
    return overrideActive(condition, new Set(this.overrides()));
  }

  private expandValue(text: string, varname: string | undefined): string {
    if (varname !== undefined) this.expanding.add(varname);
    try {
      let s = text;
      for (let round = 0; round < MAX_EXPANSION_ROUNDS && s.includes('${'); round++) {
        const next = replaceVarRefs(s, (ref) => this.lookupForExpansion(ref, varname));
        if (next === s) break;
        s = next;
      }
      return s;
    } finally {
      if (varname !== undefined) this.expanding.delete(varname);
    }
  }

  private lookupForExpansion(ref: string, from: string | undefined): string | undefined {
    if (this.expanding.has(ref)) {
      this.cycleHits++;
      this.reportCycle(ref, from);
      return undefined;
    }
    return this.getVar(ref)?.value;
  }

  private pythonHit(at: Location): void {
    this.pythonHits++;
    this.pythonHitAt = at;
  }

  private reportCycle(ref: string, from: string | undefined): void {
    if (this.reported.has(ref)) return;
    this.reported.add(ref);
    const loc = this.rawValue(ref).loc;
    this.diagnostics.push({
      severity: 'error',
      code: 'expansion-cycle',
      message: `variable ${ref} references itself${from && from !== ref ? ` (through ${from})` : ''}`,
      file: loc?.file ?? '<datastore>',
      ...(loc ? { line: loc.line } : {}),
      expected: 'a value that does not refer back to its own variable',
    });
  }

  private finish(value: string, loc: Location | undefined): VarValue {
    return {
      value,
      needsBitBake: hasInlinePython(value),
      ...(loc ? { loc } : {}),
      unresolved: listVarRefs(value),
    };
  }

  private setFlagRaw(
    name: string,
    flag: string,
    value: string,
    loc: Location | undefined,
    op: HistoryEntry['op'],
  ) {
    this.touch();
    this.entry(name).flags.set(flag, value);
    this.record(name, { op, name, value, loc, flag });
  }

  private indexOverrides(name: string): void {
    for (const { short, full, override } of overrideEntries(name)) {
      const refs = this.overrideIndex.get(short) ?? [];
      if (!refs.some((r) => r.full === full && r.override === override)) refs.push({ full, override });
      this.overrideIndex.set(short, refs);
    }
  }

  private entry(name: string): VarEntry {
    let e = this.vars.get(name);
    if (!e) {
      e = newEntry();
      this.vars.set(name, e);
    }
    return e;
  }

  private touch(): void {
    this.cache.clear();
    if (!this.computingOverrides) this.overridesList = undefined;
  }

  private record(name: string, entry: HistoryEntry): void {
    const key = name.split(':')[0]!;
    const list = this.log.get(key);
    if (list) list.push(entry);
    else this.log.set(key, [entry]);
  }
}
