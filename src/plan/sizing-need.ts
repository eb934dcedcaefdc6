// What the build needs on the tmpfs, from measured runs when there are any, else from the
// published figures; and which recipes are big enough to be worth placing on disk. Every
// figure comes with the sentence that explains it.

import type { BuildDir } from '../bitbake/builddir-types.js';
import { formatBytes } from '../text/format.js';
import type { BuildFacts } from './facts-types.js';
import { workdirPn } from './history.js';
import type { PublishedTarget } from './published.js';
import type { History, NeedSource, PlanReason, PlanScope } from './sizing-types.js';

/** Over the largest measured peak: runs differ (parallel timing, a bigger kernel next time). */
export const MARGIN_MEASURED = 1.2;
/** Over a published figure: other machines, other releases. */
export const MARGIN_PUBLISHED = 1.25;
/** tmpfs inodes per GiB when nothing was measured: a TMPDIR is mostly small files. */
export const INODES_PER_GIB = 65_536;
/** systemd's /tmp uses nr_inodes=400k: never less. */
export const MIN_INODES = 400 * 1024;

export interface Need {
  bytes: number;
  /** Measured peak inodes with the margin, when known. */
  inodes?: number;
  measured: boolean;
  source: NeedSource;
  reason: PlanReason;
}

export function needFromHistory(history: History, scope: PlanScope): Need | undefined {
  const runs = history.runs.filter((r) => r.samples.length > 0 || r.summarised);
  if (runs.length === 0) return undefined;
  const peakOf = (r: (typeof runs)[number]) => {
    if (scope === 'workdir') return r.peakWorkBytes;
    // On a disk shared with other files, `used` counts them too: take the run's growth, and for
    // the newest run the growth of TMPDIR alone (what --predict replays: the sstate and
    // downloads it wrote next to TMPDIR taken out; history-outside.ts).
    if (!r.onTmpfs && r === history.run && history.footprint) return history.footprint.peakBytes;
    return r.peakBytes - r.baselineBytes;
  };
  const best = runs.reduce((a, b) => (peakOf(b) > peakOf(a) ? b : a));
  const peak = peakOf(best);
  if (peak <= 0) return undefined;
  const enospc = runs.some((r) => r.enospc);
  const what = scope === 'workdir' ? 'live work dirs together' : 'TMPDIR';
  const disk = scope === 'tmpdir' && !best.onTmpfs;
  const inodePeaks = runs.filter((r) => r.onTmpfs).map((r) => r.peakInodes);
  const inodes = inodePeaks.length > 0 ? Math.ceil(Math.max(...inodePeaks) * MARGIN_MEASURED) : undefined;
  return {
    bytes: Math.ceil(peak * MARGIN_MEASURED),
    ...(inodes === undefined ? {} : { inodes }),
    measured: true,
    source: 'recorded-run',
    reason: {
      topic: 'need',
      text:
        `measured: ${what} peaked at ${formatBytes(peak)} in ${best.file}` +
        ` (largest of ${runs.length} recorded run${runs.length === 1 ? '' : 's'}), +${pct(MARGIN_MEASURED)} margin` +
        (disk
          ? `; TMPDIR shared a disk, so the growth during the run is used (it misses what TMPDIR held before)${best === history.run && history.footprint?.outsideBytes ? `, less ${formatBytes(history.footprint.outsideBytes)} the run wrote next to TMPDIR (sstate, downloads)` : ''}`
          : '') +
        (best.summarised
          ? ''
          : '; that run has no summary line (watcher killed): peak recomputed from its samples') +
        (enospc ? '; a run hit ENOSPC, so its peak is a floor: measure again on a bigger tmpfs' : ''),
      figures: { peakBytes: peak, runs: runs.length, margin: MARGIN_MEASURED },
    },
  };
}

export function needFromPublished(
  entry: PublishedTarget,
  matched: boolean,
  scope: PlanScope,
  target?: string,
): Need {
  const peak = entry.peak[scope];
  const unknown = matched ? '' : `no published figure for "${target}": core-image-sato's used; `;
  return {
    bytes: Math.ceil(peak * MARGIN_PUBLISHED),
    measured: false,
    source: 'published',
    reason: {
      topic: 'need',
      text: `${unknown}${entry.source[scope]}: ${formatBytes(peak)}, +${pct(MARGIN_PUBLISHED)} margin`,
      figures: { publishedBytes: peak, target: entry.target, margin: MARGIN_PUBLISHED },
    },
  };
}

/**
 * Without a recorded run: TMPDIR already on a tmpfs of its own, and the newest buildstats
 * build written on it (so after it was mounted) completed. That build fitted its size: the
 * size is a measured upper bound of the need, and what is used now a lower one.
 */
