// rambake's reading of configurations against the real BitBake's (`bitbake -e`): every variable
// rambake reports (BUILD_VARS), every variable a fixture assigns, and every generated variable;
// the accept/reject decision, and the file:line of the error for rejects. Inputs: the conf and
// hostile fixtures (their build conf files and their own layers, over the real poky layers),
// apply's local.conf fixtures, the bitbake-setup fixture, the demo's sample build, every
// REJECT_LINES entry, and a seeded generator of random valid configurations, batched so that
// hundreds of cases share a few BitBake runs. Where rambake says it cannot know (needsBitBake) a
// fixture value counts as "marked"; a generated case holds no Python, so there a mark fails.
//
// A failing generated case is shrunk (conf-repro.ts) and printed as a script that runs as printed.
//
// Flags: `bitbake -e` prints no flag values (only their history, `#   set file:line [doc] "…"`,
// not the value the operations leave), so of the flags only `export` is compared: BitBake
// writes `export NAME=` for it, and rambake's reader keeps it as the variable's export flag.
// The `[doc]` flags the generator sets are there to be ignored by the value, as BitBake does.
//
// RAMBAKE_DIFF_SEED=<n> picks another seed; the seed is printed with the summary.

import {
  appendFileSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { evaluateConf, loadBuildDir } from '../../src/bitbake/builddir.js';
import { BUILD_VARS } from '../../src/bitbake/builddir-types.js';
import type { DataStore } from '../../src/bitbake/conf/datastore.js';
import { nodeConfIO } from '../../src/bitbake/conf/node-io.js';
import { CASE_VARS, caseFiles, type GenCase, generateCase, REJECT_LINES, rng } from './conf-gen.js';
import { batchEnv, batchLocal, caseOfFile, type EnvMode, reproducerScript, shrink } from './conf-repro.js';
import {
  type BitbakeEResult,
  bitbakeE,
  bitbakeEnv,
  describeReal,
  makeConfigBuildDir,
  realTree,
} from './harness.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SEED = Number(process.env.RAMBAKE_DIFF_SEED ?? 20251203);
const BATCHES = 3;
const CASES_PER_BATCH = 100;
/** One pass-through rule per batch (BitBake's three ways to let the environment in). */
const ENV_MODES: EnvMode[] = ['additions', 'passthrough', 'preserve'];
const PARALLEL = 2;
/** Failing cases shrunk per run (each costs up to a dozen BitBake runs); the rest printed whole. */
const MAX_SHRINKS = 3;
/**
 * Variables a fixture assigns that OE-Core's classes change after the conf files, in Python
 * rambake does not run (base.bbclass's ConfigParsed handler backfills them with
 * oe.utils.features_backfill): not compared, counted apart.
 */
const CHANGED_BY_CLASSES = new Set(['DISTRO_FEATURES', 'MACHINE_FEATURES']);
/**
 * Fidelity bugs this suite found that are not fixed yet (in src/bitbake/conf), each kept as a
 * named fixture: input name → the start of the problem it shows. The test fails when one of
 * them is no longer seen (fixed: remove it here) as well as on any other problem.
 */
const KNOWN: Record<string, string> = {};
const knownSeen = new Set<string>();

/** Problems not in KNOWN (those are remembered as seen). */
function unknown(found: { input: string; text: string }[]): string[] {
  return found
    .filter((f) => {
      const known = KNOWN[f.input];
      if (known === undefined || !f.text.includes(known)) return true;
      knownSeen.add(f.input);
      return false;
    })
    .map((f) => f.text);
}

interface Input {
  name: string;
  /** conf files to copy into the build dir's conf/ (bblayers.conf is always the harness's). */
  confDir?: string;
  /** Layers after poky's (the fixture's own). */
  extraLayers?: string[];
  local?: string;
  files?: Map<string, string>;
  env?: Record<string, string>;
  /** Text added to the end of local.conf (to keep the run offline). */
  append?: string;
  /** Variables compared besides BUILD_VARS (those the fixture assigns). */
  names?: string[];
  /** Generated cases in this run (compared by their variable names). */
  cases?: GenCase[];
  mode?: EnvMode;
  caseAtLine?: (line: number) => GenCase | undefined;
}

interface Outcome {
  input: Input;
  bitbake: BitbakeEResult;
  rambake: Awaited<ReturnType<typeof loadBuildDir>>;
  /** rambake's datastore of the same reading (for the export flag). */
  data: DataStore;
}

const counts = {
  cases: 0,
  agreements: 0,
  marked: 0,
  defaulted: 0,
  disagreements: 0,
  exportFlags: 0,
  byClasses: 0,
};
const failures: string[] = [];
let outcomes: Outcome[] = [];
let bitbakeRuns = 0;
let started = 0;

// ---------------------------------------------------------------- inputs

/** Names a conf text assigns (`A`, `B:append` → `B`, `export C = …`), without `${…}` in them. */
function assignedNames(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.replace(/\\\n/g, '').split('\n')) {
    const m =
      /^\s*(?:export\s+)?([A-Za-z0-9_][A-Za-z0-9_\-+.:]*)(?:\[[^\]]*\])?\s*(?:\?\?=|\?=|:=|\+=|=\+|\.=|=\.|=)/.exec(
        line,
      );
    const name = m?.[1]?.split(':')[0];
    if (name && /^[A-Z][A-Z0-9_]*$/i.test(name)) out.add(name);
  }
  return [...out];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/**
 * A fixture build (`build/conf` and `layers/`) as an input: its conf files, its layers after
 * poky's. Its `meta-core` stands in for OE-Core, whose collection `core` the real meta already
 * has: its other files (include files, a distro, a machine) go into a layer of their own,
 * `meta-fixture-core` with the collection `fixturecore`, in the same place of the layer order.
 * Its bitbake.conf and machine files come after poky's in BBPATH, so the real ones win.
 */
