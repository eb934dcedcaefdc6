// Setscene churn (bitbake-formats.md §11), pure: parsed buildstats and console-log facts of
// consecutive builds → which do_package_setscene restores were redundant, which were
// legitimate, which recur across builds, and the one-time do_package_write_*_setscene after
// an rm_work build. Buildstats are the record of what ran (one file per executed task); the
// console log adds the Sstate summary and failed setscene tasks. The readers live in
// churn-read.ts.

import type { BuildstatsTask } from '../bitbake/buildstats.js';
import type { SstateSummary } from '../bitbake/consolelog.js';

export type { SstateSummary };

import { splitPF } from '../bitbake/pf.js';

export const CHURN_SCHEMA_VERSION = 1;

/** `--builds` when not given. */
export const DEFAULT_CHURN_BUILDS = 5;

/** do_package's consumers in the same recipe (§11): a real run of one of them uses the restore. */
export const PACKAGE_CONSUMERS = [
  'do_packagedata',
  'do_package_qa',
  'do_package_write_ipk',
  'do_package_write_rpm',
  'do_package_write_deb',
  'do_create_spdx',
];

/**
 * Tasks with sstate, in the order the reuse table lists them. The table's rows come from the
 * data: these, plus any task seen as setscene in the builds read (do_recipe_qa,
 * do_create_package_spdx, …), whose real runs are then counted too.
 */
export const SSTATE_TASKS = [
  'do_populate_sysroot',
  'do_populate_lic',
  'do_package',
  'do_packagedata',
  'do_package_qa',
  'do_package_write_ipk',
  'do_package_write_rpm',
  'do_package_write_deb',
  'do_create_spdx',
  'do_deploy',
  'do_deploy_source_date_epoch',
  'do_image_complete',
];

/** What the readers found for one build. */
export interface ChurnBuildInput {
  /** BUILDNAME. */
  name: string;
  /** Epoch ms of the build start. */
  startedAt: number;
  tasks: BuildstatsTask[];
  consoleLog?: string;
  sstate?: SstateSummary;
  /** `<PF-less tid>` facts of `WARNING: Setscene task (…) failed`: PN and task of each. */
  failedSetscene: { pn: string; task: string }[];
  /** The console log reached its Tasks Summary; undefined without a log. */
  finished?: boolean;
  /** Only as history for the analysed builds (its rm_work runs), not reported. */
  contextOnly?: boolean;
  /**
   * A context build read cheaply: the PFs whose do_rm_work ran, instead of `tasks`.
   */
  rmWorkRan?: string[];
}

/** Side evidence from the file system, true of the newest build only (keyed by PF). */
export interface PfEvidence {
  packagesSplitLeft?: boolean;
  /** Consumers whose stamp says current but whose sstate object is not in SSTATE_DIR. */
  missingObjects?: string[];
}

export type CauseKind = 'consumer-setscene-failed' | 'consumer-object-missing' | 'extra-task';

export interface Cause {
  kind: CauseKind;
  /** What the records show. */
  detail: string;
  fix: string;
}

export interface Restore {
  pf: string;
  pn: string;
  /** Seconds (buildstats `Elapsed time`); null when the task file has none. */
  elapsed: number | null;
  /** Bytes the task wrote through write() (`IO wchar`): on tmpfs `write_bytes` stays near zero. */
  wchar: number | null;
  writeBytes: number | null;
  /** do_rm_work ran for the PF in this build (side evidence: absent in redundant restores). */
  rmWorkRan: boolean;
  /** Real consumers that ran after the restore (legitimate restores). */
  consumers: string[];
  packagesSplitLeft?: boolean;
  cause?: Cause;
}

export interface WriteSetscene {
  pf: string;
  pn: string;
  task: string;
  elapsed: number | null;
  wchar: number | null;
  writeBytes: number | null;
}

export interface TaskReuse {
  task: string;
  setscene: number;
  real: number;
}

export interface ChurnBuild {
  name: string;
  /** ISO time of the build start. */
  started: string;
  consoleLog: string | null;
  /** The log reached its Tasks Summary (false: running or stopped, restores may yet be used). */
  finished: boolean | null;
  sstate: SstateSummary | null;
  tasks: { real: number; setscene: number; unfinished: number };
  redundant: Restore[];
  legitimate: Restore[];
  writeSetsceneAfterRmWork: WriteSetscene[];
  reuse: TaskReuse[];
}

export interface Recurring {
  pn: string;
  pf: string;
  builds: string[];
  elapsed: number;
  wchar: number;
}

