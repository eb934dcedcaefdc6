// The sentences of the sizing model: each input it reads and each choice it makes, with the
// figures behind it, so `rambake plan` never prints a number it cannot explain.

import type { BuildDir } from '../bitbake/builddir-types.js';
import { formatBytes, plural } from '../text/format.js';
import { schedulerOverridden } from './conf-lines.js';
import type { BuildFacts } from './facts-types.js';
import { workdirPn } from './history.js';
import type { PublishedTarget } from './published.js';
import { type BudgetChoice, GiB, SWAP_SHARE } from './sizing-budget.js';
import type { CompileRss, History, PlanOptions, PlanReason, PlanScope } from './sizing-types.js';

export interface HostBudget {
  ram: number;
  available: number;
  headroom: number;
  swapFree: number;
  cpus: number;
  bbThreads: number;
  parallelMake: string;
  makeJobs: number;
  /** Compile jobs that can run at once: BB_NUMBER_THREADS × make -j, at most one per CPU. */
  jobs: number;
  reasons: PlanReason[];
}

/** `-j 8` → 8, `-j8 -l 8` → 8, `` → undefined. */
export function parseParallelMake(value: string | undefined): number | undefined {
  // '-j 8 -l 8' → ['-j 8', '8']
  const m = /(?:^|\s)-j\s*(\d+)/.exec(value ?? '');
  return m ? Number(m[1]) : undefined;
}

export function explainHost(bd: BuildDir, facts: BuildFacts, opts: PlanOptions): HostBudget {
  const h = facts.host;
  const ram = opts.ram ?? h.memTotal;
  const inUse = Math.max(0, h.memTotal - h.memAvailable);
  const available = opts.ram === undefined ? h.memAvailable : Math.max(0, opts.ram - inUse);
  const headroom = Math.max(2 * GiB, Math.round(ram * 0.05));
  const cpus = Math.max(1, h.cpusUsable);
  const threadsVar = bd.vars.BB_NUMBER_THREADS;
  const bbThreads = Number.parseInt(threadsVar.value ?? '', 10) || cpus;
  const parallelMake = bd.vars.PARALLEL_MAKE.value?.trim() || `-j ${cpus}`;
  const makeJobs = parseParallelMake(parallelMake) ?? cpus;
  const jobs = Math.max(1, Math.min(bbThreads * makeJobs, cpus));
  const reasons: PlanReason[] = [
    {
      topic: 'ram',
      text:
        opts.ram === undefined
          ? `RAM ${formatBytes(ram)} (MemTotal), ${formatBytes(available)} available now (MemAvailable)`
          : `RAM ${formatBytes(ram)} as asked (--ram; this machine has ${formatBytes(h.memTotal)}); the ${formatBytes(inUse)} in use now is kept, so ${formatBytes(available)} available`,
      figures: { ram, available, inUse },
    },
    {
      topic: 'headroom',
      text: `${formatBytes(headroom)} kept back for BitBake's server, the page cache and the desktop: the larger of 2 GiB and 5% of RAM`,
      figures: { headroom },
    },
    {
      topic: 'swap',
      text:
        h.swapTotal > 0
          ? `swap ${formatBytes(h.swapTotal)}, ${formatBytes(h.swapFree)} free: tmpfs pages can be swapped out, so a tmpfs may use up to ${Math.round(SWAP_SHARE * 100)}% of it beyond RAM (slower, but it works, as in PostgreSQL's swap-backed CI RAM disk)`
          : 'no swap: the tmpfs must fit in RAM',
      figures: { swapTotal: h.swapTotal, swapFree: h.swapFree },
    },
    {
      topic: 'jobs',
      text: `${plural(jobs, 'compile job')} at once with today's settings: BB_NUMBER_THREADS ${bbThreads} (${threadsVar.source}) × PARALLEL_MAKE "${parallelMake}" (${bd.vars.PARALLEL_MAKE.source}), at most one per usable CPU (${cpus})`,
      figures: { jobs, bbThreads, makeJobs, cpus },
    },
  ];
  return {
    ram,
    available,
    headroom,
    swapFree: h.swapFree,
    cpus,
    bbThreads,
    parallelMake,
    makeJobs,
    jobs,
    reasons,
  };
}

export interface BudgetFacts {
  choice: BudgetChoice;
  need: number;
  perJobBytes: number;
  host: HostBudget;
  measuredRss: CompileRss | undefined;
  entry: PublishedTarget;
  path: string;
  scope: PlanScope;
  /** --size: the size was the user's, checked rather than chosen. */
  fixed: boolean;
}