function fixtureBuild(name: string, root: string): Input {
  const layersDir = join(root, 'layers');
  const extraLayers: string[] = [];
  const texts: string[] = [];
  const confDir = join(root, 'build', 'conf');
  for (const f of filesUnder(confDir))
    if (basename(f) !== 'bblayers.conf') texts.push(readFileSync(f, 'utf8'));
  const order = existsSync(join(confDir, 'bblayers.conf'))
    ? [...readFileSync(join(confDir, 'bblayers.conf'), 'utf8').matchAll(/\/layers\/([\w-]+)/g)].map(
        (m) => m[1]!,
      )
    : [];
  for (const layer of order) {
    const dir = join(layersDir, layer);
    if (!existsSync(dir)) continue;
    if (layer === 'meta-core') {
      const own = filesUnder(dir).filter((f) => !f.endsWith('/conf/layer.conf'));
      if (own.length === 0) continue;
      extraLayers.push(`fixture-core:${dir}`);
      for (const f of own) texts.push(readFileSync(f, 'utf8'));
    } else {
      extraLayers.push(dir);
      for (const f of filesUnder(dir)) texts.push(readFileSync(f, 'utf8'));
    }
  }
  return { name, confDir, extraLayers, names: assignedNames(texts.join('\n')) };
}

/** Every fixture build, apply's local.conf fixtures, the bitbake-setup fixture and the demo build. */
function fixtureInputs(): Input[] {
  const out: Input[] = [];
  for (const group of ['conf', 'hostile']) {
    const dir = join(REPO, 'test', 'fixtures', group);
    for (const name of readdirSync(dir).sort())
      out.push(fixtureBuild(`fixture ${group}/${name}`, join(dir, name)));
  }
  // apply's fixtures are local.conf files of their own (CRLF, no final newline, a continuation
  // at the end of the file, marker look-alikes): each is a build's local.conf as it is.
  const applyDir = join(REPO, 'test', 'fixtures', 'apply');
  for (const name of readdirSync(applyDir).sort()) {
    const local = readFileSync(join(applyDir, name), 'utf8');
    out.push({ name: `fixture apply/${name}`, local, names: assignedNames(local) });
  }
  out.push({
    name: 'fixture builds/bitbake-setup',
    confDir: join(REPO, 'test', 'fixtures', 'builds', 'bitbake-setup', 'poky-master', 'build', 'conf'),
    // Its sstate-mirror-cdn fragment names the Yocto Project's hash server: BitBake would try to
    // reach it (and fail here, offline) before printing anything.
    append: '\nBB_HASHSERVE_UPSTREAM:forcevariable = ""\n',
  });
  out.push({ name: 'demo sample build (examples/)', confDir: join(REPO, 'examples', 'build', 'conf') });
  return out;
}