export interface Skipped {
  path: string;
  why: string;
}

export interface ChurnReport {
  schemaVersion: number;
  buildstatsBase: string;
  /** `--builds`: how many were asked for; `builds` has fewer when fewer folders exist. */
  requestedBuilds?: number;
  builds: ChurnBuild[];
  recurring: Recurring[];
  /** Recurring churn was found (the exit code says so). */
  churn: boolean;
  skipped: Skipped[];
}

const cost = (t: BuildstatsTask | undefined) => ({
  elapsed: t?.elapsed ?? null,
  wchar: t?.wchar ?? null,
  writeBytes: t?.writeBytes ?? null,
});

/** Classifies every build; `evidence` applies to the last build of `builds`. */
export function analyzeChurn(
  builds: ChurnBuildInput[],
  buildstatsBase: string,
  evidence: ReadonlyMap<string, PfEvidence> = new Map(),
): ChurnReport {
  const reported: ChurnBuild[] = [];
  // PFs whose work dir do_rm_work cleaned in the last build that touched their package output:
  // builds in between that never ran them (a `-c cleansstate` of another recipe) do not count.
  const cleaned = new Set<string>();
  const sstateTasks = sstateTasksOf(builds);
  builds.forEach((build, i) => {
    const isLast = i === builds.length - 1;
    if (!build.contextOnly)
      reported.push(analyzeBuild(build, cleaned, sstateTasks, isLast ? evidence : new Map()));
    noteRmWork(cleaned, build);
  });
  const recurring = findRecurring(reported);
  return {
    schemaVersion: CHURN_SCHEMA_VERSION,
    buildstatsBase,
    builds: reported,
    recurring,
    churn: recurring.length > 0,
    skipped: [],
  };
}

/** After `build`: PFs do_rm_work cleaned join; PFs whose package writes ran for real, uncleaned, leave. */
function noteRmWork(cleaned: Set<string>, build: ChurnBuildInput): void {
  const done = build.tasks.filter((t) => t.complete && t.status !== 'FAILED' && !t.setscene);
  const rm = new Set(build.rmWorkRan ?? done.filter((t) => t.task === 'do_rm_work').map((t) => t.pf));
  for (const t of done) if (t.task.startsWith('do_package_write_') && !rm.has(t.pf)) cleaned.delete(t.pf);
  for (const pf of rm) cleaned.add(pf);
}

/** SSTATE_TASKS in their order, then every other task seen as setscene, by name. */
function sstateTasksOf(builds: ChurnBuildInput[]): string[] {
  const seen = new Set<string>();
  for (const b of builds)
    for (const t of b.tasks) if (t.setscene && !SSTATE_TASKS.includes(t.task)) seen.add(t.task);
  return [...SSTATE_TASKS, ...[...seen].sort()];
}

function analyzeBuild(
  build: ChurnBuildInput,
  cleaned: ReadonlySet<string>,
  sstateTasks: readonly string[],
  evidence: ReadonlyMap<string, PfEvidence>,
): ChurnBuild {
  // A task file with only its start lines never finished: still running, or a setscene task
  // that failed (the real task then runs). It restored nothing, so it is no restore.
  const finished = build.tasks.filter((t) => t.complete && t.status !== 'FAILED');
  const byPf = new Map<string, BuildstatsTask[]>();
  for (const t of finished) byPf.set(t.pf, [...(byPf.get(t.pf) ?? []), t]);
  const redundant: Restore[] = [];
  const legitimate: Restore[] = [];
  for (const [pf, tasks] of byPf) {
    const restore = tasks.find((t) => t.setscene && t.task === 'do_package');
    if (!restore) continue;
    const after = restore.started ?? Number.NEGATIVE_INFINITY;
    const consumers = tasks
      .filter((t) => !t.setscene && PACKAGE_CONSUMERS.includes(t.task) && (t.started ?? after) >= after)
      .map((t) => t.task);
    const pn = splitPF(pf).pn;
    const found: Restore = {
      pf,
      pn,
      ...cost(restore),
      rmWorkRan: tasks.some((t) => t.task === 'do_rm_work' && !t.setscene),
      consumers,
    };
    const ev = evidence.get(pf);
    if (ev?.packagesSplitLeft !== undefined) found.packagesSplitLeft = ev.packagesSplitLeft;
    if (consumers.length > 0) legitimate.push(found);
    else redundant.push({ ...found, cause: likelyCause(pn, tasks, build, ev) });
  }
  const writeSetscene = finished
    .filter((t) => t.setscene && t.task.startsWith('do_package_write_') && cleaned.has(t.pf))
    .map((t) => ({ pf: t.pf, pn: splitPF(t.pf).pn, task: `${t.task}_setscene`, ...cost(t) }));
  const byName = (a: { pf: string }, b: { pf: string }) => (a.pf < b.pf ? -1 : a.pf > b.pf ? 1 : 0);
  return {
    name: build.name,
    started: new Date(build.startedAt).toISOString(),
    consoleLog: build.consoleLog ?? null,
    finished: build.finished ?? null,
    sstate: build.sstate ?? null,
    tasks: {
      real: finished.filter((t) => !t.setscene).length,
      setscene: finished.filter((t) => t.setscene).length,
      unfinished: build.tasks.length - finished.length,
    },
    redundant: redundant.sort(byName),
    legitimate: legitimate.sort(byName),
    writeSetsceneAfterRmWork: writeSetscene.sort(byName),
    reuse: countReuse(finished, sstateTasks),
  };
}

