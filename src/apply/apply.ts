// `rambake apply`: put the plan into effect. Mount the tmpfs (root) or say exactly how (others),
// then write the managed block into one conf file; record both in the state file so that
// `rambake revert` undoes exactly that. Conf text is handled as latin1 so every byte survives.

import { existsSync, promises as fsp, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { findBuildDirOf } from '../bitbake/builddir.js';
import type { BuildDir, LoadOptions } from '../bitbake/builddir-types.js';
import { RefusedError, UnsafeEditError, UnsafeMountError, UsageError } from '../errors.js';
import { checkBlockLines, renderKasSnippet, unifiedDiff } from '../plan/managed-block.js';
import {
  type MountSpec,
  mountArgv,
  mountUnitName,
  readTemplate,
  renderFstabLine,
  renderMountUnit,
  sudoCommands,
  umountArgv,
} from '../plan/mount-commands.js';
import { loadBuildDirForPlan, planFor } from '../plan/sizing.js';
import type { PlanOptions, PlanScope, RamPlan } from '../plan/sizing-types.js';
import { scanTree } from '../system/du.js';
import { readHostFacts } from '../system/host-facts.js';
import { readMountinfo } from '../system/mounts.js';
import { checkMountPoint, mountAt, mountTmpfs, unmountTmpfs } from '../system/tmpfs.js';
import { formatBytes } from '../text/format.js';
import { renderShellCommand } from '../text/shell.js';
import { confirmWithBitbake, type SettledBlock, settleBlock } from './block-verify.js';
import {
  type ApplyState,
  acquireLock,
  BACKUP_SUFFIX,
  type BlockWrite,
  type BlockWriteOptions,
  CONF_LOCK_WAIT_MS,
  commitBlockWrite,
  readApplyState,
  removeApplyState,
  removeFileDurably,
  STATE_SCHEMA_VERSION,
  writeApplyState,
  writeFileAtomic,
} from './conf-write.js';
import { removeKilledTemps } from './killed-temps.js';

export const APPLY_SCHEMA_VERSION = 1;
export type ConfChoice = 'auto' | 'local' | 'site' | 'kas';

/** The parts of a RamPlan that apply uses. */
export type ApplyPlan = Pick<RamPlan, 'tmpfs' | 'conf' | 'mount'>;

export interface ApplyOptions {
  conf?: ConfChoice;
  dryRun?: boolean;
  force?: boolean;
  /** Where to write the systemd .mount unit: a folder, or a file with the unit's own name. */
  unitFile?: string;
  /** Default: the process runs as root. */
  isRoot?: boolean;
  /** A tmpfs larger than RAM + swap − the compilers' reserve (never implied by --force). */
  allowOversizedTmpfs?: boolean;
  /** false (`--no-bitbake`): do not confirm the block with `bitbake -e`. */
  bitbake?: boolean;
  /** The environment BitBake and the conf reader see (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** The caller (runApply) already holds the conf folder's lock. */
  lockHeld?: boolean;
}

export interface ApplyReport {
  schemaVersion: number;
  dryRun: boolean;
  scope: PlanScope;
  conf: {
    choice: ConfChoice;
    file?: string;
    /** The file did not exist and apply makes it. */
    creates: boolean;
    changed: boolean;
    backup?: string;
    /** Unified diff of the conf file (empty when unchanged). */
    diff: string;
    /** `--conf kas`: the local_conf_header entry to paste instead. */
    kas?: string;
  };
  mount: {
    path: string;
    source: string;
    options: string[];
    /** mounted: done now; already: our tmpfs was there; commands: run them yourself; planned: dry run. */
    status: 'mounted' | 'already' | 'commands' | 'planned';
    commands: string[];
    fstab: string;
    unitFile?: { path: string; name: string; text: string; written: boolean };
    createdFolder: boolean;
  };
  /** Whether the block takes effect, as rambake evaluates the conf files and as BitBake says. */
  effect: {
    /** Lines rewritten to win over later assignments: [planned, written]. */
    forced: Array<{ planned: string; written: string }>;
    /** Each variable of the block: the value it will have. */
    vars: Array<{ name: string; value: string | undefined; ok: boolean }>;
    /** confirmed: `bitbake -e` shows the block's values; otherwise why BitBake was not asked. */
    bitbake: { confirmed: true; seconds: number } | { confirmed: false; reason: string };
  };
  workdirCosts?: WorkdirCosts;
  statePath?: string;
  notes: string[];
}

export interface WorkdirCosts {
  componentsDir: string;
  componentsBytes?: number;
  stampsDir: string;
  text: string[];
}

const fromLatin1 = (s: string) => Buffer.from(s, 'latin1').toString('utf8');

/** The conf file the block goes into; site.conf shared by bitbake-setup builds is refused. */
export async function chooseConfFile(bd: BuildDir, choice: Exclude<ConfChoice, 'kas'>): Promise<string> {
  const confDir = join(bd.topdir, 'conf');
  if (choice === 'site') {
    const site = join(confDir, 'site.conf');
    const link = await fsp.lstat(site).catch(() => undefined);
    if (bd.sharedSiteConf !== undefined || link?.isSymbolicLink()) {
      throw new UnsafeEditError(
        `${site} is a symlink to a site.conf shared by other builds: not writing there`,
        {
          hint: 'use --conf auto (conf/auto.conf belongs to this build only)',
        },
      );
    }
    return site;
  }
  const file =
    choice === 'local' ? (bd.confFiles.local ?? join(confDir, 'local.conf')) : join(confDir, 'auto.conf');
  // Renaming over a symlink would replace it with a file: write to what it points at.
  return fsp.realpath(file).catch(() => file);
}

/**
 * Loads the build once, plans it (sizing.ts's model, gathered as makePlan does) and applies.
 * A plan that does not fit is refused as `plan` refuses it (exit 1), unless the user chose the
 * size (--size) or passed --force: then the verdict comes back as a note.
 */
export async function runApply(
  load: LoadOptions,
  planOpts: PlanOptions,
  opts: ApplyOptions,
): Promise<ApplyReport & { verdict: RamPlan['verdict'] }> {
  // apply's lock, taken before anything is read (conf files, state.json, history): a second
  // apply or a revert waits, then plans from what this one left.
  const { topdir } = findBuildDirOf(load);
  const writes = opts.dryRun !== true && opts.conf !== 'kas';
  const lock = writes ? await acquireLock(join(topdir, 'conf'), { timeoutMs: CONF_LOCK_WAIT_MS }) : undefined;
  try {
    return await planAndApply(load, planOpts, { ...opts, lockHeld: lock !== undefined });
  } finally {
    await lock?.release();
  }
}

async function planAndApply(
  load: LoadOptions,
  planOpts: PlanOptions,
  opts: ApplyOptions,
): Promise<ApplyReport & { verdict: RamPlan['verdict'] }> {
  const bd = await loadBuildDirForPlan(load);
  const plan = await planFor(bd, planOpts, load.cwd);
  // The same verdict that makes `plan` exit 1 stops apply, unless the user chose the size.
  if (!plan.verdict.fits && !opts.force && planOpts.size === undefined && !opts.dryRun) {
    throw new RefusedError(`the plan does not fit: ${plan.verdict.text}`, {
      hint: 'see `rambake plan` (build in steps with `rambake run --steps auto`, or keep the giants on disk); --size SIZE or --force applies anyway',
    });
  }
  // A tmpfs that can outgrow memory takes the machine down with it (OOM) before BitBake's disk
  // monitor sees it full: --force does not cover that.
  const host = await readHostFacts();
  const limit = host.memTotal + host.swapTotal - plan.reserve.bytes;
  if (plan.tmpfs.size > limit && !opts.allowOversizedTmpfs && !opts.dryRun) {
    throw new RefusedError(
      `a ${formatBytes(plan.tmpfs.size)} tmpfs is more than this machine can hold: RAM ${formatBytes(host.memTotal)} + swap ${formatBytes(host.swapTotal)} − ${formatBytes(plan.reserve.bytes)} for ${plan.reserve.jobs} compile jobs = ${formatBytes(limit)}`,
      { hint: 'choose a smaller --size, add swap, or pass --allow-oversized-tmpfs if you really mean it' },
    );
  }
  const report = await applyPlan(bd, plan, { ...opts, ...(load.env ? { env: load.env } : {}) });
  if (!plan.verdict.fits) report.notes.push(`the plan says: ${plan.verdict.text}`);
  return { ...report, verdict: plan.verdict };
}

export async function applyPlan(
  bd: BuildDir,
  plan: ApplyPlan,
  opts: ApplyOptions = {},
): Promise<ApplyReport> {
  const choice = opts.conf ?? 'auto';
  const dryRun = opts.dryRun === true;
  const isRoot = opts.isRoot ?? process.getuid?.() === 0;
  const env = opts.env ?? process.env;
  const notes: string[] = [];
  if (bd.buildRunning && !dryRun) {
    throw new UnsafeEditError(
      `a build is running (${join(bd.topdir, 'bitbake.lock')}): not changing its setup`,
      {
        hint: 'wait for the build to finish, or use --dry-run',
      },
    );
  }
  const spec: MountSpec = { source: plan.mount.source, path: plan.tmpfs.path, options: plan.mount.options };
  const argv = mountArgv(spec);
  const confFile = choice === 'kas' ? undefined : await chooseConfFile(bd, choice);
  checkBlockLines(plan.conf);
  // Taken before anything is read (runApply takes it before planning), so two applies cannot
  // both plan from the same old state. The build's own conf folder, whatever the block's file
  // links to: revert takes the same one.
  const lock =
    confFile === undefined || dryRun || opts.lockHeld
      ? undefined
      : await acquireLock(join(bd.topdir, 'conf'), { timeoutMs: CONF_LOCK_WAIT_MS });
  try {
    if (lock || opts.lockHeld) await removeKilledTemps(bd.topdir, confFile);
    const previous = await readApplyState(bd.topdir);
    if (previous?.conf && confFile !== undefined && previous.conf.file !== confFile) {
      throw new UsageError(
        `rambake's block is already in ${previous.conf.file}`,
        'run rambake revert first to move it to another conf file',
      );
    }
    const blockWrite: BlockWriteOptions = {
      ...(opts.force === undefined ? {} : { force: opts.force }),
      // A lone marker in the file state.json names is our block, damaged by hand.
      expectBlock: previous?.conf?.file === confFile,
    };
    const settled =
      confFile === undefined ? undefined : await settleBlock(bd, confFile, plan.conf, { ...blockWrite, env });
    const planned = settled?.planned;
    const mounted = mountAt(await readMountinfo(), plan.tmpfs.path);
    const ours = mounted?.fstype === 'tmpfs' && mounted.source === plan.mount.source;
    const folderExists = existsSync(plan.tmpfs.path);
    const unit = opts.unitFile === undefined ? undefined : unitFileFor(opts.unitFile, spec);

    const report: ApplyReport = {
      schemaVersion: APPLY_SCHEMA_VERSION,
      dryRun,
      scope: plan.tmpfs.scope,
      conf: {
        choice,
        ...(confFile === undefined ? {} : { file: confFile }),
        creates: planned !== undefined && planned.before === undefined,
        changed: planned?.changed ?? false,
        diff: planned ? fromLatin1(unifiedDiff(planned.before, planned.after, confFile!, confFile!)) : '',
        ...(choice === 'kas' ? { kas: renderKasSnippet(plan.conf) } : {}),
      },
      mount: {
        path: plan.tmpfs.path,
        source: plan.mount.source,
        options: [...plan.mount.options],
        status: ours ? 'already' : dryRun ? 'planned' : isRoot ? 'mounted' : 'commands',
        commands: ours ? [] : isRoot ? [renderShellCommand(argv)] : sudoCommands(spec, folderExists),
        fstab: renderFstabLine(readTemplate('fstab.line'), spec),
        ...(unit ? { unitFile: { ...unit, written: false } } : {}),
        createdFolder: false,
      },
      effect: {
        forced: (settled?.forced ?? []).map(([p, w]) => ({ planned: p, written: w })),
        vars: (settled?.effects ?? [])
          .filter((e) => e.kind !== 'per-recipe')
          .map((e) => ({ name: e.name, value: e.actual, ok: e.ok })),
        bitbake: { confirmed: false, reason: dryRun ? 'dry run' : 'not asked yet' },
      },
      notes,
    };
    for (const [from, to] of settled?.forced ?? [])
      notes.push(`"${from}" would lose to a later assignment: written as "${to}"`);
    if (plan.tmpfs.scope === 'workdir') {
      report.workdirCosts = await workdirCosts(bd);
      const left = ours ? [] : await fsp.readdir(plan.tmpfs.path).catch(() => [] as string[]);
      if (left.length > 0) {
        const text = `${plan.tmpfs.path} holds ${left.length} work dirs: the tmpfs can only go on an empty one`;
        const hint = `work dirs and their stamps go together: remove ${plan.tmpfs.path} and ${bd.paths.stampsDir} (bitbake will rebuild from sstate), then apply again`;
        if (!dryRun) throw new UnsafeMountError(text, { hint });
        notes.push(`${text}; ${hint}`);
      }
    }
    if (dryRun) {
      // Say now what the real run would refuse.
      if (!ours)
        await checkMountPoint(plan.tmpfs.path, await readMountinfo()).catch((e: Error) =>
          notes.push(e.message),
        );
      return report;
    }

    const state: ApplyState = previous ?? {
      schemaVersion: STATE_SCHEMA_VERSION,
      topdir: bd.topdir,
      scope: plan.tmpfs.scope,
      previousTmpdir: bd.paths.tmpdir,
    };
    // Each change is recorded in state.json before it is made, so that a kill -9 at any point
    // leaves a state file naming everything done (and perhaps one thing not yet done, which
    // revert finds absent and passes over): the mount, then the conf write.
    let mountedNow = false;
    if (isRoot && !ours) {
      // A folder an earlier, killed apply made is still rambake's to remove.
      const earlier = previous?.mount?.path === plan.tmpfs.path && previous.mount.createdFolder;
      state.mount = {
        path: plan.tmpfs.path,
        source: plan.mount.source,
        createdFolder: earlier === true || !folderExists,
      };
      report.statePath = await writeApplyState(state);
      const result = await mountTmpfs({
        ...spec,
        argv,
        sizeBytes: plan.tmpfs.size,
        nrInodes: plan.tmpfs.nrInodes,
      }).catch(async (err: unknown) => {
        if (previous) await writeApplyState(previous);
        else await removeApplyState(bd.topdir);
        throw err;
      });
      mountedNow = true;
      state.mount = {
        path: result.path,
        source: result.source,
        createdFolder: earlier === true || result.createdFolder,
      };
      report.mount.createdFolder = state.mount.createdFolder;
    } else if (!isRoot && !ours) {
      notes.push('not root: run the commands above (or install the fstab line or unit) before building');
    }
    // Mounted by the user with our commands (or by an earlier apply): revert still handles it,
    // but never removes a folder it did not make.
    state.mount ??= { path: plan.tmpfs.path, source: plan.mount.source, createdFolder: false };
    if (planned && !state.conf) {
      state.conf = {
        file: planned.file,
        // A block already there without a state file: someone else's copy; never delete the file.
        existed: planned.before !== undefined,
        ...(planned.before === undefined ? {} : { backup: planned.file + BACKUP_SUFFIX }),
      };
    }
    let write: BlockWrite | undefined;
    if (planned?.changed && settled) {
      report.statePath = await writeApplyState(state);
      write = await commitBlockWrite(planned.file, settled.lines, blockWrite);
      if (write.backup) report.conf.backup = write.backup;
    }
    if (settled) {
      const verdict = await bitbakeVerdict(bd, settled, env, {
        ask: opts.bitbake !== false,
        mounted: ours || mountedNow,
      });
      report.effect.bitbake = verdict.bitbake;
      if (verdict.refuse) {
        // Put everything back as it was: the conf bytes, the backup and state this apply made,
        // and the mount it made.
        if (write) await undoWrite(write);
        if (mountedNow) {
          await unmountTmpfs(spec.path, umountArgv(spec.path));
          if (state.mount.createdFolder) await fsp.rmdir(spec.path).catch(() => undefined);
        }
        // Last: until everything above is undone, the state file still names it for revert.
        if (previous) await writeApplyState(previous);
        else await removeApplyState(bd.topdir);
        throw new RefusedError(`${verdict.refuse}: ${planned!.file} restored, nothing changed`, {
          hint: verdict.hint,
        });
      }
    }
    if (unit) {
      await writeFileAtomic(unit.path, unit.text, { mode: 0o644 });
      report.mount.unitFile = { ...unit, written: true };
    }
    report.statePath = await writeApplyState(state);
    return report;
  } finally {
    await lock?.release();
  }
}

/**
 * Asks BitBake only when its answer cannot disturb the setup: BitBake writes into TMPDIR
 * (hosttools, logs), so not before the tmpfs is mounted there. When BitBake is on PATH and was
 * asked, apply succeeds only on its word: `refuse` is set when it uses other values than the
 * block's, or when `bitbake -e` fails (a broken conf or environment: the build would fail too,
 * and nothing says the block took effect). No bitbake on PATH, or --no-bitbake: rambake's own
 * reading stands, and the report says BitBake did not confirm it.
 */
async function bitbakeVerdict(
  bd: BuildDir,
  settled: SettledBlock,
  env: NodeJS.ProcessEnv,
  opts: { ask: boolean; mounted: boolean },
): Promise<{ bitbake: ApplyReport['effect']['bitbake']; refuse?: string; hint?: string }> {
  if (!opts.ask) return { bitbake: { confirmed: false, reason: '--no-bitbake' } };
  const setsTmpdir = settled.lines.some((l) => /^TMPDIR[\s:]/.test(l));
  if (setsTmpdir && !opts.mounted)
    return {
      bitbake: {
        confirmed: false,
        reason:
          'the tmpfs is not mounted yet (BitBake would write into its folder): run `rambake doctor` once it is',
      },
    };
  const check = await confirmWithBitbake(bd, settled, env);
  if (!check.asked) return { bitbake: { confirmed: false, reason: check.reason } };
  if (check.ok) return { bitbake: { confirmed: true, seconds: check.seconds } };
  const bitbake = { confirmed: false as const, reason: check.reason };
  if (!check.failed)
    return {
      bitbake,
      refuse: check.reason,
      hint: 'change the line named, or (when none is) run `bitbake -e | less` and search for the variable to see who sets it last; then apply again',
    };
  // The same failure before the write: the block did not cause it.
  const before = bd.notes.some((n) => n.startsWith('bitbake -e failed'))
    ? ' (it failed before the block was written too)'
    : '';
  return {
    bitbake,
    refuse: `BitBake could not confirm the block: ${check.reason}${before}`,
    hint: `run \`bitbake -e\` in ${bd.topdir} and fix what it reports, then apply again; or apply with --no-bitbake to go on rambake's reading alone`,
  };
}

/**
 * Undoes the conf write of a refused apply: the file's bytes from before (or no file, if apply
 * created it) and the backup this write made (an earlier apply's stays).
 */
async function undoWrite(write: BlockWrite): Promise<void> {
  if (!write.changed) return;
  if (write.before === undefined) await removeFileDurably(write.file);
  else await writeFileAtomic(write.file, Buffer.from(write.before, 'latin1'));
  if (write.backupMade && write.backup) await removeFileDurably(write.backup);
}

/** `--unit-file DIR` or `--unit-file DIR/<escaped>.mount`: systemd needs that exact name. */
export function unitFileFor(target: string, spec: MountSpec): { path: string; name: string; text: string } {
  const name = mountUnitName(spec.path);
  const isDir = target.endsWith('/') || (statSync(target, { throwIfNoEntry: false })?.isDirectory() ?? false);
  const path = isDir ? join(target, name) : target;
  if (basename(path) !== name) {
    throw new UsageError(
      `--unit-file ${target}: systemd needs the unit for ${spec.path} to be named ${name}`,
    );
  }
  return { path, name, text: renderMountUnit(readTemplate('rambake-tmpfs.mount'), spec) };
}

/** What a WORKDIR-only tmpfs costs: sysroot hardlinks become copies; stamps stay on disk. */
export async function workdirCosts(bd: BuildDir): Promise<WorkdirCosts> {
  const componentsDir = bd.paths.componentsDir;
  const components = existsSync(componentsDir)
    ? await scanTree(componentsDir, { workers: 0 }).catch(() => undefined)
    : undefined;
  const size = components ? `${(components.bytes / 2 ** 30).toFixed(1)} GiB` : 'unknown (not built yet)';
  return {
    componentsDir,
    ...(components ? { componentsBytes: components.bytes } : {}),
    stampsDir: bd.paths.stampsDir,
    text: [
      `recipe sysroots can no longer hardlink from ${componentsDir} (another file system): each becomes a copy; sysroots-components holds ${size} today, and every target recipe copies its share of it`,
      `stamps stay on disk in ${bd.paths.stampsDir}: when the tmpfs is gone (reboot, unmount), delete the stamps too, or BitBake trusts stamps of work directories that no longer exist`,
    ],
  };
}