function batchInput(name: string, cases: GenCase[], mode: EnvMode): Input {
  const files = new Map<string, string>();
  for (const c of cases) for (const [f, text] of caseFiles(c)) files.set(f, text);
  const local = batchLocal(cases);
  return {
    name,
    local: local.text,
    files,
    env: batchEnv(cases, mode),
    cases,
    mode,
    caseAtLine: local.caseAtLine,
  };
}

function generatedInputs(): Input[] {
  const random = rng(SEED);
  const out: Input[] = [];
  let id = 0;
  for (let b = 0; b < BATCHES; b++) {
    const cases = Array.from({ length: CASES_PER_BATCH }, () => generateCase(++id, random));
    out.push(batchInput(`generated batch ${b + 1}`, cases, ENV_MODES[b % ENV_MODES.length]!));
  }
  // Every reject line, each in its own run: BitBake stops at the first error.
  for (const line of REJECT_LINES) {
    out.push({ name: `reject: ${line.split('\n')[0]}`, local: `A_BEFORE = "x"\n${line}\nA_AFTER = "y"\n` });
  }
  return out;
}

// ---------------------------------------------------------------- running

async function run(input: Input): Promise<Outcome> {
  const tree = await realTree();
  const topdir = await makeConfigBuildDir({ local: input.local ?? '' });
  const layers: string[] = [];
  for (const layer of input.extraLayers ?? []) {
    if (!layer.startsWith('fixture-core:')) {
      layers.push(layer);
      continue;
    }
    const dest = join(topdir, 'meta-fixture-core');
    cpSync(layer.slice('fixture-core:'.length), dest, { recursive: true, dereference: true });
    writeFileSync(
      join(dest, 'conf', 'layer.conf'),
      'BBPATH .= ":${LAYERDIR}"\nBBFILE_COLLECTIONS += "fixturecore"\nBBFILE_PATTERN_fixturecore = "^${LAYERDIR_RE}/"\nBBFILE_PRIORITY_fixturecore = "5"\nLAYERSERIES_COMPAT_fixturecore = "whinlatter"\n',
    );
    layers.push(dest);
  }
  if (layers.length > 0) {
    const poky = ['meta', 'meta-poky', 'meta-yocto-bsp'].map((l) => join(tree, l));
    const text = readFileSync(join(topdir, 'conf', 'bblayers.conf'), 'utf8');
    const list = [...poky, ...layers].map((l) => `  ${l} \\\n`).join('');
    writeFileSync(
      join(topdir, 'conf', 'bblayers.conf'),
      text.replace(/BBLAYERS = " \\\n[\s\S]*?\n {2}"/, `BBLAYERS = " \\\n${list}  "`),
    );
  }
  if (input.confDir) {
    for (const entry of readdirSync(input.confDir)) {
      if (entry === 'bblayers.conf') continue;
      cpSync(join(input.confDir, entry), join(topdir, 'conf', entry), { recursive: true, dereference: true });
    }
  }
  for (const [name, text] of input.files ?? []) writeFileSync(join(topdir, 'conf', name), text);
  if (input.append) appendFileSync(join(topdir, 'conf', 'local.conf'), input.append);
  const env = bitbakeEnv(tree, input.env);
  bitbakeRuns++;
  const bitbake = await bitbakeE(topdir, { env });
  const rambake = await loadBuildDir({ buildDir: topdir, env, sources: { getvar: false, eventlog: false } });
  const data = evaluateConf(topdir, nodeConfIO, env).data;
  rmSync(join(topdir, 'tmp'), { recursive: true, force: true });
  return { input, bitbake, rambake, data };
}

