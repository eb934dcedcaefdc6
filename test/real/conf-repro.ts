// Minimal reproducers for the conf differential suite: a failing generated case is shrunk by
// dropping one unit (a statement, an include with its file, or one line of an included file)
// while it still fails, and printed as a shell script that builds the build dir, runs the real
// `bitbake -e` and rambake's reader on it, as printed.
//
// Shrinking a value failure runs every candidate of a round in one BitBake run (each renamed to
// its own tag, see withTag); a decision failure asks rambake first (milliseconds) and BitBake
// only for a candidate rambake still decides the same way on.

import { join, resolve } from 'node:path';
import { quoteShellWord } from '../../src/text/shell.js';
import { CASE_VARS, caseFiles, caseLines, type GenCase, type Unit, withTag } from './conf-gen.js';
import { REAL_TARBALL } from './harness.js';

/** How a batch hands the environment to BitBake: each is one of BitBake's pass-through rules. */
export type EnvMode = 'additions' | 'passthrough' | 'preserve';

/**
 * The environment variables a batch adds for its cases (the harness adds PATH, LANG, LC_ALL and
 * HOME): the cases' own, and the pass-through setting of `mode`.
 */
export function batchEnv(cases: GenCase[], mode: EnvMode): Record<string, string> {
  const env: Record<string, string> = {};
  for (const c of cases) Object.assign(env, c.env);
  const passed = cases.map((c) => `${c.prefix}E`).join(' ');
  // BB_ENV_PASSTHROUGH replaces BitBake's whole list, so it names what BitBake itself needs.
  if (mode === 'additions') env.BB_ENV_PASSTHROUGH_ADDITIONS = passed;
  else if (mode === 'passthrough') env.BB_ENV_PASSTHROUGH = `PATH HOME LANG LC_ALL ${passed}`;
  // Everything passes, the cases' …_N variables too.
  else env.BB_PRESERVE_ENV = '1';
  return env;
}

/** The local.conf of a batch: one OVERRIDES line for all its cases, then each case. */
export function batchLocal(cases: GenCase[]): {
  text: string;
  caseAtLine: (line: number) => GenCase | undefined;
} {
  const lines = [`OVERRIDES:append = ":${cases.map((c) => c.active).join(':')}"`];
  const ranges: { from: number; to: number; c: GenCase }[] = [];
  for (const c of cases) {
    lines.push(`# case ${c.id}`);
    const from = lines.length + 1;
    lines.push(...caseLines(c));
    ranges.push({ from, to: lines.length, c });
  }
  lines.push('');
  const caseAtLine = (line: number) => ranges.find((r) => line >= r.from && line <= r.to)?.c;
  return { text: lines.join('\n'), caseAtLine };
}

/** The case a file name of a batch belongs to (`gen-17-0.inc` → case 17). */
export function caseOfFile(cases: GenCase[], file: string): GenCase | undefined {
  const m = /gen-(\w+?)-(?:\d+|missing)\.inc$/.exec(file);
  return m ? cases.find((c) => c.id === m[1]) : undefined;
}

/** One thing a shrink may drop: a unit, or one line of a unit's included file. */
type Part = { unit: number; line?: number };

function parts(c: GenCase): Part[] {
  const out: Part[] = c.units.map((_, unit) => ({ unit }));
  c.units.forEach((u, unit) => {
    if (u.file && u.file.body.length > 1)
      for (let line = 0; line < u.file.body.length; line++) out.push({ unit, line });
  });
  return out;
}

/** `c` without the given parts (a dropped unit takes its file's lines with it). */
function without(c: GenCase, drop: Part[]): GenCase {
  const units = new Set(drop.filter((p) => p.line === undefined).map((p) => p.unit));
  const lines = (unit: number) =>
    new Set(drop.filter((p) => p.unit === unit && p.line !== undefined).map((p) => p.line));
  const kept: Unit[] = [];
  c.units.forEach((u, i) => {
    if (units.has(i)) return;
    const gone = lines(i);
    if (!u.file || gone.size === 0) kept.push(u);
    else
      kept.push({
        lines: u.lines,
        file: { name: u.file.name, body: u.file.body.filter((_, k) => !gone.has(k)) },
      });
  });
  return { ...c, units: kept };
}

