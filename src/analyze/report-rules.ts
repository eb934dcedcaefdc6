// The report's recommendations, each from one named rule over the measured run, so a reader
// (and a test) can tell which rule said what. Pure.

import { MARGIN_MEASURED } from '../plan/sizing-need.js';
import { formatBytes } from '../text/format.js';
import { renderShellCommand } from '../text/shell.js';
import type { RecipePeak, Recommendation, Report } from './report-types.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/**
 * A tmpfs size= to suggest: whole GiB for a real build's need, 16 MiB steps below 2 GiB (a
 * small build's 145 MiB is not "grow to 1 GiB"). Returns bytes and the size= text.
 */
export function roundedSize(bytes: number): { bytes: number; text: string } {
  if (bytes >= 2 * GiB) {
    const g = Math.ceil(bytes / GiB);
    return { bytes: g * GiB, text: `${g}g` };
  }
  const m = Math.ceil(bytes / (16 * MiB)) * 16;
  return { bytes: m * MiB, text: `${m}m` };
}
/** A recipe holding this share of the run's peak on its own is worth a step of its own (as `steps`). */
const GIANT_SHARE = 0.25;
const MAX_GIANTS = 3;
/** Below this, waiting for do_rm_work cost too little to mention. */
const HELD_GIB_MIN = 0.5;
/** Inodes above this share of nr_inodes: the next build may run out of files before bytes. */
const INODE_SHARE = 0.8;

export function recommend(
  report: Report,
  peaks: readonly RecipePeak[],
  plan?: { sizeBytes: number; fits: boolean; verdict: string },
): Recommendation[] {
  return [
    ...sizeRule(report),
    ...inodeRule(report),
    ...excludeRule(report),
    ...staleRule(report),
    ...heldRule(report),
    ...giantRule(report, peaks),
    ...churnRule(report),
    ...(plan ? [planRule(report, plan)] : []),
  ];
}

/** plan: the sizing model's verdict; a stopped run's peak is a floor, and the verdict says so. */
function planRule(r: Report, plan: { sizeBytes: number; fits: boolean; verdict: string }): Recommendation {
  const stopped = r.run.stopped;
  return {
    rule: 'plan',
    severity: plan.fits && !stopped ? 'info' : 'warn',
    text:
      `rambake plan on this host (every recorded run, RAM and compile memory): ${plan.verdict}` +
      (stopped ? ` (this run was stopped, ${stopped.message}: its peak is a floor, the need is higher)` : ''),
    bytes: plan.sizeBytes,
  };
}

/** tmpfs-size: the run's own peak + the measured margin, in whole GiB; enospc: that peak is a floor. */
function sizeRule(r: Report): Recommendation[] {
  const peak = r.usage.peakRunBytes;
  if (peak <= 0) return [];
  const rounded = roundedSize(peak * MARGIN_MEASURED);
  const need = rounded.bytes;
  const margin = `${Math.round((MARGIN_MEASURED - 1) * 100)}%`;
  const what = r.run.fs.ownFs ? 'TMPDIR peaked at' : 'TMPDIR grew by';
  const base = `${what} ${formatBytes(peak)}; with a ${margin} margin a tmpfs of ${formatBytes(need)} holds it`;
  const out: Recommendation[] = [];
  const size = r.run.fs.sizeBytes;
  const stopped = r.run.stopped;
  if (r.usage.enospc.length > 0)
    out.push({
      rule: 'enospc',
      severity: 'warn',
      text: `the run hit ENOSPC (${r.usage.enospc[0]!.message}): its peak is a floor, not the need; measure again on a bigger tmpfs`,
    });
  // A build that did not finish never "fits": it stopped before its real peak.
  if (stopped && size !== null)
    out.push({
      rule: 'tmpfs-size',
      severity: 'warn',
      text:
        stopped.kind === 'diskmon'
          ? `${what} ${formatBytes(peak)} when BitBake's disk monitor stopped the build (${stopped.message}): the ${formatBytes(size)} tmpfs did not hold it with BB_DISKMON_DIRS as set (rambake doctor checks its thresholds), and the peak is a floor; build in steps (rambake steps) or measure again on a bigger tmpfs`
          : `${what} ${formatBytes(peak)} before the build was stopped (${stopped.message}): the ${formatBytes(size)} tmpfs did not hold it, and the peak is a floor; build in steps (rambake steps) or measure again on a bigger tmpfs`,
      bytes: need,
    });
  else if (stopped)
    out.push({
      rule: 'tmpfs-size',
      severity: 'warn',
      text: `${what} ${formatBytes(peak)} before the build was stopped (${stopped.message}): the peak is a floor; a tmpfs of ${formatBytes(need)} is the least it needs`,
      bytes: need,
    });
  else if (size === null)
    out.push({ rule: 'tmpfs-size', severity: 'info', text: `${base} (size=${rounded.text})`, bytes: need });
  // Against the need itself, not its rounding: a tmpfs that holds peak + margin fits.
  else if (size < peak * MARGIN_MEASURED)
    out.push({
      rule: 'tmpfs-size',
      severity: 'warn',
      text: `${base}: grow the tmpfs from ${formatBytes(size)} to ${formatBytes(need)}`,
      bytes: need,
    });
  else if (size > 2 * need)
    out.push({
      rule: 'tmpfs-size',
      severity: 'info',
      text: `${base}: the ${formatBytes(size)} tmpfs could shrink (tmpfs takes RAM only as it fills, but size= is what protects the compilers)`,
      bytes: need,
    });
  else
    out.push({
      rule: 'tmpfs-size',
      severity: 'info',
      text: `${base}: the ${formatBytes(size)} tmpfs fits`,
      bytes: need,
    });
  return out;
}