/** Runs `jobs` with at most `n` at once, results in input order. */
async function pool<T, R>(items: T[], n: number, job: (t: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: n }, worker));
  return results;
}

// ---------------------------------------------------------------- comparing

/** The first file:line BitBake names in its error output (ParseError at F:N, or "(file: F line: N)"). */
function bitbakeErrorAt(text: string): { file: string; line: number } | undefined {
  const m = /(?:ParseError at |file: )(\/\S+?)(?::| line: )(\d+)/.exec(text);
  return m ? { file: m[1]!, line: Number(m[2]) } : undefined;
}

const toBoolean = (v: string | undefined) => ['1', 'yes', 'y', 'true', 't'].includes((v ?? '').toLowerCase());

/** The value BitBake and rambake give `name`: undefined when they agree, else what differs. */
function valueProblem(o: Outcome, name: string, generated: boolean): string | undefined {
  if (!o.bitbake.ok) return undefined;
  const mine =
    generated || !(BUILD_VARS as readonly string[]).includes(name)
      ? o.rambake.getVar(name)
      : o.rambake.vars[name as (typeof BUILD_VARS)[number]];
  const theirs = o.bitbake.vars.get(name);
  if (mine.value === theirs) {
    if (!generated || theirs === undefined) return undefined;
    // The export flag, as `bitbake -e` shows it (`export NAME=`).
    const exported = toBoolean(o.data.getVarFlag(name, 'export')?.value);
    if (exported === o.bitbake.exported.has(name)) return undefined;
    return `${name}[export]: rambake ${exported}, BitBake ${o.bitbake.exported.has(name)}`;
  }
  if (mine.needsBitBake)
    return generated
      ? `${name}: rambake marks it needsBitBake (${JSON.stringify(mine.value)}), BitBake ${JSON.stringify(theirs)}`
      : 'marked';
  if (name === 'BB_HASHSERVE' && mine.value?.trim() === 'auto') return 'marked';
  // Unset in BitBake, which then applies its own default (BB_SCHEDULER: speed); rambake shows it.
  if (theirs === undefined && mine.source === 'default' && mine.note) return 'defaulted';
  return `${name}: rambake ${JSON.stringify(mine.value)}, BitBake ${JSON.stringify(theirs)}`;
}

function count(problem: string | undefined): void {
  counts.cases++;
  if (problem === undefined) counts.agreements++;
  else if (problem === 'marked') counts.marked++;
  else if (problem === 'defaulted') counts.defaulted++;
  else counts.disagreements++;
}

/** Every problem of one generated case in an outcome; empty when it agrees. */
function caseProblems(o: Outcome, c: GenCase, tally = false): string[] {
  const out: string[] = [];
  for (const v of CASE_VARS) {
    const p = valueProblem(o, c.prefix + v, true);
    if (tally) {
      count(p);
      if (p === undefined && o.bitbake.ok && o.bitbake.vars.has(c.prefix + v)) counts.exportFlags++;
    }
    if (p !== undefined) out.push(p);
  }
  return out;
}

/** rambake's decision against BitBake's: undefined when both accept, or both reject at one line. */
function decisionProblem(o: Outcome): string | undefined {
  const firstError = o.rambake.diagnostics.find((d) => d.severity === 'error');
  const rambakeAccepts = firstError === undefined;
  if (rambakeAccepts !== o.bitbake.ok) {
    const said = o.bitbake.ok ? 'accepts' : `rejects: ${firstLine(o.bitbake.stdout + o.bitbake.stderr)}`;
    return `rambake ${rambakeAccepts ? 'accepts' : `rejects: ${firstError?.message}`}, BitBake ${said}`;
  }
  if (!o.bitbake.ok && firstError) {
    const at = bitbakeErrorAt(o.bitbake.stdout + o.bitbake.stderr);
    const theirs = at && `${basename(at.file)}:${at.line}`;
    const mine = `${basename(firstError.file)}:${firstError.line}`;
    if (theirs !== undefined && theirs !== mine)
      return `error at ${mine} in rambake, at ${theirs} in BitBake`;
  }
  return undefined;
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => /ERROR|Error/.test(l)) ?? text.split('\n')[0] ?? '';
}

