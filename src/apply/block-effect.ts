// Does rambake's managed block take effect? BitBake reads site.conf, auto.conf, toolcfg.conf and
// local.conf in that order, then the distro conf, so a plain `TMPDIR = …` in local.conf beats
// the block in auto.conf (checked on BitBake 2.15.2). Pure: the configuration evaluated with
// the block in place → per line, the value BitBake will use, and whether the block's is it.
// A line that loses is rewritten in a form BitBake applies after every plain assignment:
// `X = "v"` → `X:forcevariable = "v"` (forcevariable is the last entry of OVERRIDES), and
// `X += "v"` → `X:append = " v"` (appends are applied when the value is read).

import type { DataStore } from '../bitbake/conf/datastore.js';
import { splitWords } from '../bitbake/conf/expand.js';
import { parseConf } from '../bitbake/conf/parser.js';
import type { Location } from '../bitbake/conf/types.js';

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
  /** Where the winning value was set, when it is not the block. */
  winner?: Location;
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
export function blockEffects(data: DataStore, lines: readonly string[]): BlockLineEffect[] {
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
    out.push({
      line,
      name: a.base,
      kind: words ? 'words' : 'value',
      expected,
      actual,
      ok,
      ...(ok || !v?.loc ? {} : { winner: v.loc }),
    });
  }
  return out;
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
