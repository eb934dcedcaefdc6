// One fake build: decide (plan.ts), then replay setscene and real tasks on a virtual clock,
// writing everything BitBake writes into the build directory as it goes.

import fs from 'node:fs';
import path from 'node:path';
import { DiskMonitor } from './diskmon.js';
import { taskSeconds as taskDuration } from './durations.js';
import { applySetscene, applyTask, type EffectContext, SharedAreaOverlap } from './effects.js';
import { formatBuildName, formatDatetime, formatSstateSummary, formatTasksSummary } from './formats.js';
import { bytesWritten, hasStamp, writeStamp } from './fsops.js';
import { buildTaskGraph, type GraphTask } from './graph.js';
import { appendEvent, openConsoleLog, writeConsoleHeader, writeEventLogStart } from './logs.js';
import { sstateObjectOf, stampBaseOf, tidOf } from './naming.js';
import { computeHashes, planBuild } from './plan.js';
import { createRng } from './rng.js';
import { runJobs } from './runner.js';
import { pickTask } from './scheduler.js';
import { TaskIo } from './taskio.js';
import type { BuildResult, FakeConfig, Scenario, ScenarioRecipe, TaskRecord } from './types.js';

export interface RunOptions {
  targets: string[];
  /** `-c TASK` (with or without the do_ prefix). */
  task?: string;
  continueOnFail: boolean;
  force: boolean;
  buildNumber: number;
  seed: number;
  timeScale: number;
  sizeScale: number;
  out: (line: string) => void;
  signal?: AbortSignal;
}

/** BitBake refuses to run; `message` is what it prints. */
export class FakeBitbakeError extends Error {}

export const ABI_VERSION = '15';

/** The tasks whose output streams into their log (Scenario.logLinesPerSecond). */
const STREAMING_TASKS = new Set(['do_configure', 'do_compile', 'do_install']);

/** sanity.bbclass: TMPDIR must not have moved; writes saved_tmpdir and abi_version. */
export function checkTmpdir(cfg: FakeConfig): void {
  const saved = path.join(cfg.tmpdir, 'saved_tmpdir');
  if (fs.existsSync(saved)) {
    const was = fs.readFileSync(saved, 'utf8').trim();
    if (was !== cfg.tmpdir) {
      throw new FakeBitbakeError(
        "ERROR:  OE-core's config sanity checker detected a potential misconfiguration.\n" +
          '    Either fix the cause of this error or at your own risk disable the checker (see sanity.conf).\n' +
          '    Following is the list of potential problems / advisories:\n\n' +
          `    Error, TMPDIR has changed location. You need to either move it back to ${was} or delete it and rebuild\n`,
      );
    }
  }
  fs.mkdirSync(cfg.tmpdir, { recursive: true });
  fs.writeFileSync(saved, cfg.tmpdir);
  fs.writeFileSync(path.join(cfg.tmpdir, 'abi_version'), `${ABI_VERSION}\n`);
}

/** The scenario's recipes as they are in build number `n` (version bumps applied). */
export function recipesForBuild(s: Scenario, n: number): ScenarioRecipe[] {
  return s.recipes.map((r) => {
    const bump = s.versionBump?.find((b) => b.pn === r.pn && n >= b.fromBuild);
    return bump ? { ...r, pv: bump.pv } : r;
  });
}

const STRERROR: Record<string, [number, string]> = {
  ENOSPC: [28, 'No space left on device'],
  EDQUOT: [122, 'Disk quota exceeded'],
  EROFS: [30, 'Read-only file system'],
  EACCES: [13, 'Permission denied'],
  EIO: [5, 'Input/output error'],
};

/** A failed write as a Python task reports it: `OSError: [Errno 28] No space left on device: '<path>'`. */
export function writeErrorText(err: NodeJS.ErrnoException): string {
  const [no, text] = STRERROR[err.code ?? ''] ?? [Math.abs(err.errno ?? 0), err.code ?? 'error'];
  return `OSError: [Errno ${no}] ${text}${err.path ? `: '${err.path}'` : ''}`;
}

/**
 * Runs an effect; what BitBake would report as the task's failure becomes its error text:
 * sstate's refusal to overwrite a shared area, or any write error (ENOSPC on a full tmpfs).
 */
function attempt(effect: () => void): string | undefined {
  try {
    effect();
    return undefined;
  } catch (err) {
    if (err instanceof SharedAreaOverlap) return err.message;
    if (err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string') {
      return writeErrorText(err as NodeJS.ErrnoException);
    }
    throw err;
  }
}