// ---------------------------------------------------------------- shrinking

/** One BitBake run of `cases` as a batch of their own. */
const runCases = (cases: GenCase[], mode: EnvMode) => run(batchInput(`shrink ${cases[0]?.id}`, cases, mode));

/** The smallest failing form of a value failure: candidates of a round share one BitBake run. */
async function shrinkValues(c: GenCase, mode: EnvMode, problem: string): Promise<string> {
  const alone = await runCases([c], mode);
  const own = caseProblems(alone, c);
  if (!alone.bitbake.ok || own.length === 0) {
    return `${reproducerScript(c, mode, homeOf(), problem)}\n# (fails only within its batch: not shrunk)`;
  }
  const small = await shrink(c, own.join('; '), async (candidates) => {
    const o = await runCases(candidates, mode);
    return candidates.map((x) => (o.bitbake.ok ? caseProblems(o, x).join('; ') || undefined : undefined));
  });
  return reproducerScript(small.case, mode, homeOf(), `${small.problem} (shrunk in ${small.rounds} rounds)`);
}

/** The smallest failing form of a decision failure: rambake asked first, BitBake when needed. */
async function shrinkDecision(c: GenCase, mode: EnvMode): Promise<string | undefined> {
  const alone = await runCases([c], mode);
  const problem = decisionProblem(alone);
  if (problem === undefined) return undefined;
  const rambakeRejects = (o: { diagnostics: { severity: string }[] }) =>
    o.diagnostics.some((d) => d.severity === 'error');
  const wanted = rambakeRejects(alone.rambake);
  const small = await shrink(c, problem, async (candidates) => {
    for (const [i, x] of candidates.entries()) {
      if ((await rambakeOnly(x, mode)) !== wanted) continue;
      const o = await runCases([x], mode);
      const p = decisionProblem(o);
      if (p !== undefined) return candidates.map((_, j) => (j === i ? p : undefined));
    }
    return candidates.map(() => undefined);
  });
  return reproducerScript(small.case, mode, homeOf(), `${small.problem} (shrunk in ${small.rounds} rounds)`);
}

/** rambake's decision (rejects?) on a case, without BitBake: a build dir, read, removed. */
async function rambakeOnly(c: GenCase, mode: EnvMode): Promise<boolean> {
  const input = batchInput('rambake only', [c], mode);
  const tree = await realTree();
  const topdir = await makeConfigBuildDir({ local: input.local ?? '' });
  for (const [name, text] of input.files ?? []) writeFileSync(join(topdir, 'conf', name), text);
  const bd = await loadBuildDir({
    buildDir: topdir,
    env: bitbakeEnv(tree, input.env),
    sources: { getvar: false, eventlog: false },
  });
  return bd.diagnostics.some((d) => d.severity === 'error');
}

const homeOf = () => process.env.HOME ?? '/root';

/** The case of a batch that a decision failure points at: the error's local.conf line or file. */
function caseOfDecision(o: Outcome): GenCase | undefined {
  const cases = o.input.cases ?? [];
  const firstError = o.rambake.diagnostics.find((d) => d.severity === 'error');
  const at = [
    firstError && { file: firstError.file, line: firstError.line ?? 0 },
    o.bitbake.ok ? undefined : bitbakeErrorAt(o.bitbake.stdout + o.bitbake.stderr),
  ];
  for (const a of at) {
    if (!a) continue;
    const c = basename(a.file) === 'local.conf' ? o.input.caseAtLine?.(a.line) : caseOfFile(cases, a.file);
    if (c) return c;
  }
  return undefined;
}

// ---------------------------------------------------------------- the tests

