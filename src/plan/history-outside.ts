// On a disk shared with other files, a run's samples count the disk's used bytes: above the
// baseline that is TMPDIR's growth plus what the build wrote next to it on the same disk, the
// sstate archives (SSTATE_DIR) and the downloads (DL_DIR) of a default build dir. A tmpfs
// TMPDIR never holds those: on sato-like they were 80 of the 205 MiB the disk grew by. They
// are taken out of the samples: every file of those folders written during the run (its ctime
// within it) counts from then on, by its allocated blocks (what the disk's used bytes count),
// and so does every folder the run made there.

import { lstat, opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { writeFileAtomic } from '../system/atomic-write.js';
import { scanTree } from '../system/du.js';
import {
  findMount,
  isUnderMount,
  type MountEntry,
  readMountinfo,
  resolveExistingPath,
} from '../system/mounts.js';
import { readText } from '../system/read-file.js';
import { OwnUsage, type Written } from '../timeline/run-baseline.js';
import type { RecordedRun } from '../timeline/timeline-runs.js';
import { type Footprint, measureFootprint, type TaskSpan, type UsageSample } from './footprint.js';

/**
 * What appeared under `dir` within [from, to], by allocated bytes, into `out`. A file counts
 * from its ctime, not its mtime: wget and git give a download its server's date (an old mtime),
 * while the ctime is when it was written or renamed into place. A folder counts when it and all
 * it holds are new (sstate's two levels of hash folders: 4 KiB each on ext4, about 10 MiB of a
 * sato-like build's sstate that the files alone missed), from its first entry's time. Returns
 * whether `dir` itself was new, and that earliest time.
 */
async function writtenUnder(
  dir: string,
  from: number,
  to: number,
  out: Written[],
): Promise<{ isNew: boolean; earliest: number }> {
  const handle = await opendir(dir).catch(() => undefined);
  if (!handle) return { isNew: false, earliest: Number.POSITIVE_INFINITY };
  const inWindow = (t: number) => t >= from && t <= to;
  let allNew = true;
  let earliest = Number.POSITIVE_INFINITY;
  for await (const e of handle) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      const sub = await writtenUnder(p, from, to, out);
      allNew &&= sub.isNew;
      earliest = Math.min(earliest, sub.earliest);
      continue;
    }
    const st = await lstat(p).catch(() => undefined);
    if (st && inWindow(st.ctimeMs)) {
      if (e.isFile()) out.push({ t: st.ctimeMs, bytes: st.blocks * 512 });
      earliest = Math.min(earliest, st.ctimeMs);
    } else allNew = false;
  }
  const st = allNew ? await lstat(dir).catch(() => undefined) : undefined;
  if (!st || !inWindow(st.ctimeMs)) return { isNew: false, earliest };
  const t = Math.min(earliest, st.ctimeMs);
  out.push({ t, bytes: st.blocks * 512 });
  return { isNew: true, earliest: t };
}

/**
 * What the run wrote outside TMPDIR on the disk it sampled (`mountPoint`), oldest first: the
 * folders given that lie on that mount and not under TMPDIR. [] when none does.
 */
export async function writtenOutsideTmpdir(
  dirs: readonly string[],
  tmpdir: string,
  mountPoint: string,
  window: { from: number; to: number },
  mounts: readonly MountEntry[],
): Promise<Written[]> {
  const out: Written[] = [];
  for (const dir of new Set(dirs)) {
    const real = await resolveExistingPath(dir).catch(() => undefined);
    if (!real || isUnderMount(tmpdir, real) || mounts.length === 0) continue;
    if (findMount(mounts, real).mountPoint !== mountPoint) continue;
    await writtenUnder(real, window.from, window.to, out);
  }
  return out.sort((a, b) => a.t - b.t);
}

/** Pure: each sample less what had been written outside TMPDIR by then. */
export function withoutWritten(samples: readonly UsageSample[], written: readonly Written[]): UsageSample[] {
  const own = new OwnUsage(0, written);
  return [...samples].sort((a, b) => a.t - b.t).map((s) => ({ t: s.t, used: s.used - own.writtenBy(s.t) }));
}

/**
 * What TMPDIR holds now, when it is still a folder of the disk the run sampled (du's bytes);
 * undefined when it is gone or elsewhere.
 */