// The order matters: a failed consumer setscene is proven by the console log, a missing object
// by SSTATE_DIR; a real task of the PF that no consumer explains points at a nostamp task or an
// extra dependency; with no other evidence a missing consumer object is the known common cause.
function likelyCause(pn: string, tasks: BuildstatsTask[], build: ChurnBuildInput, ev?: PfEvidence): Cause {
  const failed = build.failedSetscene.filter((f) => f.pn === pn && PACKAGE_CONSUMERS.includes(f.task));
  if (failed.length > 0) {
    return {
      kind: 'consumer-setscene-failed',
      detail: `setscene of ${failed.map((f) => f.task).join(', ')} failed (console log)`,
      fix: 'check that sstate object and its mirror; a corrupt or half-uploaded object keeps failing',
    };
  }
  const extra = tasks.filter((t) => !t.setscene && !['do_rm_work', 'do_build'].includes(t.task));
  if (extra.length > 0 && !ev?.missingObjects?.length) {
    return {
      kind: 'extra-task',
      detail: `${extra.map((t) => t.task).join(', ')} ran for real without a consumer of do_package`,
      fix: 'a nostamp task or an extra task dependency makes do_package look stale: find who adds it (bitbake -g, task-depends.dot) and drop the [nostamp] flag or the dependency',
    };
  }
  const missing = ev?.missingObjects?.length ? ev.missingObjects.join(', ') : undefined;
  return {
    kind: 'consumer-object-missing',
    detail: missing
      ? `no sstate object in SSTATE_DIR for ${missing}`
      : 'no consumer ran, neither real nor setscene: a consumer stamp is current but its sstate object is not available',
    fix: 'the sstate cache is pruned or read-only, or SSTATE_SKIP_CREATION covers a consumer task: make SSTATE_DIR writable and rebuild the consumer once (bitbake -f -c do_package_qa PN), or drop it from SSTATE_SKIP_CREATION',
  };
}

function countReuse(finished: BuildstatsTask[], sstateTasks: readonly string[]): TaskReuse[] {
  const counts = new Map<string, TaskReuse>();
  for (const t of finished) {
    if (!sstateTasks.includes(t.task) && !t.setscene) continue;
    const row = counts.get(t.task) ?? { task: t.task, setscene: 0, real: 0 };
    if (t.setscene) row.setscene++;
    else row.real++;
    counts.set(t.task, row);
  }
  const rank = (task: string) => {
    const i = sstateTasks.indexOf(task);
    return i < 0 ? sstateTasks.length : i;
  };
  return [...counts.values()].sort((a, b) => rank(a.task) - rank(b.task) || (a.task < b.task ? -1 : 1));
}

/** A PF redundant in two or more of the reported builds (§11's churn). */
export function findRecurring(builds: ChurnBuild[]): Recurring[] {
  const byPf = new Map<string, Recurring>();
  for (const b of builds) {
    for (const r of b.redundant) {
      const row = byPf.get(r.pf) ?? { pn: r.pn, pf: r.pf, builds: [], elapsed: 0, wchar: 0 };
      row.builds.push(b.name);
      row.elapsed += r.elapsed ?? 0;
      row.wchar += r.wchar ?? 0;
      byPf.set(r.pf, row);
    }
  }
  return [...byPf.values()]
    .filter((r) => r.builds.length >= 2)
    .sort((a, b) => b.builds.length - a.builds.length || b.elapsed - a.elapsed || (a.pf < b.pf ? -1 : 1));
}
