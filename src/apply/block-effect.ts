// Does rambake's managed block take effect? BitBake reads site.conf, auto.conf, toolcfg.conf and
// local.conf in that order, then the distro conf, so a plain `TMPDIR = …` in local.conf beats
// the block in auto.conf (checked on BitBake 2.15.2). Pure: the configuration evaluated with
// the block in place → per line, the value BitBake will use, and whether the block's is it.
// A line that loses is rewritten in a form BitBake applies after every plain assignment:
// `X = "v"` → `X:forcevariable = "v"` (forcevariable is the last entry of OVERRIDES), and
// `X += "v"` → `X:append = " v"` (appends are applied when the value is read).
// What :forcevariable cannot beat: BitBake (data_smart.py getVarFlag) picks the override variant
// first and then applies the base variable's :append, :prepend and :remove on top of it, so
// `TMPDIR:append = "-x"` in local.conf turns a forced "/ram" into "/ram-x" (checked with
// `bitbake -e` on BitBake 2.15.2). Such a line is named as the one that wins.

import { DataStore } from '../bitbake/conf/datastore.js';
import { splitWords } from '../bitbake/conf/expand.js';
import { overrideActive, splitOperation } from '../bitbake/conf/overrides.js';
import { parseConf } from '../bitbake/conf/parser.js';
import type { Location, Statement } from '../bitbake/conf/types.js';
import { findBlock } from '../plan/managed-block.js';

export interface BlockLineEffect {
  /** The block line as written. */
  line: string;
  /** The variable it sets (without overrides). */
  name: string;
  /** value: the whole value must be the block's; words: the block's words must be in it (`+=`). */
  kind: 'value' | 'words' | 'per-recipe';
  /** The block's value, expanded in the same configuration. */
  expected: string;
  /** The value BitBake will use, as rambake evaluates it. */
  actual: string | undefined;
  ok: boolean;
  /** The assignment that makes the value differ from the block's, when rambake can tell. */
  winner?: Winner;
}

export interface Winner {
  loc: Location;
  /** What that line does: sets the value, or changes it after every assignment. */
  how: 'sets' | 'unsets' | 'appends to' | 'prepends to' | 'removes from';
  /** The line's value as written (for :append and friends, what it adds or removes). */
  value: string;
}

interface BlockAssign {
  name: string;
  base: string;
  overrides: string[];
  op: string;
  value: string;
}

function parseLine(line: string): BlockAssign | undefined {
  const st = parseConf(line, '<block>').statements[0];
  if (st?.kind !== 'assign' || st.flag !== undefined) return undefined;
  const [base, ...overrides] = st.name.split(':');
  return { name: st.name, base: base!, overrides, op: st.op, value: st.value };
}

/** The effect of each assignment of the block, in a configuration that holds the block. */
export function blockEffects(
  data: DataStore,
  lines: readonly string[],
  isBlock: (loc: Location) => boolean,
): BlockLineEffect[] {
  const out: BlockLineEffect[] = [];
  for (const line of lines) {
    const a = parseLine(line);
    if (!a) continue;
    const expected = data.expand(a.value).value;
    // `WORKDIR:pn-foo`: only BitBake's parse of recipe foo applies it.
    if (a.overrides.some((o) => o.startsWith('pn-'))) {
      out.push({ line, name: a.base, kind: 'per-recipe', expected, actual: undefined, ok: true });
      continue;
    }
    const v = data.getVar(a.base);
    const actual = v?.value;
    const words = a.op === '+=' || a.overrides.includes('append');
    const ok = words
      ? splitWords(expected).every((w) => splitWords(actual).includes(w))
      : actual === expected;
    const winner = ok ? undefined : winnerOf(data, a.base, words ? 'words' : 'value', isBlock);
    out.push({
      line,
      name: a.base,
      kind: words ? 'words' : 'value',
      expected,
      actual,
      ok,
      ...(winner ? { winner } : {}),
    });
  }
  return out;
}

const HOW = { ':append': 'appends to', ':prepend': 'prepends to', ':remove': 'removes from' } as const;

