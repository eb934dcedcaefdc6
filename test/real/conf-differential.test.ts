// rambake's reading of configurations against the real BitBake's (`bitbake -e`): every variable
// rambake reports (BUILD_VARS) and every generated variable, the accept/reject decision, and the
// file:line of the error for rejects. Inputs: the conf fixtures of the repository (their build
// conf files over the real poky layers), the demo's sample build, and a seeded generator of
// random valid configurations, batched so that hundreds of cases share a few BitBake runs.
// Where rambake says it cannot know (needsBitBake) the case counts as "marked", not agreement.
//
// RAMBAKE_DIFF_SEED=<n> picks another seed; the seed is printed with the summary.

import { appendFileSync, cpSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadBuildDir } from '../../src/bitbake/builddir.js';
import { BUILD_VARS } from '../../src/bitbake/builddir-types.js';
import { type GenCase, generateCase, REJECT_LINES, rng } from './conf-gen.js';
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
const REJECT_RUNS = 4;
const PARALLEL = 2;

interface Input {
  name: string;
  /** conf files to copy into the build dir's conf/ (bblayers.conf is always the harness's). */
  confDir?: string;
  local?: string;
  files?: Map<string, string>;
  env?: Record<string, string>;
  /** Text added to the end of local.conf (to keep the run offline). */
  append?: string;
  /** Generated cases in this run (compared by their variable names). */
  cases?: GenCase[];
}

interface Outcome {
  input: Input;
  bitbake: BitbakeEResult;
  rambake: Awaited<ReturnType<typeof loadBuildDir>>;
}

const counts = { cases: 0, agreements: 0, marked: 0, defaulted: 0, disagreements: 0 };
const failures: string[] = [];
let outcomes: Outcome[] = [];

