// The lines of rambake's managed conf block (without its markers). Each rule follows a
// BitBake fact (bitbake-formats.md §2-7):
// - TMPDIR with a plain `=`: bitbake.conf sets it with `?=` before local.conf is read, so a
//   later `?=` does nothing;
// - rm_work through `INHERIT +=` (`inherit` is not valid in a .conf);
// - BB_SCHEDULER only when something overrides the `?= "completion"` that rm_work sets;
// - what must outlive a volatile TMPDIR goes to `${TOPDIR}/rambake-keep/`: deploy, buildstats
//   (a hard `=` in buildstats.bbclass, hence `:forcevariable`), console and event logs;
// - a recipe too big for RAM gets its WORKDIR on disk. WORKDIR is excluded from task hashes;
//   BASE_WORKDIR is not, so it is never written.

import { basename, dirname, join } from 'node:path';
import type { BuildDir } from '../bitbake/builddir-types.js';
import type { PlanScope } from './sizing-types.js';

export const KEEP_DIR = '${TOPDIR}/rambake-keep';
/** Where work dirs of recipes too big for RAM go (on disk, beside the build). */
export const DISK_WORK_DIR = '${TOPDIR}/rambake-disk/work';

export interface ConfInput {
  scope: PlanScope;
  tmpfsPath: string;
  diskmon: string;
  /** Set only when the model lowers them. */
  threads?: { bbNumberThreads: number; parallelMake: string };
  giants: string[];
}

/** `WORKDIR:pn-chromium-x11 = "${TOPDIR}/rambake-disk/work/${MULTIMACH_TARGET_SYS}/${PN}/${PV}"`. */
export function diskWorkdirLine(pn: string): string {
  return `WORKDIR:pn-${pn} = "${DISK_WORK_DIR}/\${MULTIMACH_TARGET_SYS}/\${PN}/\${PV}"`;
}

/** A scheduler other than rm_work's `completion` set by the user (not just a default). */
export function schedulerOverridden(bd: BuildDir): boolean {
  const v = bd.vars.BB_SCHEDULER;
  return v.source !== 'default' && v.value !== undefined && v.value.trim() !== 'completion';
}

export function confLines(bd: BuildDir, input: ConfInput): string[] {
  const lines: string[] = [];
  if (input.scope === 'tmpdir') lines.push(`TMPDIR = "${input.tmpfsPath}"`);
  if (!bd.rmWork) lines.push('INHERIT += "rm_work"');
  if (schedulerOverridden(bd)) lines.push('BB_SCHEDULER = "completion"');
  if (input.scope === 'tmpdir') {
    lines.push(
      `DEPLOY_DIR = "${KEEP_DIR}/deploy"`,
      `BUILDSTATS_BASE:forcevariable = "${KEEP_DIR}/buildstats/"`,
      `BB_CONSOLELOG = "${KEEP_DIR}/log/cooker/\${MACHINE}/\${DATETIME}.log"`,
      `BB_DEFAULT_EVENTLOG = "${KEEP_DIR}/log/eventlog/\${DATETIME}.json"`,
    );
  }
  lines.push(`BB_DISKMON_DIRS = "${input.diskmon}"`);
  if (input.threads) {
    lines.push(
      `BB_NUMBER_THREADS = "${input.threads.bbNumberThreads}"`,
      `PARALLEL_MAKE = "${input.threads.parallelMake}"`,
    );
  }
  for (const pn of input.giants) lines.push(diskWorkdirLine(pn));
  return lines;
}

/** rambake-keep/ as the managed block lays it out (KEEP_DIR). */
export function keptPaths(topdir: string) {
  const keep = join(topdir, 'rambake-keep');
  return {
    keep,
    deploy: join(keep, 'deploy'),
    images: join(keep, 'deploy', 'images'),
    buildstats: join(keep, 'buildstats'),
    consoleLogs: join(keep, 'log', 'cooker'),
    eventLogs: join(keep, 'log', 'eventlog'),
  };
}

/**
 * Every folder BitBake's buildstats of this build can be in: BUILDSTATS_BASE as the conf says
 * now, and rambake-keep's (where a RAM build writes them, read after revert too).
 */
export function buildstatsBases(bd: BuildDir): string[] {
  return [...new Set([bd.paths.buildstatsBase.replace(/\/+$/, ''), keptPaths(bd.topdir).buildstats])];
}

/**
 * Every LOG_DIR-like folder (holding `cooker/<MACHINE>/<DATETIME>.log`) console logs can be in:
 * LOG_DIR, the one BB_CONSOLELOG names (apply's block keeps them on disk that way, so LOG_DIR on
 * the tmpfs has none), and rambake-keep's.
 */
export function consoleLogRoots(bd: BuildDir): string[] {
  const roots = [bd.paths.logDir, dirname(keptPaths(bd.topdir).consoleLogs)];
  const cooker = bd.consoleLogDir === undefined ? undefined : dirname(bd.consoleLogDir);
  if (cooker !== undefined && basename(cooker) === 'cooker') roots.push(dirname(cooker));
  return [...new Set(roots)];
}