/**
 * The assignment outside the block that decides `name`'s value, from the datastore's history
 * (parse order). For a whole value (`kind` value): the plain or override assignment whose value
 * BitBake takes, when it is not the block's; else the last :append/:prepend/:remove that applies
 * (they come after every override, :forcevariable included). For words the block adds (`+=`,
 * :append): the last :remove that applies, else a later plain assignment that replaced them.
 */
export function winnerOf(
  data: DataStore,
  name: string,
  kind: 'value' | 'words',
  isBlock: (loc: Location) => boolean,
): Winner | undefined {
  const history = data.history(name).filter((h) => h.loc && h.flag === undefined && !isBlock(h.loc));
  const v = data.getVar(name);
  const base =
    v?.loc && !isBlock(v.loc)
      ? history.findLast((h) => h.loc!.file === v.loc!.file && h.loc!.line === v.loc!.line)
      : undefined;
  if (v === undefined) {
    const unset = history.findLast((h) => h.op === 'unset');
    return unset ? { loc: unset.loc!, how: 'unsets', value: '' } : undefined;
  }
  const active = new Set(data.overrides());
  const applies = (full: string): boolean => {
    const op = splitOperation(full);
    if (!op) return false;
    if (op.condition !== undefined && !overrideActive(op.condition, active)) return false;
    // `TMPDIR:forcevariable:append`: applies when that variant is in OVERRIDES.
    return (
      op.base === name ||
      (op.base.startsWith(`${name}:`) && overrideActive(op.base.slice(name.length + 1), active))
    );
  };
  const mods = history.filter(
    (h) => (h.op === ':append' || h.op === ':prepend' || h.op === ':remove') && applies(h.name),
  );
  const mod = (kind === 'words' ? mods.filter((m) => m.op === ':remove') : mods).at(-1);
  const asWinner = (h: (typeof history)[number]): Winner => ({
    loc: h.loc!,
    how: h.op in HOW ? HOW[h.op as keyof typeof HOW] : 'sets',
    value: h.value,
  });
  if (kind === 'words' && mod) return asWinner(mod);
  if (base) return asWinner(base);
  if (v.loc && !isBlock(v.loc)) return { loc: v.loc, how: 'sets', value: v.value };
  return mod ? asWinner(mod) : undefined;
}

/** A line of `text` (the conf file `files` name) inside rambake's managed block. */
export function inBlockText(files: readonly string[], text: string): (loc: Location) => boolean {
  const found = findBlock(text);
  if (!found) return () => false;
  // The begin marker's line number (1-based); the block's lines (and the note) follow it.
  const begin = text.slice(0, found.start).split('\n').length;
  const inner = found.lines.length + (found.addedBreak ? 1 : 0);
  return (loc) => files.includes(loc.file) && loc.line > begin && loc.line <= begin + inner;
}

/** An assignment of `file` that is one of the block's lines (same name, operator and value). */
export function inBlockStatements(
  statements: readonly Statement[],
  file: string,
  lines: readonly string[],
): (loc: Location) => boolean {
  const own = new Set(lines.map((l) => parseConf(l, '<block>').statements[0]).map(assignKey));
  const at = new Set(
    statements.filter((st) => st.loc.file === file && own.has(assignKey(st))).map((st) => `${st.loc.line}`),
  );
  return (loc) => loc.file === file && at.has(`${loc.line}`);
}

function assignKey(st: Statement | undefined): string | undefined {
  return st?.kind === 'assign' ? `${st.name}\0${st.op}\0${st.value}` : undefined;
}

/**
 * A datastore holding what `statements` (a build's conf statements in reading order) assign, for
 * finding which line decides a value. `overrides`: BitBake's own OVERRIDES, when it was asked,
 * so that the variants BitBake picks are the ones judged.
 */
export function replayStatements(
  topdir: string,
  statements: readonly Statement[],
  overrides?: string,
): DataStore {
  const data = new DataStore();
  data.setVar('TOPDIR', topdir);
  for (const st of statements) {
    if (st.kind === 'assign') data.assign(st);
    else if (st.kind === 'unset') {
      if (st.flag === undefined) data.delVar(st.name, st.loc);
      else data.delVarFlag(st.name, st.flag, st.loc);
    }
  }
  if (overrides !== undefined) data.setVar('OVERRIDES', overrides);
  return data;
}