/** The build conf folders of every conf fixture, the bitbake-setup fixture and the demo build. */
function fixtureInputs(): Input[] {
  const out: Input[] = [];
  const confFixtures = join(REPO, 'test', 'fixtures', 'conf');
  for (const name of readdirSync(confFixtures).sort()) {
    const confDir = join(confFixtures, name, 'build', 'conf');
    if (existsSync(confDir)) out.push({ name: `fixture ${name}`, confDir });
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

function generatedInputs(): Input[] {
  const random = rng(SEED);
  const out: Input[] = [];
  let id = 0;
  for (let b = 0; b < BATCHES; b++) {
    const cases = Array.from({ length: CASES_PER_BATCH }, () => generateCase(++id, random));
    const env: Record<string, string> = {};
    for (const c of cases) Object.assign(env, c.env);
    env.BB_ENV_PASSTHROUGH_ADDITIONS = cases.map((c) => `${c.prefix}E`).join(' ');
    const files = new Map<string, string>();
    for (const c of cases) for (const [f, text] of c.files) files.set(f, text);
    const local = [
      `OVERRIDES:append = ":${cases.map((c) => c.active).join(':')}"`,
      ...cases.flatMap((c) => [`# case ${c.id}`, ...c.lines]),
      '',
    ].join('\n');
    out.push({ name: `generated batch ${b + 1}`, local, files, env, cases });
  }
  for (let r = 0; r < REJECT_RUNS; r++) {
    const line = REJECT_LINES[(Math.floor(random() * REJECT_LINES.length) + r) % REJECT_LINES.length]!;
    out.push({ name: `reject: ${line.split('\n')[0]}`, local: `A_BEFORE = "x"\n${line}\nA_AFTER = "y"\n` });
  }
  return out;
}

async function run(input: Input): Promise<Outcome> {
  const tree = await realTree();
  const topdir = await makeConfigBuildDir({ local: input.local ?? '' });
  if (input.confDir) {
    for (const entry of readdirSync(input.confDir)) {
      if (entry === 'bblayers.conf') continue;
      cpSync(join(input.confDir, entry), join(topdir, 'conf', entry), { recursive: true, dereference: true });
    }
  }
  for (const [name, text] of input.files ?? []) writeFileSync(join(topdir, 'conf', name), text);
  if (input.append) appendFileSync(join(topdir, 'conf', 'local.conf'), input.append);
  const env = bitbakeEnv(tree, input.env);
  const bitbake = await bitbakeE(topdir, { env });
  const rambake = await loadBuildDir({ buildDir: topdir, env, sources: { getvar: false, eventlog: false } });
  rmSync(join(topdir, 'tmp'), { recursive: true, force: true });
  return { input, bitbake, rambake };
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

/** The first file:line BitBake names in its error output (ParseError at F:N, or "(file: F line: N)"). */
function bitbakeErrorAt(text: string): string | undefined {
  const m = /(?:ParseError at |file: )(\/\S+?)(?::| line: )(\d+)/.exec(text);
  return m ? `${basename(m[1]!)}:${m[2]}` : undefined;
}

function reproducer(input: Input, c: GenCase | undefined, what: string): string {
  const conf = c
    ? [...c.lines, ...[...c.files].map(([f, t]) => `# ${f}:\n${t.trimEnd()}`)].join('\n')
    : (input.local ?? `(conf files of ${input.confDir})`);
  const env = c ? ` env ${JSON.stringify(c.env)}, ${c.active} active` : '';
  return `${input.name}${c ? ` case ${c.id}` : ''}:${env}\n${conf}\n  → ${what}`;
}

/** One comparison: agreement, marked (rambake says only BitBake knows), or a disagreement. */
function compare(o: Outcome, name: string, c?: GenCase): void {
  if (!o.bitbake.ok) return;
  counts.cases++;
  const mine =
    c || !(BUILD_VARS as readonly string[]).includes(name)
      ? o.rambake.getVar(name)
      : o.rambake.vars[name as (typeof BUILD_VARS)[number]];
  const theirs = o.bitbake.vars.get(name);
  if (mine.value === theirs) counts.agreements++;
  else if (mine.needsBitBake || (name === 'BB_HASHSERVE' && mine.value?.trim() === 'auto')) counts.marked++;
  else if (theirs === undefined && mine.source === 'default' && mine.note) {
    // Unset in BitBake, which then applies its own default (BB_SCHEDULER: speed); rambake shows it.
    counts.defaulted++;
  } else {
    counts.disagreements++;
    failures.push(
      reproducer(
        o.input,
        c,
        `${name}: rambake ${JSON.stringify(mine.value)}, BitBake ${JSON.stringify(theirs)}`,
      ),
    );
  }
}

function compareDecision(o: Outcome): boolean {
  const firstError = o.rambake.diagnostics.find((d) => d.severity === 'error');
  const rambakeAccepts = firstError === undefined;
  counts.cases++;
  if (rambakeAccepts !== o.bitbake.ok) {
    counts.disagreements++;
    const said = o.bitbake.ok ? 'accepts' : `rejects: ${firstLine(o.bitbake.stdout + o.bitbake.stderr)}`;
    failures.push(
      reproducer(
        o.input,
        undefined,
        `rambake ${rambakeAccepts ? 'accepts' : `rejects: ${firstError?.message}`}, BitBake ${said}`,
      ),
    );
    return false;
  }
  if (!o.bitbake.ok && firstError) {
    const theirs = bitbakeErrorAt(o.bitbake.stdout + o.bitbake.stderr);
    const mine = `${basename(firstError.file)}:${firstError.line}`;
    if (theirs !== undefined && theirs !== mine) {
      counts.disagreements++;
      failures.push(reproducer(o.input, undefined, `error at ${mine} in rambake, at ${theirs} in BitBake`));
      return false;
    }
  }
  counts.agreements++;
  return true;
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => /ERROR|Error/.test(l)) ?? text.split('\n')[0] ?? '';
}

describeReal('conf differential: rambake against bitbake -e', () => {
  beforeAll(async () => {
    outcomes = await pool([...fixtureInputs(), ...generatedInputs()], PARALLEL, run);
  }, 600_000);

  afterAll(() => {
    console.log(
      `conf differential (seed ${SEED}): ${outcomes.length} BitBake runs, ${outcomes.reduce((n, o) => n + (o.input.cases?.length ?? 0), 0)} generated configurations; ${counts.cases} comparisons (values and accept/reject decisions), ${counts.agreements} agreements, ${counts.marked} marked (needsBitBake, hash server socket), ${counts.defaulted} unset in BitBake with its default shown by rambake, ${counts.disagreements} disagreements`,
    );
  });

  it('accepts and rejects what BitBake does, with the same error line', () => {
    const before = failures.length;
    for (const o of outcomes) compareDecision(o);
    expect(failures.slice(before).join('\n\n')).toBe('');
  });

  it('gives the values BitBake gives for every variable it reports', () => {
    const before = failures.length;
    for (const o of outcomes.filter((x) => !x.input.cases)) {
      for (const name of BUILD_VARS) if (name !== 'TOPDIR') compare(o, name);
    }
    expect(failures.slice(before).join('\n\n')).toBe('');
  });

  it('gives the values BitBake gives for hundreds of generated configurations', () => {
    const before = failures.length;
    let generated = 0;
    for (const o of outcomes) {
      for (const c of o.input.cases ?? []) {
        generated++;
        for (const v of ['A', 'B', 'C', 'E', 'N']) compare(o, c.prefix + v, c);
      }
    }
    expect(generated).toBeGreaterThanOrEqual(BATCHES * CASES_PER_BATCH);
    expect(failures.slice(before).join('\n\n')).toBe('');
  });
});
