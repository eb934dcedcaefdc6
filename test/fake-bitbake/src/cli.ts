// `bitbake` for tests, the demo and benchmarks: parses BitBake's flags, holds
// ${TOPDIR}/bitbake.lock, reads the build's conf with its own reader (conf/), runs a scenario.
// Like BitBake it ends with `ERROR: …` and exit 1, never a stack trace.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatEnv } from './conf/emit.js';
import { ConfParseError } from './conf/parse.js';
import { ConfError } from './conf/read.js';
import { configFromConf, loadConfForFake } from './config.js';
import { formatDepGraph } from './depgraph.js';
import { FakeBitbakeError, recipesForBuild, runBuild } from './engine.js';
import { buildTaskGraph } from './graph.js';
import { readScenario } from './scenario.js';

const STATE_FILE = '.fake-bitbake-state.json';

function num(v: string | undefined, fallback: number): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  return Number.isFinite(n) ? n : fallback;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  try {
    return await run(argv, env);
  } catch (err) {
    if (err instanceof FakeBitbakeError) console.error(err.message);
    else if (err instanceof ConfError || err instanceof ConfParseError)
      console.error(`ERROR: ${err.message}`);
    else if (isErrno(err)) console.error(`ERROR: ${err.message}`);
    else throw err;
    return 1;
  }
}

const isErrno = (err: unknown): err is NodeJS.ErrnoException =>
  err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string';

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      cmd: { type: 'string', short: 'c' },
      continue: { type: 'boolean', short: 'k' },
      force: { type: 'boolean', short: 'f' },
      graphviz: { type: 'boolean', short: 'g' },
      environment: { type: 'boolean', short: 'e' },
      scenario: { type: 'string' },
      seed: { type: 'string' },
      'time-scale': { type: 'string' },
      'size-scale': { type: 'string' },
      'churn-build': { type: 'string' },
      'build-number': { type: 'string' },
    },
  });
  const scenario = readScenario(values.scenario ?? env.FAKE_BITBAKE_SCENARIO ?? 'small');
  const conf = loadConfForFake(process.cwd(), env);
  if (values.environment) {
    process.stdout.write(formatEnv(conf));
    return 0;
  }
  const cfg = configFromConf(conf);
  const targets = positionals.length > 0 ? positionals : [scenario.target];
  const statePath = path.join(cfg.topdir, STATE_FILE);
  const state = fs.existsSync(statePath)
    ? (JSON.parse(fs.readFileSync(statePath, 'utf8')) as { builds: number })
    : { builds: 0 };
  const explicit = values['churn-build'] ?? values['build-number'] ?? env.FAKE_BITBAKE_BUILD_NUMBER;
  const buildNumber = explicit ? num(explicit, 1) : state.builds + 1;

  if (values.graphviz) {
    const recipes = recipesForBuild(scenario, buildNumber);
    const graph = buildTaskGraph(
      recipes,
      cfg.rmWork,
      (r) => r.kind === 'kernel' || cfg.rmWorkExclude.includes(r.pn),
    );
    const task = values.cmd ? (values.cmd.startsWith('do_') ? values.cmd : `do_${values.cmd}`) : 'do_build';
    // As BitBake: an unknown target stops -g before anything is written.
    for (const t of targets)
      if (!recipes.some((r) => r.pn === t)) throw new FakeBitbakeError(`ERROR: Nothing PROVIDES '${t}'`);
    const dot = formatDepGraph(
      cfg,
      graph,
      targets.map((t) => `${t}:${task}`),
    );
    fs.writeFileSync('pn-buildlist', dot.pnBuildlist);
    fs.writeFileSync('task-depends.dot', dot.taskDepends);
    console.log("NOTE: PN build list saved to 'pn-buildlist'");
    console.log("NOTE: Task dependencies saved to 'task-depends.dot'");
    return 0;
  }

  const lock = path.join(cfg.topdir, 'bitbake.lock');
  try {
    fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
  } catch {
    console.error('ERROR: Only one copy of bitbake should be run against a build directory');
    return 1;
  }
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const result = await runBuild(cfg, scenario, {
      targets,
      ...(values.cmd ? { task: values.cmd } : {}),
      continueOnFail: values.continue === true,
      force: values.force === true,
      buildNumber,
      seed: num(values.seed ?? env.FAKE_BITBAKE_SEED, 1),
      timeScale: num(values['time-scale'] ?? env.FAKE_BITBAKE_TIME_SCALE, scenario.timeScale),
      sizeScale: num(values['size-scale'] ?? env.FAKE_BITBAKE_SIZE_SCALE, scenario.sizeScale),
      out: (l) => process.stdout.write(`${l}\n`),
      signal: ac.signal,
    });
    try {
      fs.writeFileSync(statePath, `${JSON.stringify({ builds: Math.max(state.builds, buildNumber) })}\n`);
    } catch {
      // a full TOPDIR: the count is only for the next build's default number
    }
    return result.exitCode;
  } finally {
    fs.rmSync(lock, { force: true });
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
