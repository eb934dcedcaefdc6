// What `rambake revert` leaves behind, for its report: where the RAM builds' images, buildstats
// and logs are (the managed block moved them to rambake-keep/ so they outlive the tmpfs; after
// revert nothing writes there any more), and what BitBake does at the next build now that
// TMPDIR is back at its old place (bitbake-formats.md §3–5):
// - the tmpfs took the RAM builds' stamps, sstate-control, sysroots-components, work and parse
//   cache (`${TMPDIR}/cache`) with it; SSTATE_DIR, DL_DIR and the hash-equivalence database
//   (`${TOPDIR}/cache`) were on disk all along;
// - the old TMPDIR on disk is exactly what it was before apply: nothing wrote to it since;
// - TMPDIR and DEPLOY_DIR are not part of task signatures, so the sstate objects the RAM
//   builds wrote match the tasks of a build on disk.

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { keptPaths } from '../plan/conf-lines.js';
import type { PlanScope } from '../plan/sizing-types.js';
import { scanTree } from '../system/du.js';
import { readText } from '../system/read-file.js';

export interface KeptOutput {
  /**
   * images: DEPLOY_DIR/images; deploy: the rest of DEPLOY_DIR (packages, licenses, SDKs);
   * buildstats: BUILDSTATS_BASE; console-logs, event-logs: the cooker and event logs.
   */
  kind: 'images' | 'deploy' | 'buildstats' | 'console-logs' | 'event-logs';
  path: string;
  bytes: number;
  /** Machines (images), entries (deploy), builds (buildstats), files (logs). */
  count: number;
}

export interface NextBuild {
  /** The TMPDIR BitBake uses again. */
  tmpdir: string;
  /**
   * empty: no stamps (a fresh TMPDIR); before-apply: the stamps of a build from before apply;
   * moved: its saved_tmpdir names another path, so BitBake refuses it; stale-stamps: a
   * WORKDIR-only tmpfs took work/ but the stamps describing it stay.
   */
  state: 'empty' | 'before-apply' | 'moved' | 'stale-stamps';
  /** Stamp files under `${TMPDIR}/stamps`, and when the newest was written (ISO time). */
  stamps: number;
  newestStamp?: string;
  /** `manifest-*` files in `${TMPDIR}/sstate-control`. */
  manifests: number;
  text: string;
}

const entries = (dir: string) => fsp.readdir(dir).catch(() => undefined);
const size = async (path: string) =>
  (await scanTree(path, { workers: 0 }).catch(() => undefined))?.bytes ?? 0;

/** Files under `dir` (any depth) whose names match, e.g. the `.log` files of every machine. */
async function countFiles(dir: string, name: RegExp): Promise<number | undefined> {
  const found = await fsp.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => undefined);
  return found?.filter((e) => e.isFile() && name.test(e.name)).length;
}

/** Only what exists, with its size. */
export async function findKeptOutputs(topdir: string): Promise<KeptOutput[]> {
  const p = keptPaths(topdir);
  const out: KeptOutput[] = [];
  const machines = await entries(p.images);
  const imagesBytes = machines ? await size(p.images) : 0;
  if (machines) out.push({ kind: 'images', path: p.images, bytes: imagesBytes, count: machines.length });
  const rest = (await entries(p.deploy))?.filter((e) => e !== 'images');
  if (rest && rest.length > 0)
    out.push({
      kind: 'deploy',
      path: p.deploy,
      bytes: (await size(p.deploy)) - imagesBytes,
      count: rest.length,
    });
  const builds = await entries(p.buildstats);
  if (builds)
    out.push({
      kind: 'buildstats',
      path: p.buildstats,
      bytes: await size(p.buildstats),
      count: builds.length,
    });
  // console-latest.log is a symlink to the newest log: not a file of its own.
  const consoleLogs = await countFiles(p.consoleLogs, /\.log$/);
  if (consoleLogs !== undefined)
    out.push({
      kind: 'console-logs',
      path: p.consoleLogs,
      bytes: await size(p.consoleLogs),
      count: consoleLogs,
    });
  const eventLogs = await countFiles(p.eventLogs, /\.json$/);
  if (eventLogs !== undefined)
    out.push({ kind: 'event-logs', path: p.eventLogs, bytes: await size(p.eventLogs), count: eventLogs });
  return out;
}

