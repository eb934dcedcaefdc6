// A seeded generator of random but valid conf snippets for the differential suite. Each case
// owns a name prefix (C17_A, C17_B …), its own override names (c17x active, c17y never active)
// and its own environment variables, so hundreds of cases share one local.conf and one
// `bitbake -e`. Statements cover every operator of bitbake-formats.md §1, override variants
// (`:c17x`, `:forcevariable`, `:append:c17x`), flags, unset, export, `${VAR}` references, the
// environment, `??=`/`?=` chains mixed with `=`, line continuations, single-quoted values, and
// include, require and include_all of generated files, plus an include of a missing file.
//
// A case is a list of units (one statement, or one include line with its file) so that a
// failing case can be shrunk by dropping units, and renamed (`withTag`) so that the candidates
// of one shrinking round share one BitBake run.

export interface Unit {
  /** The unit's lines of local.conf (a continued statement spans several). */
  lines: string[];
  /** The file the unit includes, by name relative to conf/, and its lines. */
  file?: { name: string; body: string[] };
}

export interface GenCase {
  /** The case's tag: its number, or the number and a variant (`17v3`) while shrinking. */
  id: string;
  prefix: string;
  units: Unit[];
  /** The override the batch makes active for this case. */
  active: string;
  /** Environment variables the case sets: passed through (`…_E`) and not passed (`…_N`). */
  env: Record<string, string>;
}

/** The generated variables of a case: compared with BitBake's. */
export const CASE_VARS = ['A', 'B', 'C', 'E', 'N'] as const;

/** The case's lines of local.conf. */
export function caseLines(c: GenCase): string[] {
  return c.units.flatMap((u) => u.lines);
}

/** The files the case includes: name relative to conf/ → text. */
export function caseFiles(c: GenCase): Map<string, string> {
  const files = new Map<string, string>();
  for (const u of c.units) if (u.file) files.set(u.file.name, `${u.file.body.join('\n')}\n`);
  return files;
}

/**
 * The same case under another tag: every name it owns (C17_…, c17x, c17y, gen-17-…) renamed,
 * so variants of one case can share a batch. No tag is a substring of another's names:
 * `C17_` is not in `C17v3_` nor in `C170_`.
 */
export function withTag(c: GenCase, tag: string): GenCase {
  const from = c.id;
  const re = new RegExp(`\\bC${from}_|\\bc${from}([xy])\\b|\\bgen-${from}-`, 'g');
  const rename = (s: string) =>
    s.replace(re, (m, xy: string | undefined) =>
      m.startsWith('C') ? `C${tag}_` : m.startsWith('gen') ? `gen-${tag}-` : `c${tag}${xy}`,
    );
  return {
    id: tag,
    prefix: `C${tag}_`,
    active: `c${tag}x`,
    units: c.units.map((u) => ({
      lines: u.lines.map(rename),
      ...(u.file ? { file: { name: rename(u.file.name), body: u.file.body.map(rename) } } : {}),
    })),
    env: Object.fromEntries(Object.entries(c.env).map(([k, v]) => [rename(k), v])),
  };
}