/** Every case that is `c` without one of its units, or without one line of an included file. */
export function smallerCases(c: GenCase): GenCase[] {
  return parts(c).map((p) => without(c, [p]));
}

/**
 * Shrinks `c` while `fails` says it still fails. `fails` gets candidates (each under its own tag)
 * and answers, for each, its problem or undefined; it may run them together or one by one.
 * A round tries every single drop; when several still fail, all of them at once are tried next
 * (independent statements then go in one step instead of one round each), else the first.
 * Returns the smallest failing case under the original tag, its problem and the calls made.
 */
export async function shrink(
  c: GenCase,
  problem: string,
  fails: (candidates: GenCase[]) => Promise<(string | undefined)[]>,
): Promise<{ case: GenCase; problem: string; rounds: number }> {
  let current = c;
  let rounds = 0;
  const tagged = (x: GenCase) => withTag(x, `${c.id}r${rounds}v${tags++}`);
  let tags = 0;
  /** Moves to `x` (a tagged candidate) with its problem, under the case's own tag. */
  const take = (x: GenCase, p: string) => {
    current = withTag(x, c.id);
    problem = p.replaceAll(x.prefix, current.prefix);
  };
  for (;;) {
    const drops = parts(current);
    if (drops.length === 0) break;
    rounds++;
    const candidates = drops.map((p) => tagged(without(current, [p])));
    const answers = await fails(candidates);
    const failing = answers.flatMap((a, i) => (a === undefined ? [] : [i]));
    if (failing.length === 0) break;
    if (failing.length > 1) {
      rounds++;
      const all = tagged(
        without(
          current,
          failing.map((i) => drops[i]!),
        ),
      );
      const [p] = await fails([all]);
      if (p !== undefined) {
        take(all, p);
        continue;
      }
    }
    take(candidates[failing[0]!]!, answers[failing[0]!]!);
  }
  return { case: current, problem, rounds };
}

const REPO = resolve(import.meta.dirname, '..', '..');

/**
 * A shell script that makes the case's build dir over the real poky layers, then prints what
 * BitBake and rambake (after `npm run build`) make of the case's variables.
 */
export function reproducerScript(c: GenCase, mode: EnvMode, home: string, what: string): string {
  const local = [`OVERRIDES:append = ":${c.active}"`, ...caseLines(c)];
  const env = { HOME: home, ...batchEnv([c], mode) };
  const envWords = Object.entries(env)
    .map(([k, v]) => `${k}=${quoteShellWord(v)}`)
    .join(' ');
  const names = CASE_VARS.map((v) => `'${c.prefix}${v}'`).join(',');
  const rambake =
    `import { loadBuildDir } from ${JSON.stringify(join(REPO, 'dist', 'bitbake', 'builddir.js'))};` +
    ` const b = await loadBuildDir({ buildDir: '.', sources: { getvar: false, eventlog: false } });` +
    ` for (const n of [${names}]) console.log(n, JSON.stringify(b.getVar(n)));`;
  const out = [
    `# case ${c.id}, environment through ${mode}: ${what}`,
    `POKY="\${POKY:-$PWD/poky}"; [ -d "$POKY/bitbake" ] || { mkdir -p "$POKY" && tar -xJf ${quoteShellWord(REAL_TARBALL)} -C "$POKY"; }`,
    `rm -rf repro-${c.id} && mkdir -p repro-${c.id}/conf && cd repro-${c.id}`,
    `printf 'BBPATH = "\${TOPDIR}"\\nBBFILES ?= ""\\nBBLAYERS = "%s/meta %s/meta-poky %s/meta-yocto-bsp"\\n' "$POKY" "$POKY" "$POKY" > conf/bblayers.conf`,
    "cat > conf/local.conf <<'CONF'",
    ...local,
    'CONF',
  ];
  for (const [name, text] of caseFiles(c)) out.push(`cat > conf/${name} <<'CONF'`, text.trimEnd(), 'CONF');
  out.push(
    `env -i PATH="$POKY/bitbake/bin:/usr/bin:/bin" LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8 ${envWords} bitbake -e | grep -E '^(export )?${c.prefix}[A-Z]+='`,
    `env -i PATH="$PATH" ${envWords} node --input-type=module -e ${quoteShellWord(rambake)}`,
    'cd ..',
  );
  return out.join('\n');
}
