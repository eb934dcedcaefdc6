// `rambake plan`: the sizing model. `planRamBuild` is pure (BuildDir, host facts, history,
// options → RamPlan, every number with its reason); `makePlan` gathers those inputs.

import { statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { assertReadable, findBuildDirOf, loadBuildDir } from '../bitbake/builddir.js';
import type { BuildDir, LoadOptions } from '../bitbake/builddir-types.js';
import { nodeConfIO } from '../bitbake/conf/node-io.js';
import { blockValueProblems, sanityProblems } from '../bitbake/tmpdir-path.js';
import { UsageError } from '../errors.js';
import { type BenchIoResult, readBenchIoResult } from '../system/bench-io-record.js';
import { formatBytes } from '../text/format.js';
import { benchIoSaving } from './bench-io-saving.js';
import { confLines, diskWorkdirLine } from './conf-lines.js';
import { DISKMON_RULE, diskmonValue } from './diskmon.js';
import { readBuildFacts } from './facts.js';
import type { BuildFacts } from './facts-types.js';
import { readHistory } from './history.js';
import { findBlock, withoutManagedBlock } from './managed-block.js';
import { tmpfsSourceName } from './mount-commands.js';
import { publishedFor } from './published.js';
import { chooseBudget, GiB, roomFor, tmpfsSizeOption } from './sizing-budget.js';
import {
  explainBudget,
  explainHost,
  explainKeep,
  explainRmWorkExclude,
  explainVerdict,
} from './sizing-explain.js';
import {
  chooseInodes,
  findGiants,
  needFromHistory,
  needFromPublished,
  needFromTmpdir,
  stepEstimate,
} from './sizing-need.js';
import {
  type History,
  PLAN_SCHEMA_VERSION,
  type PlanOptions,
  type PlanReason,
  type RamPlan,
} from './sizing-types.js';

export { tmpfsSizeOption } from './sizing-budget.js';
export type { History, PlanOptions, RamPlan } from './sizing-types.js';

export interface PlanInput {
  bd: BuildDir;
  facts: BuildFacts;
  history: History;
  opts: PlanOptions;
  /** Owner of the tmpfs root (the build user); default: TOPDIR's owner as makePlan reads it. */
  owner?: { uid: number; gid: number };
  /** The last `rambake bench-io` on this build, if any: how much a RAM TMPDIR saves here. */
  benchIo?: BenchIoResult;
}

export function planRamBuild(input: PlanInput): RamPlan {
  const { bd, facts, history, opts } = input;
  const scope = opts.scope ?? 'tmpdir';
  const path = mountPath(bd, opts);
  const host = explainHost(bd, facts, opts);
  const { entry, matched } = publishedFor(opts.target);
  const tmpdirNotes: PlanReason[] = [];
  const need =
    needFromHistory(history, scope) ??
    needFromTmpdir(bd, input.facts, history, scope, tmpdirNotes) ??
    needFromPublished(entry, matched, scope, opts.target);
  const perJobBytes = history.compile?.p90Bytes ?? entry.perJobBytes;
  const budgetBase = {
    available: host.available,
    headroom: host.headroom,
    swapFree: host.swapFree,
    perJobBytes,
    jobs: host.jobs,
    minJobs: Math.max(1, Math.min(host.jobs, Math.ceil(host.cpus / 2))),
    need: need.bytes,
  };
  const room0 = roomFor({ ...budgetBase, needWithoutGiants: need.bytes, hasGiants: false }, host.jobs, false);
  const giants = need.bytes > room0 ? findGiants(history, entry, room0) : [];
  const giantBytes = giants.reduce((sum, g) => sum + g.bytes, 0);
  const choice = chooseBudget({
    ...budgetBase,
    needWithoutGiants: Math.max(GiB, need.bytes - giantBytes),
    hasGiants: giants.length > 0,
    ...(opts.size === undefined ? {} : { fixedSize: opts.size }),
  });
  const placed = choice.giantsOnDisk ? giants : [];
  const inodes = chooseInodes(choice.size, need.inodes);
  const lowered = choice.jobs < host.jobs;
  const threads = lowered
    ? { bbNumberThreads: Math.min(host.bbThreads, choice.jobs), parallelMake: `-j ${choice.jobs}`, lowered }
    : { bbNumberThreads: host.bbThreads, parallelMake: host.parallelMake, lowered };
  const diskmon = diskmonValue(path, choice.size, inodes.count);
  const source = tmpfsSourceName(bd.topdir);
  const owner = input.owner ?? { uid: 0, gid: 0 };
  const step = stepEstimate(history, new Set(placed.map((g) => g.pn)));
  const stepNeed = step.bytes;
  const inSteps = choice.fits || stepNeed <= choice.size;
  const rmWorkExclude = explainRmWorkExclude(bd, history);
  const reasons = [
    ...host.reasons,
    need.reason,
    ...(need.source === 'published' ? tmpdirNotes : []),
    ...explainBudget({
      choice,
      need: need.bytes,
      perJobBytes,
      host,
      measuredRss: history.compile,
      entry,
      path,
      scope,
      fixed: opts.size !== undefined,
    }),
    inodes.reason,
    {
      topic: 'diskmon',
      text: `${DISKMON_RULE}. BitBake names devices by their /proc/mounts source and every tmpfs is "tmpfs", so this mount gets its own source name ${source}`,
      figures: { source },
    },
    ...placed.map((g) => ({
      topic: 'giant',
      text: `${g.pn} (${formatBytes(g.bytes)}, ${g.source}) builds on disk: WORKDIR:pn-${g.pn} (WORKDIR is not in task hashes; BASE_WORKDIR is, so it stays); its recipe sysroot is then copied, not hardlinked`,
      figures: { bytes: g.bytes },
    })),
    ...rmWorkExclude.map((x) => ({ topic: 'rm-work-exclude', text: x.text })),
    ...explainKeep(bd, scope),
    ...explainBenchIo(input.benchIo),
  ];
  const verdict = explainVerdict({
    choice,
    need: need.bytes,
    inSteps,
    stepNeed,
    stepWhy: step.why,
    measured: need.measured,
    fixed: opts.size !== undefined,
  });
  if (!need.measured)
    reasons.push({
      topic: 'advice',
      text: 'these are published figures, not this build: measure one build with `rambake run` and plan again',
    });
  return {
    schemaVersion: PLAN_SCHEMA_VERSION,
    topdir: bd.topdir,
    tmpfs: { path, size: choice.size, nrInodes: inodes.count, scope },
    threads,
    diskmon,
    conf: confLines(bd, {
      scope,
      tmpfsPath: path,
      diskmon,
      ...(lowered ? { threads } : {}),
      giants: placed.map((g) => g.pn),
    }),
    mount: {
      source,
      options: [
        `size=${tmpfsSizeOption(choice.size)}`,
        `nr_inodes=${inodes.count}`,
        'mode=0755',
        `uid=${owner.uid}`,
        `gid=${owner.gid}`,
        'noatime',
      ],
    },
    reserve: {
      jobs: choice.jobs,
      perJobBytes,
      bytes: choice.jobs * perJobBytes,
      from: history.compile ? 'buildstats' : 'published',
    },
    swapHelps: choice.swapHelps,
    need: { bytes: need.bytes, inodes: need.inodes ?? inodes.count },
    placeOnDisk: placed.map((g) => ({
      pn: g.pn,
      bytes: g.bytes,
      reason: g.source,
      conf: diskWorkdirLine(g.pn),
    })),
    rmWorkExclude,
    sources: {
      history: need.measured,
      need: need.source,
      runs: history.runs.length,
      buildstats: history.compile?.builds.length ?? 0,
      ...(need.measured ? {} : { published: entry.target }),
    },
    uncertainty:
      need.source === 'recorded-run'
        ? `measured on this build (+20% margin); runs vary with parallel timing`
        : need.source === 'tmpdir-tmpfs'
          ? 'an upper bound measured on this build (a completed build on this tmpfs), not its peak: record a run to size it closer'
          : entry.uncertainty,
    reasons,
    verdict,
  };
}

function mountPath(bd: BuildDir, opts: PlanOptions): string {
  if ((opts.scope ?? 'tmpdir') === 'workdir') {
    if (opts.path !== undefined && opts.path !== bd.paths.baseWorkdir)
      throw new UsageError(
        `--path does not apply to --scope workdir: the tmpfs goes on BASE_WORKDIR (${bd.paths.baseWorkdir})`,
        'BASE_WORKDIR is in task hashes and stays as it is; use --scope tmpdir to choose a path',
      );
    return checkBlockValue(bd.paths.baseWorkdir, 'BASE_WORKDIR');
  }
  const path = opts.path ?? join(bd.topdir, 'tmp-ram');
  if (!isAbsolute(path)) throw new UsageError(`--path must be absolute: ${JSON.stringify(path)}`);
  const sanity = sanityProblems(path);
  if (sanity.length > 0)
    throw new UsageError(
      `--path ${JSON.stringify(path)} cannot be TMPDIR: it has ${sanity.join(', ')}, which BitBake's sanity check refuses`,
    );
  return checkBlockValue(path, '--path');
}

/** The path goes between quotes in the managed block: refused (before anything is written or mounted) when it cannot. */
function checkBlockValue(path: string, what: string): string {
  const bad = blockValueProblems(path);
  if (bad.length > 0)
    throw new UsageError(
      `${what} ${JSON.stringify(path)} has ${bad.join(', ')}: it cannot be written as a value in the conf block`,
      'choose a plain absolute path, e.g. /mnt/rambake/tmp',
    );
  return path;
}

/** Reads the BuildDir, the host and the history, then plans. */
export async function makePlan(load: LoadOptions, opts: PlanOptions, history?: History): Promise<RamPlan> {
  return planFor(await loadBuildDirForPlan(load), opts, load.cwd, history);
}

/**
 * The build as it was before `rambake apply`: when rambake's block is in a conf file, the conf
 * files are read without it, and neither bitbake-getvar nor the event log is asked (both would
 * answer with the block's values).
 */
export async function loadBuildDirForPlan(load: LoadOptions): Promise<BuildDir> {
  const found = findBuildDirOf(load);
  const applied = ['auto.conf', 'local.conf', 'site.conf'].some((f) => {
    const text = nodeConfIO.readFile(join(found.topdir, 'conf', f));
    return text !== undefined && findBlock(text) !== undefined;
  });
  const bd = await loadBuildDir(
    applied
      ? {
          ...load,
          buildDir: found.topdir,
          confIO: withoutManagedBlock(nodeConfIO),
          sources: { getvar: false, eventlog: false },
        }
      : load,
  );
  assertReadable(bd);
  return bd;
}

/** Facts and history (read here unless given) for a loaded build, then the pure model. */
export async function planFor(
  bd: BuildDir,
  opts: PlanOptions,
  cwd = process.cwd(),
  known?: History,
): Promise<RamPlan> {
  const [facts, history, benchIo] = await Promise.all([
    readBuildFacts(bd),
    known ?? readHistory(bd, opts.target === undefined ? {} : { targets: [opts.target] }),
    readBenchIoResult(bd.topdir),
  ]);
  const st = statSync(bd.topdir);
  const resolved = opts.path === undefined ? opts : { ...opts, path: resolve(cwd, opts.path) };
  const owner = { uid: st.uid, gid: st.gid };
  return planRamBuild({ bd, facts, history, opts: resolved, owner, ...(benchIo ? { benchIo } : {}) });
}

/** What `rambake bench-io` measured on this host, when it was run (in its own words). */
function explainBenchIo(r: BenchIoResult | undefined): RamPlan['reasons'] {
  const saving = r ? benchIoSaving(r) : undefined;
  if (r?.speedup === undefined || r.savedShare === undefined || saving === undefined) return [];
  return [
    {
      topic: 'io',
      text: `rambake bench-io (${r.at}): a tmpfs did this build-shaped file work ${r.speedup.noFsync.toFixed(1)}× faster than the disk (${r.speedup.fsync.toFixed(1)}× with fsync): ${saving}`,
      figures: {
        speedup: r.speedup.noFsync,
        savedShare: r.savedShare,
        ...(r.tmpdirOnTmpfs === undefined ? {} : { tmpdirOnTmpfs: String(r.tmpdirOnTmpfs) }),
      },
    },
  ];
}