async function tmpdirNow(
  tmpdir: string,
  mountPoint: string,
  mounts: readonly MountEntry[],
): Promise<number | undefined> {
  const real = await resolveExistingPath(tmpdir).catch(() => undefined);
  if (!real || mounts.length === 0 || findMount(mounts, real).mountPoint !== mountPoint) return undefined;
  const scan = await scanTree(real, { groupDepth: 0 }).catch(() => undefined);
  return scan?.bytes;
}

/** How much of each sample of a recorded run is TMPDIR's own (run-baseline.ts): on a shared disk the walk below. */
export async function ownUsageOfRun(
  bd: Pick<BuildDir, 'paths' | 'topdir'>,
  run: RecordedRun,
): Promise<OwnUsage> {
  if (run.onTmpfs || !run.header) return new OwnUsage(run.baselineBytes);
  return new OwnUsage(run.baselineBytes, (await writtenOutside(bd, run)).written);
}

/** The footprint of a recorded run, from TMPDIR's own usage: baseline and writes outside it taken out. */
export async function recordedFootprint(
  bd: Pick<BuildDir, 'paths' | 'topdir'>,
  run: RecordedRun,
  spans: readonly TaskSpan[],
): Promise<Footprint> {
  if (run.onTmpfs || !run.header)
    return measureFootprint(run.samples, spans, { baselineBytes: run.baselineBytes });
  const { written, tmpdirBytes: now } = await writtenOutside(bd, run);
  const own = withoutWritten(run.samples, written);
  const f = measureFootprint(own, spans, {
    baselineBytes: run.baselineBytes,
    outsideBytes: written.reduce((sum, w) => sum + w.bytes, 0),
  });
  // Other writers on the disk (or a TMPDIR changed since) show as growth at the run's end that
  // TMPDIR does not hold: a measured figure of how far the samples are from TMPDIR's own bytes.
  const end = own.at(-1);
  if (now !== undefined && end) f.unexplainedBytes = end.used - run.baselineBytes - now;
  return f;
}

export interface Outside {
  written: Written[];
  /** TMPDIR's bytes when first measured after the run (undefined: gone or elsewhere). */
  tmpdirBytes?: number;
}

// 2: ctime and new folders (1 counted files by mtime).
const CACHE_VERSION = 2;

/**
 * What a run recorded on a shared disk wrote next to TMPDIR (nothing on a tmpfs of its own).
 * The walk of SSTATE_DIR, DL_DIR and TMPDIR is O(their files): done once per recorded run and
 * kept beside it (`<run>.jsonl.outside.json`, rambake's own folder), so `plan`, `steps` and
 * `--predict` after it cost nothing more. A run still being written (its file changed) is
 * measured again.
 */
export async function writtenOutside(
  bd: Pick<BuildDir, 'paths' | 'topdir'>,
  run: RecordedRun,
): Promise<Outside> {
  const header = run.header;
  if (run.onTmpfs || !header) return { written: [] };
  const cache = `${run.file}.outside.json`;
  const st = await stat(run.file).catch(() => undefined);
  const key = st ? `${st.size}:${st.mtimeMs}` : undefined;
  try {
    const v = JSON.parse((await readText(cache, 'index')) ?? '') as Outside & {
      version: number;
      key: string;
    };
    if (key !== undefined && v.version === CACHE_VERSION && v.key === key && Array.isArray(v.written))
      return { written: v.written, ...(v.tmpdirBytes === undefined ? {} : { tmpdirBytes: v.tmpdirBytes }) };
  } catch {
    // no cache yet, or unreadable: measure
  }
  const { tmpdir, tmpfs } = header;
  const mounts = await readMountinfo().catch(() => []);
  const written = await writtenOutsideTmpdir(
    // rambake's own timeline is written next to TMPDIR too.
    [bd.paths.sstateDir, bd.paths.dlDir, join(bd.topdir, 'rambake')],
    tmpdir,
    tmpfs.mountPoint,
    { from: run.startedAt, to: run.endedAt || Number.POSITIVE_INFINITY },
    mounts,
  );
  const tmpdirBytes = await tmpdirNow(tmpdir, tmpfs.mountPoint, mounts);
  const out: Outside = { written, ...(tmpdirBytes === undefined ? {} : { tmpdirBytes }) };
  if (key !== undefined)
    await writeFileAtomic(cache, `${JSON.stringify({ version: CACHE_VERSION, key, ...out })}\n`).catch(() => {
      // a read-only build dir: measured again next time
    });
  return out;
}