describeReal('conf differential: rambake against bitbake -e', () => {
  beforeAll(async () => {
    started = Date.now();
    outcomes = await pool([...fixtureInputs(), ...generatedInputs()], PARALLEL, run);
  }, 600_000);

  afterAll(() => {
    const generated = outcomes.reduce((n, o) => n + (o.input.cases?.length ?? 0), 0);
    console.log(
      `conf differential (seed ${SEED}): ${bitbakeRuns} BitBake runs (${outcomes.length} inputs, ${REJECT_LINES.length} reject lines), ${generated} generated configurations; ${counts.cases} comparisons (values and accept/reject decisions), ${counts.agreements} agreements (${counts.exportFlags} with the export flag too), ${counts.marked} marked (needsBitBake, hash server socket; fixtures only), ${counts.defaulted} unset in BitBake with its default shown by rambake, ${counts.disagreements} disagreements (${knownSeen.size} of them known fidelity bugs, see KNOWN), ${counts.byClasses} values left to OE-Core's classes not compared; ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  });

  it('accepts and rejects what BitBake does, with the same error line', async () => {
    const found: { input: string; text: string }[] = [];
    for (const o of outcomes) {
      const p = decisionProblem(o);
      count(p);
      if (p === undefined) continue;
      if (!o.input.cases) {
        found.push({
          input: o.input.name,
          text: `${o.input.name}: ${p}${o.input.local ? `\n${o.input.local}` : ''}`,
        });
        continue;
      }
      // A batch: the case the error points at, shrunk on its own; never the whole batch.
      const c = caseOfDecision(o);
      const script = c && (await shrinkDecision(c, o.input.mode!));
      found.push({
        input: o.input.name,
        text:
          script ??
          `${o.input.name}: ${p} (no single case reproduces it; the error is at ${JSON.stringify(bitbakeErrorAt(o.bitbake.ok ? '' : o.bitbake.stdout + o.bitbake.stderr))})`,
      });
    }
    const left = unknown(found);
    failures.push(...left);
    expect(left.join('\n\n')).toBe('');
  }, 600_000);

  it('gives the values BitBake gives for every variable it reports and every one a fixture sets', () => {
    const found: { input: string; text: string }[] = [];
    for (const o of outcomes.filter((x) => !x.input.cases)) {
      const names = new Set([...BUILD_VARS.filter((n) => n !== 'TOPDIR'), ...(o.input.names ?? [])]);
      for (const name of names) {
        if (CHANGED_BY_CLASSES.has(name)) {
          counts.byClasses++;
          continue;
        }
        const p = valueProblem(o, name, false);
        count(p);
        if (p !== undefined && p !== 'marked' && p !== 'defaulted')
          found.push({ input: o.input.name, text: `${o.input.name}: ${p}` });
      }
    }
    const left = unknown(found);
    failures.push(...left);
    expect(left.join('\n\n')).toBe('');
  });

  it('still sees each known fidelity bug (remove it from KNOWN once fixed)', () => {
    expect(Object.keys(KNOWN).filter((k) => !knownSeen.has(k))).toEqual([]);
  });

  it('gives the values BitBake gives for hundreds of generated configurations, none marked', async () => {
    let generated = 0;
    const failing: { c: GenCase; mode: EnvMode; problem: string }[] = [];
    for (const o of outcomes) {
      for (const c of o.input.cases ?? []) {
        generated++;
        const problems = caseProblems(o, c, true);
        if (problems.length > 0) failing.push({ c, mode: o.input.mode!, problem: problems.join('; ') });
      }
    }
    expect(generated).toBeGreaterThanOrEqual(BATCHES * CASES_PER_BATCH);
    const found: string[] = [];
    for (const [i, f] of failing.entries()) {
      if (i < MAX_SHRINKS) found.push(await shrinkValues(f.c, f.mode, f.problem));
      else
        found.push(
          reproducerScript(f.c, f.mode, homeOf(), `${f.problem} (not shrunk: ${MAX_SHRINKS} already were)`),
        );
    }
    failures.push(...found);
    expect(found.join('\n\n')).toBe('');
  }, 600_000);
});