export async function runBuild(cfg: FakeConfig, scenario: Scenario, opts: RunOptions): Promise<BuildResult> {
  checkTmpdir(cfg);
  const rnd = createRng(opts.seed);
  const recipes = recipesForBuild(scenario, opts.buildNumber);
  const byPn = new Map(recipes.map((r) => [r.pn, r]));
  const excluded = (r: ScenarioRecipe) =>
    r.kind === 'kernel' || r.rmWorkExclude === true || cfg.rmWorkExclude.includes(r.pn);
  const graph = buildTaskGraph(recipes, cfg.rmWork, excluded);
  const task = opts.task ? (opts.task.startsWith('do_') ? opts.task : `do_${opts.task}`) : 'do_build';
  for (const t of opts.targets) {
    if (!byPn.has(t)) throw new FakeBitbakeError(`ERROR: Nothing PROVIDES '${t}'`);
    if (!graph.has(`${t}:${task}`))
      throw new FakeBitbakeError(`ERROR: Task ${task} does not exist for target ${t}`);
  }
  const roots = opts.targets.map((t) => `${t}:${task}`);
  const forced = new Set(opts.force && opts.task ? roots : []);
  for (const id of forced) {
    const g = graph.get(id)!;
    const taint = `${stampBaseOf(cfg, g.recipe)}.${g.task}.taint`;
    fs.mkdirSync(path.dirname(taint), { recursive: true });
    fs.writeFileSync(taint, `${Math.floor(rnd() * 2 ** 32).toString(16)}\n`);
  }
  const salt = (id: string) => {
    const g = graph.get(id)!;
    const taint = `${stampBaseOf(cfg, g.recipe)}.${g.task}.taint`;
    return fs.existsSync(taint) ? fs.readFileSync(taint, 'utf8').trim() : '';
  };
  const hashes = computeHashes(graph, salt);
  const hashOf = (id: string) => hashes.get(id)!;
  const plan = planBuild({
    graph,
    roots,
    hashes,
    forced,
    stamps: (id) => {
      const g = graph.get(id)!;
      const base = stampBaseOf(cfg, g.recipe);
      return {
        normal: hasStamp(base, g.task, hashOf(id), false),
        setscene: hasStamp(base, g.task, hashOf(id), true),
      };
    },
    objectExists: (id) => {
      const g = graph.get(id)!;
      return g.sstate && fs.existsSync(sstateObjectOf(cfg, g.recipe, g.task, hashOf(id)));
    },
  });

  const started = new Date();
  const datetime = formatDatetime(started);
  const buildName = formatBuildName(started);
  const log = openConsoleLog(cfg, datetime, opts.out);
  const cmdline = [
    process.argv[1] ?? 'bitbake',
    ...(task === 'do_build' ? [] : ['-c', task.slice(3)]),
    ...opts.targets,
  ];
  const eventLog = writeEventLogStart(cfg, datetime, rnd, { name: buildName, cmdline });
  const io = new TaskIo(cfg, path.join(cfg.buildstatsBase, buildName), rnd);
  io.startBuild(started.getTime() / 1000);
  const ctx: EffectContext = {
    cfg,
    sizeScale: opts.sizeScale,
    byPn,
    skipCreation: new Set((scenario.sstateSkipCreation ?? []).map((s) => `${s.pn}:${s.task}`)),
    rmWorkExcluded: excluded,
  };
  const failSet = new Set((scenario.fail ?? []).map((f) => `${f.pn}:${f.task}`));
  const records: TaskRecord[] = [];
  const failed: string[] = [];
  const aborted = () => opts.signal?.aborted === true || diskHalt;

  writeConsoleHeader(log, cfg, scenario);
  log.progress('Initialising tasks...');
  log.line(formatSstateSummary(plan.counts));
  log.line('NOTE: Executing Tasks');

  // The disk monitor: checked each heartbeat; its ERROR lines make the build return 1.
  let errorLines = 0;
  const report = (lines: string[]) => {
    for (const l of lines) {
      if (l.startsWith('ERROR:')) errorLines++;
      log.line(l);
    }
  };
  const dm = cfg.diskmon ? DiskMonitor.create(cfg.diskmon.dirs, cfg.diskmon.warnInterval) : undefined;
  if (dm) report(dm.lines);
  let diskStop = false;
  let diskHalt = false;
  const heartbeat = () => {
    const c = dm?.monitor?.check();
    if (!c) return;
    report(c.lines);
    diskStop ||= c.stop;
    diskHalt ||= c.halt;
  };

  const inPlan = (mode: string) =>
    [...plan.closure].map((id) => graph.get(id)!).filter((g) => plan.modes.get(g.id) === mode);
  type J = {
    id: string;
    duration: number;
    g: GraphTask;
    startedAt?: number;
    startError?: string;
    linesWritten?: number;
  };
  const job = (g: GraphTask, d: number): J => ({ id: g.id, duration: d * (0.9 + rnd() * 0.2), g });

  // Setscene phase: not scheduler-ordered; graph order, at most BB_NUMBER_THREADS at once.
  const sq = inPlan('setscene').sort((a, b) => a.index - b.index);
  let sqNo = 0;
  let vt = await runJobs(
    sq.map((g) => job(g, g.task === 'do_package' || g.task === 'do_populate_sysroot' ? 1 : 0.5)),
    cfg.threads,
    opts.timeScale,
    {
      pick: (ready) => ready[0],
      start: (j, t) => {
        j.startedAt = t;
        const r = j.g.recipe;
        log.line(
          `NOTE: Running setscene task ${++sqNo} of ${sq.length} (${tidOf(cfg, r, j.g.task)}_setscene)`,
        );
        log.line(`NOTE: recipe ${io.pf(r)}: task ${j.g.task}_setscene: Started`);
        j.startError = attempt(() => io.startTask(r, `${j.g.task}_setscene`));
        appendEvent(eventLog, 'bb.runqueue.sceneQueueTaskStarted', rnd);
      },
      end: (j, t) => {
        const r = j.g.recipe;
        const before = bytesWritten();
        const refused =
          j.startError ??
          attempt(() => {
            applySetscene(ctx, r, j.g.task, hashOf(j.id));
            writeStamp(stampBaseOf(cfg, r), j.g.task, hashOf(j.id), true);
          });
        if (refused) {
          failTask(r, `${j.g.task}_setscene`, refused, bytesWritten() - before);
          records.push(record(j.g, true, j.startedAt!, t, 'failed'));
          return false;
        }
        io.endTask(r, `${j.g.task}_setscene`, true, bytesWritten() - before);
        log.line(`NOTE: recipe ${io.pf(r)}: task ${j.g.task}_setscene: Succeeded`);
        records.push(record(j.g, true, j.startedAt!, t, 'passed'));
        return true;
      },
      released: () => [],
      // BitBake would run the real task, whose sstate install is refused the same way: stop here.
      halted: () => failed.length > 0 || diskStop,
      aborted,
      heartbeat,
    },
  );
  if (!aborted() && !diskStop) log.line('NOTE: Setscene tasks completed');

  // Real phase: speed or completion order, dependencies first.
  const real = inPlan('real').concat(inPlan('noexec'));
  const realIds = new Set(real.map((g) => g.id));
  const skipped = plan.closure.size - real.length;
  const waiting = new Map(real.map((g) => [g.id, g.deps.filter((d) => realIds.has(d)).length]));
  const startedRecipes = new Set<string>();
  let taskNo = skipped;
  let halted = false;
  const running = new Map<string, J>();
  // Output streaming into the logs of the tasks that print most, at the scenario's rate.
  const rate = scenario.logLinesPerSecond ?? 0;
  const streamed =
    rate > 0
      ? {
          everyMs: 20,
          at: (now: number) => {
            for (const j of running.values()) {
              if (j.g.noexec || j.startError !== undefined || !STREAMING_TASKS.has(j.g.task)) continue;
              const due = Math.floor((now - j.startedAt!) * rate) - (j.linesWritten ?? 0);
              if (due <= 0) continue;
              io.output(j.g.recipe, j.g.task, due);
              j.linesWritten = (j.linesWritten ?? 0) + due;
            }
          },
        }
      : undefined;
  if (!aborted() && !diskStop && failed.length === 0) {
    vt = await runJobs(
      real.filter((g) => waiting.get(g.id) === 0).map((g) => job(g, taskSeconds(g))),
      cfg.threads,
      opts.timeScale,
      {
        pick: (ready) => pickTask(ready, cfg.scheduler, startedRecipes),
        start: (j, t) => {
          const r = j.g.recipe;
          j.startedAt = t;
          running.set(j.id, j);
          startedRecipes.add(r.pn);
          const kind = j.g.noexec ? 'noexec task' : 'task';
          log.line(`NOTE: Running ${kind} ${++taskNo} of ${plan.closure.size} (${tidOf(cfg, r, j.g.task)})`);
          if (j.g.noexec) return;
          log.line(`NOTE: recipe ${io.pf(r)}: task ${j.g.task}: Started`);
          j.startError = attempt(() => io.startTask(r, j.g.task));
          appendEvent(eventLog, 'bb.runqueue.runQueueTaskStarted', rnd);
        },
        end: (j, t) => {
          const r = j.g.recipe;
          running.delete(j.id);
          const before = bytesWritten();
          let error = j.startError ?? (failSet.has(j.id) ? 'oe_runmake failed' : undefined);
          if (!error) {
            error = attempt(() => {
              if (!j.g.noexec) applyTask(ctx, r, j.g.task, hashOf(j.id));
              writeStamp(stampBaseOf(cfg, r), j.g.task, hashOf(j.id), false);
            });
          }
          const ok = error === undefined;
          const written = bytesWritten() - before;
          if (!j.g.noexec && error === undefined) {
            io.endTask(r, j.g.task, true, written);
            log.line(`NOTE: recipe ${io.pf(r)}: task ${j.g.task}: Succeeded`);
          } else if (!j.g.noexec && error !== undefined) {
            failTask(r, j.g.task, error, written);
            if (!opts.continueOnFail) halted = true;
          } else if (error !== undefined) {
            // a noexec task whose stamp could not be written: the cooker's own error
            report([`ERROR: ${error}`]);
            halted = true;
          }
          records.push(record(j.g, false, j.startedAt!, t, ok ? 'passed' : 'failed'));
          return ok;
        },
        released: (j, ok) => {
          if (!ok) return [];
          const out: J[] = [];
          for (const d of j.g.dependents) {
            if (!realIds.has(d)) continue;
            const left = waiting.get(d)! - 1;
            waiting.set(d, left);
            if (left === 0) out.push(job(graph.get(d)!, taskSeconds(graph.get(d)!)));
          }
          return out;
        },
        halted: () => halted || diskStop,
        aborted,
        heartbeat,
        ...(streamed ? { progress: streamed } : {}),
      },
      vt,
    );
  }
  const interrupted = aborted();
  if (interrupted) {
    if (running.size > 0) log.line(`NOTE: Sending SIGTERM to remaining ${running.size} tasks`);
    for (const j of running.values()) records.push(record(j.g, false, j.startedAt!, vt, 'interrupted'));
  }
  const ended = new Date();
  const elapsed = (ended.getTime() - started.getTime()) / 1000;
  io.endBuild(elapsed);
  // BitBake counts the tasks it got to (skipped ones included), not the whole run queue.
  const attempted = skipped + records.filter((r) => !r.setscene && r.status !== 'interrupted').length;
  log.line(formatTasksSummary(attempted, skipped, failed.length));
  if (failed.length > 0 || opts.signal?.aborted) {
    opts.out(`Summary: ${failed.length} task${failed.length === 1 ? '' : 's'} failed:`);
    for (const f of failed) opts.out(`  ${f}`);
  }
  if (errorLines > 0) {
    // knotty's footer (terminal only): an ERROR message alone makes the build return 1.
    opts.out(
      `Summary: There ${errorLines === 1 ? 'was 1 ERROR message' : `were ${errorLines} ERROR messages`}, returning a non-zero exit code.`,
    );
  }
  appendEvent(eventLog, 'bb.event.BuildCompleted', rnd);
  return {
    exitCode: failed.length > 0 || interrupted || errorLines > 0 ? 1 : 0,
    records,
    buildName,
    consoleLog: log.path,
    failed,
    interrupted,
  };

  /** BitBake's lines for a failed task, its log and buildstats. */
  function failTask(r: ScenarioRecipe, task: string, error: string, written: number): void {
    const tid = task.endsWith('_setscene')
      ? `${tidOf(cfg, r, task.slice(0, -'_setscene'.length))}_setscene`
      : tidOf(cfg, r, task);
    const logfile = io.endTask(r, task, false, written, error);
    log.line(`ERROR: ${io.pf(r)} ${task}: ${error}`);
    log.line(`ERROR: Logfile of failure stored in: ${logfile}`);
    log.line(`NOTE: recipe ${io.pf(r)}: task ${task}: Failed`);
    log.line(`ERROR: Task (${tid}) failed with exit code '1'`);
    failed.push(tid);
  }

  function taskSeconds(g: GraphTask): number {
    return taskDuration(g.recipe, g.task, g.noexec);
  }
  function record(g: GraphTask, setscene: boolean, start: number, end: number, status: TaskRecord['status']) {
    return {
      pn: g.recipe.pn,
      pf: io.pf(g.recipe),
      task: g.task,
      setscene,
      noexec: g.noexec,
      start,
      end,
      status,
    };
  }
}
