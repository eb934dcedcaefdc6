// A seeded generator of random but valid conf snippets for the differential suite. Each case
// owns a name prefix (C17_A, C17_B …), its own override names (c17x active, c17y never active)
// and its own environment variables, so hundreds of cases share one local.conf and one
// `bitbake -e`. Statements cover every operator of bitbake-formats.md §1, override variants
// (`:c17x`, `:forcevariable`, `:append:c17x`), flags, unset, export, `${VAR}` references, the
// environment, and includes of generated files.

export interface GenCase {
  id: number;
  prefix: string;
  /** The case's lines of local.conf (includes name files in `files`). */
  lines: string[];
  /** Included files, by name relative to conf/: their text. */
  files: Map<string, string>;
  /** The override the batch makes active for this case. */
  active: string;
  /** Environment variables the case sets: passed through (`…_E`) and not passed (`…_N`). */
  env: Record<string, string>;
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

export function generateCase(id: number, random: () => number): GenCase {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const prefix = `C${id}_`;
  const vars = ['A', 'B', 'C'].map((v) => prefix + v);
  const active = `c${id}x`;
  const inactive = `c${id}y`;
  const env = { [`${prefix}E`]: `env${id}`, [`${prefix}N`]: `hidden${id}` };
  const files = new Map<string, string>();
  // A variable refers only to the ones after it (A → B, C; B → C), so no value can refer back
  // to itself through an expansion (BitBake leaves such a variable out of bitbake -e, or stops
  // when the cycle runs through an override: see the cycle lines of REJECT_LINES).
  const value = (target = vars[0]!): string => {
    const later = vars.slice(vars.indexOf(target) + 1);
    const parts: string[] = [];
    const n = 1 + Math.floor(random() * 3);
    for (let i = 0; i < n; i++) {
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
  const statement = (): string => {
    const v = pick(vars);
    const r = random();
    if (r < 0.4) return `${v} ${pick(OPS)} "${value(v)}"`;
    if (r < 0.48) return `${v}:append = " ${value(v)}"`;
    if (r < 0.54) return `${v}:prepend = "${value(v)} "`;
    if (r < 0.6) return `${v}:remove = "${pick(WORDS)}"`;
    if (r < 0.67) return `${v}:${active} = "${value(v)}"`;
    if (r < 0.7) return `${v}:${inactive} = "${value(v)}"`;
    if (r < 0.74) return `${v}:forcevariable = "${value(v)}"`;
    if (r < 0.79) return `${v}:append:${active} = " ${value(v)}"`;
    if (r < 0.81) return `${v}:append:${inactive} = " ${value(v)}"`;
    if (r < 0.83) return `${v}:remove:${active} = "${pick(WORDS)}"`;
    if (r < 0.86) return `${v}[doc] ${pick(['=', '?=', '+='])} "${value(v)}"`;
    if (r < 0.88) return `unset ${v}`;
    if (r < 0.89) return `unset ${v}[doc]`;
    if (r < 0.91) return `export ${v}`;
    if (r < 0.93) return `export ${v} = "${value(v)}"`;
    if (r < 0.96) return `${v}:${active} ${pick(['+=', '.=', '?='])} "${value(v)}"`;
    return `${v}:${active}:append = " ${value(v)}"`;
  };
  const lines: string[] = [];
  const n = 3 + Math.floor(random() * 6);
  for (let i = 0; i < n; i++) {
    if (random() < 0.1) {
      const name = `gen-${id}-${files.size}.inc`;
      const body = Array.from({ length: 1 + Math.floor(random() * 3) }, statement);
      files.set(name, `${body.join('\n')}\n`);
      lines.push(`${random() < 0.5 ? 'include' : 'require'} ${name}`);
    } else lines.push(statement());
  }
  return { id, prefix, lines, files, active, env };
}

/** Invalid lines BitBake refuses; each reject case gets its own run. */
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
