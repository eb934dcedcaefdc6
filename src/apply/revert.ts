// `rambake revert`: undo what apply did, as recorded in the state file. The managed block is cut
// out exactly (edits the user made elsewhere in the file stay); the tmpfs is unmounted only when
// nothing holds it; no data is ever deleted: a TMPDIR left on disk is reported, not removed.

import { existsSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { UnsafeMountError } from '../errors.js';
import { findBlock, markerProblem, removeBlock, unifiedDiff } from '../plan/managed-block.js';
import { umountArgv } from '../plan/mount-commands.js';
import { waitForLockRelease } from '../system/bitbake-lock.js';
import { scanTree } from '../system/du.js';
import { readMountinfo } from '../system/mounts.js';
import { readText } from '../system/read-file.js';
import { findHolders, type Holder, unmountTmpfs } from '../system/tmpfs.js';
import { renderShellCommand } from '../text/shell.js';
import {
  acquireLock,
  BACKUP_SUFFIX,
  CONF_LOCK_WAIT_MS,
  readApplyState,
  removeApplyState,
  removeFileDurably,
  statePath,
  writeApplyState,
  writeFileAtomic,
} from './conf-write.js';
import { removeKilledTemps } from './killed-temps.js';
import { findKeptOutputs, type KeptOutput, type NextBuild, predictNextBuild } from './revert-aftermath.js';
import { checkRecordedState, ourMount, plannedDefaultPath, removableFolder } from './revert-trust.js';

export const REVERT_SCHEMA_VERSION = 1;

export interface RevertOptions {
  /** Remove a hand-edited block anyway. */
  force?: boolean;
  isRoot?: boolean;
}

export interface RevertReport {
  schemaVersion: number;
  /** A state file from apply was found (without it only conf blocks are looked for). */
  hadState: boolean;
  conf?: {
    file: string;
    changed: boolean;
    /** rambake had created the file and nothing else was left in it. */
    deleted: boolean;
    diff: string;
    /** The backup, when kept (it differs from the reverted file). */
    backupKept?: string;
  };
  mount?: {
    path: string;
    source: string;
    status: 'unmounted' | 'not-mounted' | 'commands';
    commands: string[];
    folderRemoved: boolean;
  };
  /** The TMPDIR from before apply, still on disk: its size, for the user to decide. */
  leftOnDisk?: { path: string; bytes: number };
  /** What the RAM builds left in rambake-keep/ (images, buildstats, logs): only what exists. */
  kept: KeptOutput[];
  /** What BitBake does at the next build with TMPDIR back at its old place (needs apply's state). */
  nextBuild?: NextBuild;
  notes: string[];
}

const CONF_NAMES = ['auto.conf', 'local.conf', 'site.conf'];

/**
 * The file holding the block: the one the state names, else the first conf file with a block.
 * A conf file that is a link is edited through it, as apply does (chooseConfFile): the file
 * it points at, since renaming the new text over the link would replace the link with a plain
 * file and leave the block in its target.
 */
async function findBlockFile(topdir: string, recorded: string | undefined): Promise<string | undefined> {
  if (recorded !== undefined) return recorded;
  for (const name of CONF_NAMES) {
    const file = join(topdir, 'conf', name);
    const text = await readText(file, 'conf', 'latin1');
    // A block whose markers were damaged by hand is found too, so that removeBlock refuses it.
    if (text !== undefined && (findBlock(text) || markerProblem(text)))
      return fsp.realpath(file).catch(() => file);
  }
  return undefined;
}

export async function revertApply(topdir: string, opts: RevertOptions = {}): Promise<RevertReport> {
  // apply's lock, taken before anything is read: an apply running now finishes first, and the
  // state and conf read here are the ones it left.
  const lock = await acquireLock(join(topdir, 'conf'), { timeoutMs: CONF_LOCK_WAIT_MS });
  try {
    return await revertLocked(topdir, opts);
  } finally {
    await lock.release();
  }
}

async function revertLocked(topdir: string, opts: RevertOptions): Promise<RevertReport> {
  const isRoot = opts.isRoot ?? process.getuid?.() === 0;
  const state = await readApplyState(topdir);
  const realTopdir = await fsp.realpath(topdir);
  const notes: string[] = [];
  const report: RevertReport = {
    schemaVersion: REVERT_SCHEMA_VERSION,
    hadState: state !== undefined,
    kept: [],
    notes,
  };

  // Every refusal happens before anything changes.
  const file = await findBlockFile(topdir, state?.conf?.file);
  await removeKilledTemps(topdir, file);
  const before = file === undefined ? undefined : await readText(file, 'conf', 'latin1');
  // state.json names the file: rambake wrote a block there, so a lone marker is damage, not text.
  const expectBlock = state?.conf !== undefined;
  const edit =
    before === undefined ? undefined : removeBlock(before, { force: opts.force === true, expectBlock });
  // state.json lives in the user-writable build dir: only this build's tmpfs is ever unmounted.
  if (state) await checkRecordedState(topdir, state, statePath(topdir));
  const mountPath = state?.mount
    ? await fsp.realpath(state.mount.path).catch(() => state.mount!.path)
    : undefined;
  const entry =
    mountPath === undefined
      ? undefined
      : ourMount(topdir, await readMountinfo(), mountPath, statePath(topdir), realTopdir);
  const mounted = entry !== undefined;
  if (mounted && isRoot) await assertUnused(topdir, mountPath!);

  if (file !== undefined && before !== undefined && edit) {
    const cut = edit;
    // A file apply created holds nothing but the block: it goes, never stays empty.
    const deleted = cut.text === '' && state?.conf?.existed === false;
    if (deleted) await removeFileDurably(file);
    else if (cut.changed) await writeFileAtomic(file, Buffer.from(cut.text, 'latin1'));
    report.conf = {
      file,
      changed: cut.changed || deleted,
      deleted,
      diff: Buffer.from(
        unifiedDiff(before, deleted ? '' : cut.text, file, deleted ? '/dev/null' : file),
        'latin1',
      ).toString('utf8'),
    };
    const backup = await settleBackup(file, deleted ? undefined : cut.text);
    if (backup) {
      report.conf.backupKept = backup;
      notes.push(`kept ${backup}: it differs from the reverted file (your edits since apply)`);
    }
    if (state?.conf) {
      delete state.conf;
      await writeApplyState(state);
    }
  }

  if (state?.mount) {
    const spec = state.mount;
    const status = !mounted ? 'not-mounted' : isRoot ? 'unmounted' : 'commands';
    const commands = status === 'commands' ? [renderShellCommand(['sudo', ...umountArgv(mountPath!)])] : [];
    if (status === 'unmounted') {
      // The path verified in mountinfo, not the recorded one (a link there could point elsewhere).
      await unmountTmpfs(mountPath!, umountArgv(mountPath!));
      notes.push(`the tmpfs at ${spec.path} is gone, and with it everything the builds left there`);
    }
    let folderRemoved = false;
    if (status !== 'commands' && spec.createdFolder) {
      const folder = await removableFolder(spec.path, realTopdir, mounted ? entry.mountPoint : undefined);
      if (folder === undefined) {
        if (existsSync(spec.path))
          notes.push(
            `${spec.path}: not removed: it is neither where this build's tmpfs was mounted nor ${plannedDefaultPath(realTopdir)}`,
          );
      } else {
        folderRemoved = await fsp.rmdir(folder).then(
          () => true,
          () => false,
        );
        if (!folderRemoved && existsSync(folder)) notes.push(`${folder} is not empty: left in place`);
      }
    }
    report.mount = { path: spec.path, source: spec.source, status, commands, folderRemoved };
  }
  if (state && report.mount?.status !== 'commands') await removeApplyState(topdir);
  else if (!state) {
    notes.push('no state file from rambake apply: only the conf block was looked for');
    // An apply killed before its first state write (or a revert before its last step) leaves
    // rambake's folder empty: it goes, as it would have.
    await fsp.rmdir(join(topdir, 'rambake')).catch(() => undefined);
  }

  const previous = state?.previousTmpdir;
  if (previous !== undefined && previous !== state?.mount?.path && existsSync(previous)) {
    const scan = await scanTree(previous, { workers: 0 }).catch(() => undefined);
    report.leftOnDisk = { path: previous, bytes: scan?.bytes ?? 0 };
  }
  report.kept = await findKeptOutputs(topdir);
  // A tmpfs still mounted on the old TMPDIR's own path (not root: unmount commands printed)
  // hides that folder: it can be judged once unmounted.
  const hidden = report.mount?.status === 'commands' && previous === state?.mount?.path;
  if (state?.mount && previous !== undefined && !hidden)
    report.nextBuild = await predictNextBuild({
      scope: state.scope,
      tmpdir: previous,
      mountPath: state.mount.path,
    });
  return report;
}

/** How long revert waits for a BitBake server that is shutting down to let go of bitbake.lock. */
const LOCK_WAIT_MS = 5_000;

/** A build that holds the tmpfs must not lose it: bitbake.lock, or any process using a file there. */
export async function assertUnused(topdir: string, path: string): Promise<void> {
  const lock = join(topdir, 'bitbake.lock');
  // Held, not present: a stale file (dead PID, no lock) never blocks, and a server that is only
  // shutting down after a command (it keeps the lock 1–2 s) is waited out.
  const state = await waitForLockRelease(topdir, LOCK_WAIT_MS);
  if (state.state === 'held') {
    throw new UnsafeMountError(`a build is running (${lock} ${state.detail}): not unmounting ${path}`, {
      hint: 'wait for it to finish, then run rambake revert again',
    });
  }
  const holders = await waitOutPseudo(path, await findHolders(path));
  if (holders.length > 0) {
    const who = holders.map((h) => `${h.pid} (${h.command}: ${h.what})`).join(', ');
    throw new UnsafeMountError(`processes use ${path}: ${who}`, {
      hint: 'stop them, then run rambake revert again',
    });
  }
}

/** How long revert waits for pseudo's servers to leave the tmpfs on their own. */
const PSEUDO_WAIT_MS = 90_000;

/**
 * The fakeroot server (pseudo) outlives a build until its idle timeout, its working folder in
 * the tmpfs: right after a build it is the usual holder, and it leaves by itself. When pseudo
 * servers are the only holders, wait for them (bounded) instead of refusing; anything else
 * holding the tmpfs is refused at once.
 */
async function waitOutPseudo(path: string, holders: Holder[]): Promise<Holder[]> {
  const deadline = Date.now() + PSEUDO_WAIT_MS;
  let now = holders;
  while (now.length > 0 && now.every((h) => h.command === 'pseudo') && Date.now() < deadline) {
    await sleep(500);
    now = await findHolders(path);
  }
  return now;
}

/** Drops `<file>.rambake-bak` when the reverted file equals it; else keeps it and says so. */
async function settleBackup(file: string, reverted: string | undefined): Promise<string | undefined> {
  const backup = file + BACKUP_SUFFIX;
  const saved = await readText(backup, 'conf', 'latin1');
  if (saved === undefined) return undefined;
  if (reverted !== undefined && saved === reverted) {
    await removeFileDurably(backup);
    return undefined;
  }
  return backup;
}