export function explainBudget(f: BudgetFacts): PlanReason[] {
  const { choice, host } = f;
  const rss = f.measuredRss;
  const reasons: PlanReason[] = [
    {
      topic: 'reserve',
      text:
        `${formatBytes(choice.jobs * f.perJobBytes)} left free for compilers: ${plural(choice.jobs, 'job')} × ${formatBytes(f.perJobBytes)} per job, ` +
        (rss
          ? `the 90th percentile of ru_maxrss over ${rss.tasks} do_compile tasks in buildstats (largest: ${rss.heaviest[0]?.pf ?? '?'} ${formatBytes(rss.maxBytes)})`
          : f.entry.perJobSource),
      figures: { jobs: choice.jobs, perJobBytes: f.perJobBytes, bytes: choice.jobs * f.perJobBytes },
    },
    {
      topic: 'size',
      text: `tmpfs size ${formatBytes(choice.size)} at ${f.path}: ${sizeWhy(f)}; size= is only a cap, unused space costs nothing`,
      figures: { size: choice.size, need: f.need, room: Math.floor(choice.room) },
    },
  ];
  if (choice.jobs < host.jobs)
    reasons.push({
      topic: 'threads',
      text: `compile jobs lowered from ${host.jobs} to ${choice.jobs} (BB_NUMBER_THREADS ${Math.min(host.bbThreads, choice.jobs)}, PARALLEL_MAKE "-j ${choice.jobs}") so compilers and the tmpfs fit together; never below half the CPUs`,
      figures: { from: host.jobs, to: choice.jobs },
    });
  if (choice.swapHelps)
    reasons.push({
      topic: 'swap-helps',
      text: `the tmpfs is larger than the RAM left for it: swap holds the rest (tmpfs pages swap out when memory is short)`,
    });
  if (f.scope === 'workdir')
    reasons.push({
      topic: 'scope',
      text: 'only BASE_WORKDIR in RAM: recipe sysroots can no longer be hardlinked from sysroots-components (another file system), so each is a full copy; and stamps on disk outlive the tmpfs, so after a reboot BitBake trusts stamps for work it lost. The tmpdir scope avoids both',
    });
  return reasons;
}

function sizeWhy(f: BudgetFacts): string {
  if (f.fixed)
    return `as asked (--size); the build needs ${formatBytes(f.need)} and the machine can give ${formatBytes(f.choice.room)}`;
  if (!f.choice.fits && f.need > f.choice.size)
    return `the most this machine can give (RAM${f.choice.swapHelps ? ' and swap' : ''} after headroom and compilers: ${formatBytes(f.choice.room)}), short of the ${formatBytes(f.need)} needed`;
  return `the ${formatBytes(f.need)} needed, rounded up to a whole GiB; room for it: ${formatBytes(f.choice.room)}`;
}

export function explainRmWorkExclude(
  bd: BuildDir,
  history: History,
): { pn: string; bytes?: number; text: string }[] {
  const peaks = new Map<string, number>();
  for (const [dir, bytes] of Object.entries(history.workdirPeaks)) {
    const pn = workdirPn(dir);
    peaks.set(pn, Math.max(peaks.get(pn) ?? 0, bytes));
  }
  return bd.rmWorkExclude.map((pn) => {
    const bytes = peaks.get(pn);
    const size = bytes === undefined ? 'not measured yet' : `measured ${formatBytes(bytes)}`;
    return {
      pn,
      ...(bytes === undefined ? {} : { bytes }),
      text: `${pn} is in RM_WORK_EXCLUDE: its work dir stays in RAM after its build (${size}); drop it from the list unless you are working on it`,
    };
  });
}

export function explainKeep(bd: BuildDir, scope: PlanScope): PlanReason[] {
  const reasons: PlanReason[] = [];
  reasons.push({
    topic: 'rm_work',
    text: bd.rmWork
      ? 'rm_work is already inherited: each recipe is cleaned once built'
      : 'INHERIT += "rm_work": each recipe is cleaned once built, which is what lets a target fit in RAM',
  });
  if (schedulerOverridden(bd))
    reasons.push({
      topic: 'scheduler',
      text: `BB_SCHEDULER is "${bd.vars.BB_SCHEDULER.value}" (${bd.vars.BB_SCHEDULER.source}), overriding rm_work's "completion": set back, so started recipes finish and are cleaned first`,
    });
  if (scope === 'tmpdir')
    reasons.push({
      topic: 'keep',
      text: 'images (DEPLOY_DIR), buildstats (BUILDSTATS_BASE:forcevariable: a hard = in buildstats.bbclass), console and event logs go to ${TOPDIR}/rambake-keep/ so they outlive the tmpfs. After the tmpfs is lost (reboot), empty rambake-keep/deploy before the next build: the sstate manifests that owned its files are gone with the tmpfs',
    });
  return reasons;
}

export function explainVerdict(v: {
  choice: BudgetChoice;
  need: number;
  inSteps: boolean;
  stepNeed: number;
  /** Where the step figure comes from (recorded work-dir peaks, else published). */
  stepWhy: string;
  measured: boolean;
  /** --size: the size was the user's. */
  fixed: boolean;
}): { fits: boolean; inSteps: boolean; text: string } {
  const c = v.choice;
  const basis = v.measured ? 'measured' : 'published';
  if (c.fits) {
    const how = [
      c.swapHelps ? 'with swap under the tmpfs' : 'in RAM',
      c.giantsOnDisk ? 'with the giants on disk' : '',
    ]
      .filter(Boolean)
      .join(', ');
    return {
      fits: true,
      inSteps: true,
      text: `fits ${how}: ${formatBytes(c.size)} tmpfs for a ${basis} need of ${formatBytes(v.need)}`,
    };
  }
  const steps = v.inSteps
    ? `build big targets in steps (\`rambake steps\`): each step needs about ${formatBytes(v.stepNeed)} (${v.stepWhy})`
    : `even one step (about ${formatBytes(v.stepNeed)}: ${v.stepWhy}) does not fit: keep TMPDIR on disk or use a bigger machine`;
  const gives =
    v.fixed && v.need <= c.size
      ? `the asked ${formatBytes(c.size)} tmpfs is more than this machine can give (${formatBytes(c.room)} after headroom and compilers)`
      : `${v.fixed ? 'the asked tmpfs is' : 'this machine can give'} ${formatBytes(c.size)}`;
  return {
    fits: false,
    inSteps: v.inSteps,
    text: `does not fit: the build needs ${formatBytes(v.need)} (${basis}), ${gives}; ${steps}`,
  };
}