export function needFromTmpdir(
  bd: BuildDir,
  facts: BuildFacts,
  history: History,
  scope: PlanScope,
  notes?: PlanReason[],
): Need | undefined {
  const tmp = facts.paths.tmpdir;
  const mount = tmp?.mount;
  if (scope !== 'tmpdir' || !mount || mount.fsType !== 'tmpfs' || mount.mountPoint !== bd.paths.tmpdir)
    return undefined;
  const size = mount.sizeBytes ?? tmp.fs?.totalBytes;
  const built = history.newestBuild;
  const used = tmp.fs ? tmp.fs.totalBytes - tmp.fs.freeBytes : undefined;
  if (size === undefined) return undefined;
  if (!built?.completed || !built.dir.startsWith(`${bd.paths.tmpdir}/`)) {
    // Not a proof of fit; said beside the published figure so the measured state is not hidden.
    notes?.push({
      topic: 'tmpdir',
      text: `TMPDIR is on a ${formatBytes(size)} tmpfs${used === undefined ? '' : ` with ${formatBytes(used)} used now`}, but no build is known to have completed on it (${built ? `the newest buildstats, ${built.name}, ${built.completed ? 'are not on it' : 'did not complete'}` : 'no buildstats'}), so it does not size the need`,
      figures: { sizeBytes: size, ...(used === undefined ? {} : { usedBytes: used }) },
    });
    return undefined;
  }
  return {
    bytes: size,
    ...(mount.nrInodes === undefined ? {} : { inodes: mount.nrInodes }),
    measured: true,
    source: 'tmpdir-tmpfs',
    reason: {
      topic: 'need',
      text:
        `measured: TMPDIR is on a ${formatBytes(size)} tmpfs` +
        (used === undefined ? '' : ` with ${formatBytes(used)} used now`) +
        ` and build ${built.name} (its buildstats are on it) completed there, so ${formatBytes(size)} is enough for that build; its peak was not recorded (rambake run records it and sizes closer)`,
      figures: { sizeBytes: size, ...(used === undefined ? {} : { usedBytes: used }) },
    },
  };
}

/** nr_inodes: the larger of the measured peak (with margin), a per-GiB rule, and systemd's 400k. */
export function chooseInodes(
  size: number,
  measured: number | undefined,
): { count: number; reason: PlanReason } {
  const rule = Math.ceil((size / 2 ** 30) * INODES_PER_GIB);
  const count = Math.max(rule, measured ?? 0, MIN_INODES);
  const parts = [`${thousands(INODES_PER_GIB)} per GiB of size (${thousands(rule)})`];
  if (measured !== undefined)
    parts.push(`the measured peak +${pct(MARGIN_MEASURED)} (${thousands(measured)})`);
  parts.push(`systemd's /tmp nr_inodes=400k (${thousands(MIN_INODES)})`);
  return {
    count,
    reason: {
      topic: 'inodes',
      text: `nr_inodes ${thousands(count)}: the largest of ${parts.join(', ')}; an inode costs memory only while its file exists`,
      figures: { nrInodes: count, rule, ...(measured === undefined ? {} : { measured }) },
    },
  };
}

export interface GiantCandidate {
  pn: string;
  bytes: number;
  source: string;
}

/** Recipes whose work dir alone is at least `share` of the room: on disk they free that much. */
export function findGiants(
  history: History,
  published: PublishedTarget,
  room: number,
  share = 0.25,
): GiantCandidate[] {
  const byPn = new Map<string, number>();
  for (const [dir, bytes] of Object.entries(history.workdirPeaks)) {
    const pn = workdirPn(dir);
    byPn.set(pn, Math.max(byPn.get(pn) ?? 0, bytes));
  }
  const candidates: GiantCandidate[] =
    byPn.size > 0
      ? [...byPn].map(([pn, bytes]) => ({ pn, bytes, source: 'measured work-dir peak' }))
      : published.giants.map((g) => ({ ...g }));
  return candidates
    .filter((c) => c.bytes >= room * share)
    .sort((a, b) => b.bytes - a.bytes || (a.pn < b.pn ? -1 : 1));
}

/** A kernel build's work dir, the published floor of a step when nothing was measured. */
const KERNEL_STEP_BYTES = 4 * 2 ** 30;

/**
 * What one step of a stepped build must hold: measured when a stepped run is recorded (its
 * largest step, +margin); else roughly twice the largest recorded work-dir peak that stays in
 * RAM (a step also builds what its giant needs: on the fake sato-like build webkitgtk's step
 * held 6 times its work dir, so `plan --predict --steps auto` is the figure to trust); without
 * any, twice a kernel build (published).
 */
export function stepEstimate(
  history: History,
  exclude: ReadonlySet<string>,
): { bytes: number; measured: boolean; why: string } {
  const stepped = history.runs.filter((r) => (r.header?.steps?.length ?? 0) > 1 && !r.enospc);
  // With giants placed on disk the stepped run (giants in RAM) is an upper bound: still the best figure.
  if (stepped.length > 0) {
    const growth = (r: (typeof stepped)[number]) => r.peakBytes - r.baselineBytes;
    const best = stepped.reduce((a, b) => (growth(b) > growth(a) ? b : a));
    if (growth(best) > 0)
      return {
        bytes: Math.ceil(growth(best) * MARGIN_MEASURED),
        measured: true,
        why: `measured: the stepped run ${best.file} peaked at ${formatBytes(growth(best))}, +${pct(MARGIN_MEASURED)} margin`,
      };
  }
  let largest: { pn: string; bytes: number } | undefined;
  for (const [dir, bytes] of Object.entries(history.workdirPeaks)) {
    const pn = workdirPn(dir);
    if (!exclude.has(pn) && bytes > (largest?.bytes ?? 0)) largest = { pn, bytes };
  }
  if (largest)
    return {
      bytes: 2 * largest.bytes,
      measured: true,
      why: `rough: twice the largest recorded work-dir peak, ${largest.pn} ${formatBytes(largest.bytes)}, not counting what the step builds for it; \`rambake plan --predict --steps auto\` simulates the steps`,
    };
  return {
    bytes: 2 * KERNEL_STEP_BYTES,
    measured: false,
    why: `no work dir measured yet: twice a kernel build's ${formatBytes(KERNEL_STEP_BYTES)} (published)`,
  };
}

/** 1835008 → "1,835,008" (locale-free, so output is the same everywhere). */
function thousands(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}

function pct(margin: number): string {
  return `${Math.round((margin - 1) * 100)}%`;
}