/**
 * Does `data` (a re-reading of the conf files) give `name` the value `actual` that was judged?
 * Its own expansion, or its unexpanded value expanded with the judged values (BitBake's, whose
 * variables a re-reading may lack: the environment, Python). Only then is its winner the one.
 */
export function rereadAgrees(
  data: DataStore,
  name: string,
  actual: string | undefined,
  lookup: (name: string) => string | undefined,
): boolean {
  if (data.getVar(name)?.value === actual) return true;
  const raw = data.getRaw(name);
  return raw !== undefined && expandWith(lookup, raw) === actual;
}

/** The winner as the one line a refusal or a finding names: `file:line appends "-x" to TMPDIR`. */
export function describeWinner(w: Winner, name: string): string {
  const where = `${w.loc.file}:${w.loc.line}`;
  if (w.how === 'sets' || w.how === 'unsets') return `${where} ${w.how} ${name}`;
  const what = w.how === 'removes from' ? 'removes' : w.how === 'appends to' ? 'appends' : 'prepends';
  return `${where} ${what} "${w.value}" ${w.how.split(' ')[1]} ${name}`;
}

/** The same setting in a form that wins over later plain assignments; undefined if it has none. */
export function forcedLine(line: string): string | undefined {
  const a = parseLine(line);
  if (!a || a.overrides.length > 0) return undefined;
  const quoted = line.slice(line.indexOf('"'));
  if (a.op === '=') return `${a.name}:forcevariable = ${quoted}`;
  if (a.op === '+=') return `${a.name}:append = " ${a.value}"`;
  return undefined;
}

/** `${NAME}` replaced by `lookup`'s values until stable (for comparing with BitBake's own). */
export function expandWith(lookup: (name: string) => string | undefined, text: string): string {
  let out = text;
  for (let i = 0; i < 20; i++) {
    const next = out.replace(/\$\{([A-Za-z0-9_\-+./~:]+)\}/g, (ref, name: string) => lookup(name) ?? ref);
    if (next === out) break;
    out = next;
  }
  return out;
}

// BitBake expands DATETIME (and DATE, TIME) when a value is read: a log file name printed a
// second later holds another time. Such references match any time (one path segment's text).
const CLOCK_REF = /\$\{(?:DATETIME|DATE|TIME)\}/;

function sameUpToClock(value: string, lookup: (name: string) => string | undefined, actual: string): boolean {
  const parts = value.split(new RegExp(CLOCK_REF.source, 'g'));
  if (parts.length === 1) return expandWith(lookup, value) === actual;
  const escaped = parts.map((p) => expandWith(lookup, p).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // Digits from BitBake; the unevaluated `${@time…}` Python in rambake's own reading.
  return new RegExp(`^${escaped.join('[^/]*')}$`).test(actual);
}

export interface LostLine {
  line: string;
  name: string;
  /** The block's value, expanded with the same values. */
  expected: string;
  /** The value in effect. */
  actual: string | undefined;
}

/**
 * The block's lines whose value is not the one in effect, given every variable's final value
 * (BitBake's `bitbake -e`, or the BuildDir's best source). Per-recipe lines are not judged.
 */
export function linesNotInEffect(
  lines: readonly string[],
  lookup: (name: string) => string | undefined,
): LostLine[] {
  const out: LostLine[] = [];
  for (const line of lines) {
    const a = parseLine(line);
    if (!a || a.overrides.some((o) => o.startsWith('pn-'))) continue;
    const expected = expandWith(lookup, a.value);
    const actual = lookup(a.base);
    const words = a.op === '+=' || a.overrides.includes('append');
    const ok = words
      ? splitWords(expected).every((w) => splitWords(actual).includes(w))
      : actual !== undefined && sameUpToClock(a.value, lookup, actual);
    if (!ok) out.push({ line, name: a.base, expected, actual });
  }
  return out;
}