/** mulberry32: small, seedable, good enough for test inputs. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['a1', 'b2', 'c3', 'd4', 'e5'];
const OPS = ['=', '?=', '??=', ':=', '+=', '=+', '.=', '=.'] as const;

export function generateCase(n: number, random: () => number): GenCase {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const id = String(n);
  const prefix = `C${id}_`;
  const vars = ['A', 'B', 'C'].map((v) => prefix + v);
  const active = `c${id}x`;
  const inactive = `c${id}y`;
  const env = { [`${prefix}E`]: `env${id}`, [`${prefix}N`]: `hidden${id}` };
  let fileCount = 0;
  // A variable refers only to the ones after it (A → B, C; B → C), so no value can refer back
  // to itself through an expansion (BitBake leaves such a variable out of bitbake -e, or stops
  // when the cycle runs through an override: see the cycle lines of REJECT_LINES).
  const value = (target = vars[0]!): string => {
    const later = vars.slice(vars.indexOf(target) + 1);
    const parts: string[] = [];
    const count = 1 + Math.floor(random() * 3);
    for (let i = 0; i < count; i++) {
      const r = random();
      if (r < 0.55) parts.push(pick(WORDS));
      else if (r < 0.8 && later.length > 0) parts.push(`\${${pick(later)}}`);
      else if (r < 0.88) parts.push(`\${${prefix}E}`);
      else if (r < 0.93) parts.push(`\${${prefix}N}`);
      else if (r < 0.97) parts.push('${HOME}');
      else parts.push(`\${${prefix}UNSET}`);
    }
    return parts.join(' ');
  };
  /** One statement, on one line or continued over several with `\`. */
  const statement = (): string[] => {
    const v = pick(vars);
    const r = random();
    if (r < 0.3) return [`${v} ${pick(OPS)} "${value(v)}"`];
    if (r < 0.36) {
      // A value continued over lines: BitBake drops the `\` and keeps the next line's indent.
      const words = value(v).split(' ');
      const body = words.map((w, i) => (i < words.length - 1 ? `    ${w} \\` : `    ${w}"`));
      return [`${v} ${pick(OPS)} "\\`, ...body];
    }
    if (r < 0.41) return [`${v} ${pick(OPS)} '${value(v)} q"${pick(WORDS)}'`];
    if (r < 0.46) return [`${v}:append = " ${value(v)}"`];
    if (r < 0.5) return [`${v}:prepend = "${value(v)} "`];
    if (r < 0.55) return [`${v}:remove = "${pick(WORDS)}"`];
    if (r < 0.61) return [`${v}:${active} = "${value(v)}"`];
    if (r < 0.64) return [`${v}:${inactive} = "${value(v)}"`];
    if (r < 0.68) return [`${v}:forcevariable = "${value(v)}"`];
    if (r < 0.72) return [`${v}:append:${active} = " ${value(v)}"`];
    if (r < 0.74) return [`${v}:append:${inactive} = " ${value(v)}"`];
    if (r < 0.76) return [`${v}:remove:${active} = "${pick(WORDS)}"`];
    if (r < 0.8) return [`${v}[doc] ${pick(['=', '?=', '+='])} "${value(v)}"`];
    if (r < 0.82) return [`unset ${v}`];
    if (r < 0.83) return [`unset ${v}[doc]`];
    if (r < 0.86) return [`export ${v}`];
    if (r < 0.89) return [`export ${v} = "${value(v)}"`];
    if (r < 0.91) return [`${v}[export] = "${pick(['1', '0'])}"`];
    if (r < 0.96) return [`${v}:${active} ${pick(['+=', '.=', '?='])} "${value(v)}"`];
    return [`${v}:${active}:append = " ${value(v)}"`];
  };
  /** Two to four weak defaults of one variable, with a hard `=` among them now and then. */
  const chain = (): Unit[] => {
    const v = pick(vars);
    const length = 2 + Math.floor(random() * 3);
    return Array.from({ length }, () => {
      const op = pick(['??=', '??=', '?=', '?=', '='] as const);
      return { lines: [`${v} ${op} "${value(v)}"`] };
    });
  };
  const included = (): Unit => {
    const name = `gen-${id}-${fileCount++}.inc`;
    const body = Array.from({ length: 1 + Math.floor(random() * 3) }, statement).flat();
    const r = random();
    // include_all looks for the path in every BBPATH folder; TOPDIR is the first of them.
    const line = r < 0.4 ? `include ${name}` : r < 0.8 ? `require ${name}` : `include_all conf/${name}`;
    return { lines: [line], file: { name, body } };
  };
  const units: Unit[] = [];
  const count = 3 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    const r = random();
    if (r < 0.12) units.push(included());
    else if (r < 0.22) units.push(...chain());
    // A missing include is skipped by BitBake (a missing require stops it: REJECT_LINES).
    else if (r < 0.25) units.push({ lines: [`include gen-${id}-missing.inc`] });
    else units.push({ lines: statement() });
  }
  return { id, prefix, units, active, env };
}

/** Invalid lines BitBake refuses; each gets its own run (BitBake stops at the first error). */
export const REJECT_LINES: readonly string[] = [
  'R_A = unquoted',
  'R_A = "x" # trailing comment',
  'R_A_append = " x"',
  '  # an indented comment',
  'python () {\n    pass\n}',
  'inherit rm_work',
  'R_A = "a"b"',
  'LICENSE_FLAGS_WHITELIST = "commercial"',
  'MULTI_PROVIDER_WHITELIST = "x"',
  'require does-not-exist.inc',
  'R_A = "${R_A} x"',
  'R_A = "${R_B}"\nR_B:forcevariable = "${R_A}"',
];
