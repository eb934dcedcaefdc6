// A small BitBake datastore: what data_smart.py keeps per variable (value, weak default, flags,
// pending :append/:prepend/:remove) and how a read combines them: override variant, then appends,
// then prepends, then expansion, then removes. Python `${@…}` is never run.

import {
  ExpansionStopped,
  hasInlinePython,
  listVarRefs,
  MAX_EXPANDED_LENGTH,
  MAX_EXPANSION_DEPTH,
  removeWords,
  replaceVarRefs,
  splitWords,
} from './expand.js';
import {
  type OverrideRef,
  overrideActive,
  overrideEntries,
  PYTHON_SLOT,
  pickDependsOnPython,
  pickOverride,
  splitOperation,
  splitOverrides,
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
  /**
   * The override variant or conditional operation this value takes (or one it references takes)
   * depends on OVERRIDES, which holds Python (`${@…}`) written here: rambake's pick is a guess.
   */
  overridesPythonAt?: Location;
}

/** A read of a value that Python decides: who decides (anonymous Python, or Python in OVERRIDES) and where. */
interface PythonHit {
  at: Location;
  overrides: boolean;
}

const hitOf = (v: VarValue): PythonHit | undefined =>
  v.pythonSetAt
    ? { at: v.pythonSetAt, overrides: false }
    : v.overridesPythonAt
      ? { at: v.overridesPythonAt, overrides: true }
      : undefined;

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
  /** Expansion failures found while reading values (cycles, too deep, too long), once per variable. */
  readonly diagnostics: ConfDiagnostic[] = [];
  private readonly vars = new Map<string, VarEntry>();
  private readonly overrideIndex = new Map<string, OverrideRef[]>();
  private readonly log = new Map<string, HistoryEntry[]>();
  private readonly cache = new Map<string, VarValue>();
  /** Variables whose expansion failed: later reads fail at once instead of redoing the work. */
  private readonly failed = new Map<string, VarValue>();
  /** How many expansions are nested right now (getVar inside getVar). */
  private depth = 0;
  private overridesList: string[] | undefined;
  private computingOverrides = false;
  private readonly expanding = new Set<string>();
  private readonly reported = new Set<string>();
  /** Variables (and `NAME[flag]`s) that anonymous Python changes at finalisation. */
  private readonly pythonSets = new Map<string, Location>();
  /** Counts reads of Python-changed values, so a value that references one is marked too. */
  private pythonHits = 0;
  private pythonHitAt: PythonHit | undefined;
  /** Where OVERRIDES's Python was written, when it holds some: the active overrides are then a guess. */
  private overridesPythonAt: Location | undefined;

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
        value = this.expand(st.value, `${name}[:=]`).value;
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
      const hit = hitOf(cached);
      if (hit) this.pythonHit(hit);
      return cached;
    }
    const failed = this.failed.get(name);
    if (failed) {
      if (this.depth > 0) throw new ExpansionStopped(name);
      return failed;
    }
    // Counted from before the override pick: a pick that Python in OVERRIDES decides is a hit.
    const pythonBefore = this.pythonHits;
    const raw = this.rawValue(name);
    const setByPython = this.pythonSets.get(name);
    if (raw.value === undefined) {
      if (setByPython === undefined) return undefined;
      this.pythonHit({ at: setByPython, overrides: false });
      return { value: '', needsBitBake: true, unresolved: [], pythonSetAt: setByPython };
    }
    let value: string;
    try {
      value = this.expandValue(raw.value, name);
      const active = raw.removes.filter((r) => this.conditionActive(r.condition));
      if (value && active.length > 0) {
        const words = new Set(active.flatMap((r) => splitWords(this.expandValue(r.value, name))));
        value = removeWords(value, words);
      }
    } catch (err) {
      return this.failedRead(err, name, raw.value, raw.loc);
    }
    const result = this.finish(value, raw.loc);
    const hit: PythonHit | undefined = setByPython
      ? { at: setByPython, overrides: false }
      : this.pythonHits > pythonBefore
        ? this.pythonHitAt
        : undefined;
    if (hit !== undefined) {
      result.needsBitBake = true;
      if (hit.overrides) result.overridesPythonAt = hit.at;
      else result.pythonSetAt = hit.at;
      this.pythonHit(hit);
    }
    this.cache.set(name, result);
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
    let result: VarValue;
    try {
      result = this.finish(this.expandValue(raw ?? '', `${name}[${flag}]`), undefined);
    } catch (err) {
      return this.failedRead(err, undefined, raw ?? '', undefined);
    }
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
    try {
      return this.finish(this.expandValue(text, varname), undefined);
    } catch (err) {
      return this.failedRead(err, undefined, text, undefined);
    }
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

  /**
   * What BitBake's configuration hash expands, right after parsing (data_smart.py get_hash): it
   * reads every variable unexpanded, but one with an active override variant has the winning
   * variant's value expanded on the way (getVarFlag's retparser). A reference cycle there stops
   * BitBake ("Unable to update the server configuration …", RecursionError) even when nothing
   * uses the variable, so those values are expanded here: a failure is a diagnostic like any
   * other. The hash skips BB_HASHCONFIG_IGNORE_VARS and names starting with `__`.
   */
  expandLikeConfigHash(): void {
    const ignore = new Set(splitWords(this.getVar('BB_HASHCONFIG_IGNORE_VARS')?.value));
    const overrides = this.overrides();
    for (const [name, refs] of this.overrideIndex) {
      if (name.startsWith('__') || ignore.has(name)) continue;
      const winner = pickOverride(refs, overrides);
      if (winner !== undefined) this.getVar(winner);
    }
  }

  /** The active overrides (OVERRIDES split on `:`), computed until stable as BitBake does. */
  overrides(): readonly string[] {
    if (this.overridesList) return this.overridesList;
    if (this.computingOverrides) return [];
    this.computingOverrides = true;
    // OVERRIDES is read as an outermost read even when asked for in the middle of another
    // expansion: its own failure is recorded, not thrown into the expansion that needed it.
    // Python read while computing them is not the outer read's own (whichever read came first).
    const outer = {
      depth: this.depth,
      expanding: [...this.expanding],
      hits: this.pythonHits,
      at: this.pythonHitAt,
    };
    this.depth = 0;
    this.expanding.clear();
    try {
      let current: string[] = [];
      this.overridesPythonAt = undefined;
      for (let round = 0; round < 5; round++) {
        this.overridesList = current;
        this.forget();
        const next = splitOverrides(this.getVar('OVERRIDES')?.value ?? '');
        if (next.length === current.length && next.every((o, i) => o === current[i])) break;
        current = next;
      }
      this.overridesList = current;
      if (current.includes(PYTHON_SLOT))
        this.overridesPythonAt = this.pythonWrittenAt('OVERRIDES') ?? { file: 'OVERRIDES', line: 0 };
      this.forget();
      return current;
    } finally {
      this.computingOverrides = false;
      this.depth = outer.depth;
      for (const name of outer.expanding) this.expanding.add(name);
      this.pythonHits = outer.hits;
      this.pythonHitAt = outer.at;
    }
  }

  private rawValue(name: string): Raw {
    let value: string | undefined;
    let loc: Location | undefined;
    let removes: Pending[] = [];
    const refs = this.overrideIndex.get(name);
    if (refs && refs.length > 0) {
      const overrides = this.overrides();
      const winner = pickOverride(refs, overrides);
      if (pickDependsOnPython(refs, winner, overrides)) this.overridesGuessed();
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
    const active = overrideActive(condition, new Set(this.overrides()));
    // An active condition stays active; an inactive one could be what the Python gives.
    if (!active) this.overridesGuessed();
    return active;
  }

  private expandValue(text: string, varname: string | undefined): string {
    if (this.depth >= MAX_EXPANSION_DEPTH) {
      const subject = varname ?? text;
      this.stop(
        'expansion-limit',
        subject,
        `Failure expanding variable ${subject}: references nest more than ${MAX_EXPANSION_DEPTH} deep`,
        'a shorter chain of ${} references',
      );
    }
    if (varname !== undefined) this.expanding.add(varname);
    this.depth++;
    try {
      let s = text;
      for (let round = 0; round < MAX_EXPANSION_ROUNDS && s.includes('${'); round++) {
        // Values looked up are already expanded and cached, so a round costs the length of its
        // result; the cap keeps `A = "${B}${B}"` chains from doubling without end.
        let length = s.length;
        const next = replaceVarRefs(s, (ref) => {
          const value = this.lookupForExpansion(ref, varname);
          if (value !== undefined) length += value.length - (ref.length + 3); // `${ref}` goes
          if (length > MAX_EXPANDED_LENGTH) {
            const subject = varname ?? ref;
            this.stop(
              'expansion-limit',
              subject,
              `Failure expanding variable ${subject}: the value grows past ${MAX_EXPANDED_LENGTH} characters`,
              'a value that does not multiply itself through references',
            );
          }
          return value;
        });
        if (next === s) break;
        s = next;
      }
      return s;
    } finally {
      this.depth--;
      if (varname !== undefined) this.expanding.delete(varname);
    }
  }

  private lookupForExpansion(ref: string, from: string | undefined): string | undefined {
    if (this.expanding.has(ref)) {
      const through = from && from !== ref ? ` (through ${from})` : '';
      this.stop(
        'expansion-cycle',
        ref,
        `variable ${ref} references itself${through}`,
        'a value that does not refer back to its own variable',
      );
    }
    return this.getVar(ref)?.value;
  }

  /**
   * The outermost read of a failed expansion records the failure and answers with the text as
   * written (BitBake has no value at all: its ExpansionError is fatal); nested reads pass it up.
   */
  private failedRead(
    err: unknown,
    name: string | undefined,
    text: string,
    loc: Location | undefined,
  ): VarValue {
    if (!(err instanceof ExpansionStopped)) throw err;
    const result: VarValue = {
      value: text,
      needsBitBake: false,
      ...(loc ? { loc } : {}),
      unresolved: listVarRefs(text),
    };
    if (name !== undefined) this.failed.set(name, result);
    if (this.depth > 0) throw err;
    return result;
  }

  private pythonHit(hit: PythonHit): void {
    this.pythonHits++;
    this.pythonHitAt = hit;
  }

  /** What the active overrides decided here could change with what OVERRIDES's Python gives. */
  private overridesGuessed(): void {
    if (this.overridesPythonAt) this.pythonHit({ at: this.overridesPythonAt, overrides: true });
  }

  /**
   * The operation that brought Python into `name`'s value: history holds each operation's result,
   * so an `=.` with Python followed by a `.=` names the `=.`, not the `.=` that kept it.
   */
  private pythonIntroducedAt(name: string): Location | undefined {
    const KEEPS = new Set<HistoryEntry['op']>(['.=', '=.', '+=', '=+']);
    let at: Location | undefined;
    let had = false;
    for (const h of this.history(name)) {
      if (h.name !== name || h.flag !== undefined || h.ignored) continue;
      const has = hasInlinePython(h.value);
      if (has && !(had && KEEPS.has(h.op))) at = h.loc;
      had = has;
    }
    return at;
  }

  /** Where the `${@…}` that `name`'s value holds was written: its own assignment or one it references. */
  private pythonWrittenAt(name: string, seen = new Set<string>()): Location | undefined {
    if (seen.has(name)) return undefined;
    seen.add(name);
    const raw = this.rawValue(name);
    if (raw.value === undefined) return undefined;
    if (hasInlinePython(raw.value)) return this.pythonIntroducedAt(name) ?? raw.loc;
    for (const ref of listVarRefs(raw.value)) {
      const at = this.pythonWrittenAt(ref, seen);
      if (at) return at;
    }
    return undefined;
  }

  /** Report an expansion failure once per variable (at its assignment) and stop the expansion. */
  private stop(
    code: 'expansion-cycle' | 'expansion-limit',
    subject: string,
    message: string,
    expected: string,
  ): never {
    if (!this.reported.has(subject)) {
      this.reported.add(subject);
      const loc = this.rawValue(subject).loc;
      this.diagnostics.push({
        severity: 'error',
        code,
        message,
        file: loc?.file ?? '<datastore>',
        ...(loc ? { line: loc.line } : {}),
        expected,
      });
    }
    throw new ExpansionStopped(subject);
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
    this.forget();
    if (!this.computingOverrides) this.overridesList = undefined;
  }

  /** Drop every computed value: a change to any variable can change any expansion. */
  private forget(): void {
    this.cache.clear();
    this.failed.clear();
  }

  private record(name: string, entry: HistoryEntry): void {
    const key = name.split(':')[0]!;
    const list = this.log.get(key);
    if (list) list.push(entry);
    else this.log.set(key, [entry]);
  }
}