/** tmpfs-inodes: the peak used more than 80% of nr_inodes. */
function inodeRule(r: Report): Recommendation[] {
  const cap = r.run.fs.nrInodes;
  if (cap === null || r.usage.peak.inodes <= cap * INODE_SHARE) return [];
  const want = Math.ceil(r.usage.peak.inodes * MARGIN_MEASURED);
  return [
    {
      rule: 'tmpfs-inodes',
      severity: 'warn',
      text: `inodes peaked at ${r.usage.peak.inodes} of nr_inodes=${cap}: raise nr_inodes to at least ${want}`,
    },
  ];
}

/** rm-work-exclude: a work dir kept by RM_WORK_EXCLUDE holds RAM after its recipe is built. */
function excludeRule(r: Report): Recommendation[] {
  return r.lingering
    .filter((l) => l.state === 'excluded' && l.reason.includes('RM_WORK_EXCLUDE'))
    .map((l) => ({
      rule: 'rm-work-exclude' as const,
      severity: 'warn' as const,
      text: `${l.pn} is in RM_WORK_EXCLUDE and kept ${formatBytes(l.bytes)} in RAM after it was built: drop it from the list unless you are working on it`,
      bytes: l.bytes,
      pn: l.pn,
    }));
}

/** stale-workdir: a work dir of an older version or another build takes room for nothing. */
function staleRule(r: Report): Recommendation[] {
  return r.lingering
    .filter((l) => l.state === 'stale' && l.bytes > 0)
    .map((l) => ({
      rule: 'stale-workdir' as const,
      severity: 'info' as const,
      text: l.reason.startsWith('older PV')
        ? `${l.workdir} (${formatBytes(l.bytes)}) stayed behind (${l.reason}): no build uses it again; delete the folder`
        : `${l.workdir} (${formatBytes(l.bytes)}) stayed behind (${l.reason}): if its recipe is no longer part of your builds, delete the folder`,
      bytes: l.bytes,
      pn: l.pn,
    }));
}

/** held-by-rm-work: finished recipes sat in RAM waiting for their do_rm_work. */
function heldRule(r: Report): Recommendation[] {
  if (r.heldGiBMin < HELD_GIB_MIN) return [];
  return [
    {
      rule: 'held-by-rm-work',
      severity: 'info',
      text: `finished recipes waited ${r.heldGiBMin.toFixed(1)} GiB·min for do_rm_work: keep BB_SCHEDULER = "completion" (rm_work's default), which finishes started recipes first`,
    },
  ];
}

/**
 * steps-giant: a recipe holding a quarter of the peak alone is built first, on its own. The
 * command keeps the recorded bitbake command whole (every target, every option), each word
 * quoted by the one quoting function, so it runs as printed.
 */
function giantRule(r: Report, peaks: readonly RecipePeak[]): Recommendation[] {
  const peak = r.usage.peakRunBytes;
  if (peak <= 0) return [];
  const giants = peaks
    .filter((p) => !p.workdir.startsWith('work-shared/') && p.bytes >= peak * GIANT_SHARE)
    .slice(0, MAX_GIANTS);
  if (giants.length === 0) return [];
  const command = r.run.command ? lastCommand(r) : null;
  // Recipe names come from work dirs and timelines (data): quoted even when no command was recorded.
  const steps = `--steps=${giants.map((x) => x.pn).join(',')}`;
  const how =
    command === null
      ? `: ${renderShellCommand(['rambake', 'run', steps, '--'])} followed by the bitbake command (this run recorded none)`
      : `: ${renderShellCommand(['rambake', 'run', steps, '--', ...command])}`;
  return giants.map((g, i) => ({
    rule: 'steps-giant' as const,
    severity: 'info' as const,
    text:
      `${g.pn} alone held ${formatBytes(g.bytes)} (${Math.round((g.bytes / peak) * 100)}% of the peak): build it in a step of its own` +
      (i === giants.length - 1 ? how : ''),
    bytes: g.bytes,
    pn: g.pn,
  }));
}

/** The command that built the targets: the last of a run in steps (run or not), else the command. */
function lastCommand(r: Report): string[] {
  return r.run.commands.at(-1) ?? r.run.command ?? [];
}

/** churn: do_package_setscene redundant in two or more builds (rambake churn has the causes). */
function churnRule(r: Report): Recommendation[] {
  return (r.churn?.recurring ?? []).map((x) => ({
    rule: 'churn' as const,
    severity: 'warn' as const,
    text: `${x.pf}: do_package_setscene restored for nothing in ${x.builds.length} builds (${x.builds.join(', ')}): run rambake churn for the cause and the fix`,
    pn: x.pn,
  }));
}