/** Stamp files under `dir` and the newest one's time. */
async function readStamps(dir: string): Promise<{ count: number; newest?: number }> {
  const found = await fsp.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  let count = 0;
  let newest: number | undefined;
  for (const e of found) {
    if (!e.isFile()) continue;
    count++;
    const st = await fsp.stat(join(e.parentPath, e.name)).catch(() => undefined);
    if (st && (newest === undefined || st.mtimeMs > newest)) newest = st.mtimeMs;
  }
  return newest === undefined ? { count } : { count, newest };
}

export interface AfterRevert {
  scope: PlanScope;
  /** TMPDIR before apply (from apply's state file). */
  tmpdir: string;
  /** Where the tmpfs was mounted. */
  mountPath: string;
}

const counted = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** What the old TMPDIR holds now, and so what BitBake does with it at the next build. */
export async function predictNextBuild(a: AfterRevert): Promise<NextBuild> {
  const { tmpdir } = a;
  const stamps = await readStamps(join(tmpdir, 'stamps'));
  const manifests = ((await entries(join(tmpdir, 'sstate-control'))) ?? []).filter((e) =>
    e.startsWith('manifest-'),
  ).length;
  // Bounded and non-blocking (the old TMPDIR is the user's: a FIFO there must not hang revert).
  const saved = (await readText(join(tmpdir, 'saved_tmpdir'), 'state').catch(() => undefined))?.trim();
  const base = {
    tmpdir,
    stamps: stamps.count,
    ...(stamps.newest === undefined ? {} : { newestStamp: new Date(stamps.newest).toISOString() }),
    manifests,
  };
  if (saved && saved !== tmpdir) {
    return {
      ...base,
      state: 'moved',
      text: `the next build stops at once: ${join(tmpdir, 'saved_tmpdir')} names ${saved}, and BitBake says "Error, TMPDIR has changed location". Move that folder back to ${saved}, or delete it: with the RAM builds' objects in SSTATE_DIR a fresh TMPDIR is restored from sstate, not rebuilt`,
    };
  }
  if (a.scope === 'workdir') {
    return {
      ...base,
      state: 'stale-stamps',
      text: `TMPDIR ${tmpdir} stayed on disk with its ${counted(stamps.count, 'stamp')} and ${counted(manifests, 'sstate-control manifest')}, but the work directories were on the tmpfs (${a.mountPath}) and go with it: BitBake trusts a stamp whether or not its work directory exists, so tasks whose output is gone would not run again (recipes not cleaned by rm_work, RM_WORK_EXCLUDE ones). Delete ${join(tmpdir, 'stamps')} before the next build: setscene tasks then restore from SSTATE_DIR what the build needs`,
    };
  }
  if (stamps.count === 0) {
    const cache = (await entries(join(tmpdir, 'cache'))) !== undefined;
    return {
      ...base,
      state: 'empty',
      text: `TMPDIR is ${tmpdir} again and holds no stamps: the RAM builds' stamps, sstate-control and parse cache went with the tmpfs. The next build ${cache ? 'reads the parse cache left there (re-parsing what changed since)' : 'parses every recipe again'}, then restores each task that has an object in SSTATE_DIR with its setscene task instead of running it (the RAM builds wrote their objects there, and TMPDIR is not in task signatures, so they match); only tasks without an object run, such as do_rm_work, which cleans what setscene put back into each work dir. Images are restored into ${join(tmpdir, 'deploy')} when you build them again`,
    };
  }
  const when =
    stamps.newest === undefined
      ? ''
      : `, the newest from ${new Date(stamps.newest).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return {
    ...base,
    state: 'before-apply',
    text: `TMPDIR is ${tmpdir} again, as it was before apply: ${counted(stamps.count, 'stamp')}${when}, ${counted(manifests, 'sstate-control manifest')}. The next build trusts those stamps: a task whose signature has not changed since does not run again; a task that changed since (the RAM builds ran it) is restored from SSTATE_DIR by its setscene task, which first removes the older output through sstate-control's manifests; only tasks without an object run (such as do_rm_work). ${join(tmpdir, 'deploy')} holds that older build's output until then`,
  };
}
