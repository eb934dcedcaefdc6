// The checks `doctor` runs and `apply` refuses on: pure functions over the BuildDir model and
// the facts gathered about the host. Each check returns findings; none throws.

import { basename, dirname, join, relative } from 'node:path';
import type { BuildDir } from '../bitbake/builddir-types.js';
import type { Statement } from '../bitbake/conf/types.js';
import { sanityProblems } from '../bitbake/tmpdir-path.js';
import type { BuildFacts, MountFacts, PathKey } from '../plan/facts-types.js';
import { formatBytes, formatCount } from '../text/format.js';
import { renderShellCommand } from '../text/shell.js';
import { checkManagedBlock } from './check-block.js';
import { checkDiskmon } from './check-diskmon.js';
import { checkBitbakeLock } from './check-lock.js';
import type { Finding } from './findings.js';

const USER_CONFS = new Set(['site.conf', 'auto.conf', 'toolcfg.conf', 'local.conf']);
/** bitbake.conf sets these with ?= before the user's conf files are read (bitbake-formats.md §2). */
const SET_EARLY = new Set(['TMPDIR', 'STAMPS_DIR', 'BASE_WORKDIR', 'DEPLOY_DIR']);
const PER_BUILD = ['TMPDIR', 'STAMPS_DIR', 'BASE_WORKDIR', 'DEPLOY_DIR', 'LOG_DIR', 'BUILDSTATS_BASE'];
const MIN_INOTIFY_WATCHES = 65_536;

const DIAGNOSTIC_FIXES: Record<string, string> = {
  'classes-not-parsed':
    "rambake reads conf files only; after one build (or with bitbake on PATH: one `bitbake -e`, cached until a conf file changes) it uses BitBake's own values",
  'layer-compat-unset': "set LAYERSERIES_COMPAT_<collection> in the layer's conf/layer.conf",
};

export function checkHazards(bd: BuildDir, gathered: BuildFacts): Finding[] {
  const unresolved = new Set((bd.unresolvedPaths ?? []).map((u) => u.key));
  // A path rambake could not resolve holds bitbake.conf's default only as a placeholder: the
  // checks get no mount or file system for it, so none of them judges the default folder.
  const facts = withoutUnresolved(gathered, unresolved);
  return [
    ...checkConfDiagnostics(bd),
    ...checkUnresolvedPaths(bd),
    ...checkStatements(bd),
    ...(unresolved.has('tmpdir') ? [] : checkBaseWorkdir(bd)),
    ...checkTmpdirPath(bd, facts, unresolved),
    ...checkMounts(bd, facts),
    ...((['deployDir', 'tmpdir', 'sstateManifests'] as const).some((k) => unresolved.has(k))
      ? []
      : checkDeployOutlivesTmpdir(bd, facts)),
    ...checkHost(bd, facts),
    ...checkManagedBlock(bd, facts),
    ...checkBitbakeLock(bd),
    ...(unresolved.has('tmpdir') ? [] : checkDiskmon(bd, facts)),
  ];
}

function withoutUnresolved(facts: BuildFacts, unresolved: ReadonlySet<PathKey>): BuildFacts {
  if (unresolved.size === 0) return facts;
  const paths = { ...facts.paths };
  for (const key of unresolved) paths[key] = { path: paths[key].path, exists: false };
  const { savedTmpdir: _saved, deploy: _deploy, ...rest } = facts;
  return {
    ...rest,
    paths,
    ...(unresolved.has('tmpdir') || facts.savedTmpdir === undefined
      ? {}
      : { savedTmpdir: facts.savedTmpdir }),
    ...(unresolved.has('deployDir') || facts.deploy === undefined ? {} : { deploy: facts.deploy }),
  };
}

/** One finding per path variable rambake could not resolve: its checks are skipped, and why. */
function checkUnresolvedPaths(bd: BuildDir): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const u of bd.unresolvedPaths ?? []) {
    if (seen.has(u.variable)) continue;
    seen.add(u.variable);
    const why = u.python ? 'it holds Python only BitBake evaluates' : 'it is not an absolute path';
    out.push({
      id: 'path-unresolved',
      severity: 'warning',
      message: `${u.variable} = "${u.value}" cannot be resolved without BitBake (${why}): the file-system checks for ${u.variable} are skipped (bitbake.conf's default ${u.assumed} is not looked at in its place)`,
      ...(u.file ? { file: u.file } : {}),
      ...(u.line === undefined ? {} : { line: u.line }),
      fix: u.python
        ? "put bitbake on PATH (rambake asks one `bitbake -e`, cached until a conf file changes) or build once (the event log holds BitBake's value); or write a plain absolute path"
        : `write ${u.variable} as an absolute path`,
    });
  }
  return out;
}

const isUserConf = (bd: BuildDir, file: string) =>
  USER_CONFS.has(basename(file)) && (dirname(file) === join(bd.topdir, 'conf') || file === bd.sharedSiteConf);
/** The build's conf/site.conf when bitbake-setup links it to the one shared file (read via either path). */
const isSharedSiteConf = (bd: BuildDir, file: string) =>
  bd.sharedSiteConf !== undefined &&
  (file === bd.sharedSiteConf || file === join(bd.topdir, 'conf', 'site.conf'));
const baseName = (s: Extract<Statement, { kind: 'assign' }>) => s.name.split(':')[0] ?? s.name;
const where = (s: Statement) => ({ file: s.loc.file, line: s.loc.line });

/** The parser's and layer checks' findings (old override syntax, incompatible layers, …). */
function checkConfDiagnostics(bd: BuildDir): Finding[] {
  return bd.diagnostics.map((d) => ({
    id: d.code,
    severity: d.severity,
    message: d.message,
    file: d.file,
    ...(d.line === undefined ? {} : { line: d.line }),
    fix:
      DIAGNOSTIC_FIXES[d.code] ??
      (d.expected ? `write ${d.expected}` : 'correct the line as the message says'),
  }));
}

function checkStatements(bd: BuildDir): Finding[] {
  const out: Finding[] = [];
  for (const s of bd.statements) {
    if (s.kind !== 'assign' || s.flag !== undefined) continue;
    const name = baseName(s);
    const plainName = s.name === name;
    if (plainName && SET_EARLY.has(name) && (s.op === '?=' || s.op === '??=') && isUserConf(bd, s.loc.file)) {
      out.push({
        id: 'noop-weak-assignment',
        severity: 'warning',
        message: `${name} ${s.op} in ${basename(s.loc.file)} does nothing: bitbake.conf already set ${name} with ?= before ${basename(s.loc.file)} was read`,
        ...where(s),
        fix: `write ${name} = "${s.value}"`,
      });
    }
    if (name === 'RM_WORK_EXCLUDE_ITEMS' && plainName && isUserConf(bd, s.loc.file)) {
      out.push({
        id: 'rm-work-items-lost',
        severity: 'warning',
        message: `RM_WORK_EXCLUDE_ITEMS ${s.op} is lost: rm_work.bbclass sets RM_WORK_EXCLUDE_ITEMS = "temp" with a hard = after the conf files`,
        ...where(s),
        fix: `write RM_WORK_EXCLUDE_ITEMS:append = " ${s.value.trim()}"`,
      });
    }
    if (isSharedSiteConf(bd, s.loc.file) && PER_BUILD.includes(name)) {
      out.push({
        id: 'shared-site-conf',
        severity: 'warning',
        message: `${name} is set in site.conf, which bitbake-setup shares between every setup: all builds get this path`,
        file: bd.sharedSiteConf ?? s.loc.file,
        line: s.loc.line,
        fix: `move the ${name} line to ${join(bd.topdir, 'conf', 'auto.conf')} or local.conf`,
      });
    }
  }
  return out;
}

function checkBaseWorkdir(bd: BuildDir): Finding[] {
  const v = bd.vars.BASE_WORKDIR;
  if (v.source === 'default') return [];
  const expected = join(bd.paths.tmpdir, 'work');
  if (v.value === expected) return [];
  return [
    {
      id: 'base-workdir-changed',
      severity: 'warning',
      message: `BASE_WORKDIR is changed to ${v.value}: it is part of task signatures, so every recipe misses sstate and re-runs packaging QA`,
      ...(v.file ? { file: v.file } : {}),
      ...(v.line ? { line: v.line } : {}),
      fix: 'move TMPDIR instead (hash-excluded), or mount the tmpfs at ${TMPDIR}/work; remove the BASE_WORKDIR line',
    },
  ];
}

function checkTmpdirPath(bd: BuildDir, facts: BuildFacts, unresolved: ReadonlySet<PathKey>): Finding[] {
  const out: Finding[] = [];
  const tmpdir = bd.paths.tmpdir;
  const v = bd.vars.TMPDIR;
  const at = { ...(v.file ? { file: v.file } : {}), ...(v.line ? { line: v.line } : {}) };
  // The value as set: a relative one (`~/tmp`) has no resolved path, and BitBake checks the text;
  // one that holds Python has no text to check.
  const python = bd.unresolvedPaths?.find((u) => u.key === 'tmpdir')?.python ?? false;
  const asSet = !unresolved.has('tmpdir') ? tmpdir : python ? undefined : v.value;
  const bad = asSet === undefined ? [] : sanityProblems(asSet);
  if (bad.length > 0) {
    out.push({
      id: 'tmpdir-bad-path',
      severity: 'error',
      message: `TMPDIR ${asSet} has ${bad.join(', ')}: BitBake's sanity check refuses it`,
      ...at,
      fix: 'choose a plain absolute path, e.g. /mnt/rambake/tmp',
    });
  }
  if (facts.savedTmpdir !== undefined && facts.savedTmpdir !== tmpdir) {
    out.push({
      id: 'tmpdir-moved',
      severity: 'error',
      message: `${join(tmpdir, 'saved_tmpdir')} names ${facts.savedTmpdir}: BitBake stops with "Error, TMPDIR has changed location"`,
      file: join(tmpdir, 'saved_tmpdir'),
      fix: `move the folder back to ${facts.savedTmpdir}, or start from an empty TMPDIR`,
    });
  }
  return out;
}

const isRam = (m: MountFacts | undefined) => m?.fsType === 'tmpfs' || m?.fsType === 'ramfs';

function checkMounts(bd: BuildDir, facts: BuildFacts): Finding[] {
  const out: Finding[] = [];
  const p = facts.paths;
  const tmpMount = p.tmpdir.mount;
  if (tmpMount?.options.includes('noexec')) {
    out.push({
      id: 'tmpdir-noexec',
      severity: 'error',
      message: `TMPDIR ${bd.paths.tmpdir} is on ${tmpMount.mountPoint} mounted noexec: native tools run from TMPDIR, so the build fails`,
      fix: `remount without noexec: ${renderShellCommand(['mount', '-o', 'remount,exec', tmpMount.mountPoint])} (Docker's --tmpfs is noexec by default: add :exec)`,
    });
  }
  if (facts.tmp?.options.includes('noexec')) {
    out.push({
      id: 'tmp-noexec',
      severity: 'error',
      message:
        '/tmp is mounted noexec: BitBake\'s sanity check refuses it ("/tmp shouldn\'t be mounted with noexec")',
      fix: 'mount -o remount,exec /tmp',
    });
  }
  const work = p.baseWorkdir.mount;
  const comps = p.componentsDir.mount;
  if (work && comps && work.id !== comps.id) {
    out.push({
      id: 'workdir-components-split',
      severity: 'warning',
      message: `work/ (${work.mountPoint}) and sysroots-components/ (${comps.mountPoint}) are on different file systems: every recipe-sysroot hardlink becomes a full copy`,
      fix: 'keep the whole TMPDIR on one file system: move TMPDIR to the tmpfs rather than WORKDIR alone',
    });
  }
  const persistent: [PathKey, string][] = [
    ['dlDir', 'DL_DIR'],
    ['sstateDir', 'SSTATE_DIR'],
    ['deployDir', 'DEPLOY_DIR'],
    ['persistentDir', 'PERSISTENT_DIR'],
    ['buildstatsBase', 'BUILDSTATS_BASE'],
    ['logDir', 'LOG_DIR'],
  ];
  for (const [key, name] of persistent) {
    const m = p[key].mount;
    if (!isRam(m)) continue;
    out.push({
      id: 'persistent-dir-in-tmpfs',
      severity: 'warning',
      message: `${name} ${p[key].path} is on a ${m?.fsType} (${m?.mountPoint}): it is lost at reboot or unmount`,
      fix: `set ${name} to a folder on disk, e.g. ${join(bd.topdir, name === 'DL_DIR' ? 'downloads' : 'rambake-keep', name.toLowerCase())}`,
    });
  }
  const stamps = p.stampsDir.mount;
  if (isRam(work) && stamps && work && stamps.id !== work.id) {
    out.push({
      id: 'stamps-outlive-workdir',
      severity: 'error',
      message: `work/ is on a tmpfs but stamps/ (${bd.paths.stampsDir}) is on ${stamps.fsType}: after a reboot BitBake trusts stamps for work directories that are gone`,
      fix: 'put the whole TMPDIR on the tmpfs (stamps, sstate-control, sysroots-components and work live and die together)',
    });
  }
  if (isRam(tmpMount) || isRam(work)) {
    if (!bd.rmWork) {
      out.push({
        id: 'rm-work-off-on-tmpfs',
        severity: 'warning',
        message:
          'TMPDIR is on a tmpfs but rm_work is off: core-image-sato needs about 133 GB without rm_work, 39 GB with it',
        fix: 'add INHERIT += "rm_work" (rambake apply does)',
      });
    }
    const ram = tmpMount ?? work;
    const size =
      ram?.sizeBytes ?? (ram === tmpMount ? p.tmpdir.fs?.totalBytes : p.baseWorkdir.fs?.totalBytes);
    const limit = facts.host.memTotal + facts.host.swapTotal;
    if (size !== undefined && size > limit) {
      out.push({
        id: 'tmpfs-oversized',
        severity: 'error',
        message: `the tmpfs at ${ram?.mountPoint} may grow to ${formatBytes(size)}, more than RAM + swap (${formatBytes(limit)}): a full build runs the machine out of memory before BitBake's disk monitor stops it`,
        fix: 'remount it smaller (rambake plan proposes a size), or add swap',
      });
    }
    if (facts.host.swapTotal === 0) {
      out.push({
        id: 'no-swap',
        severity: 'warning',
        message: 'no swap: tmpfs pages cannot be swapped out, so the tmpfs and the compilers share RAM alone',
        fix: 'add a swap file (e.g. 16 GiB) so cold tmpfs pages can leave RAM',
      });
    }
  } else if (facts.host.swapTotal === 0) {
    out.push({
      id: 'no-swap',
      severity: 'info',
      message: 'no swap: a RAM build would have to fit in RAM alone',
      fix: 'add a swap file before moving TMPDIR to a tmpfs',
    });
  }
  if (bd.rmWork && bd.vars.BB_SCHEDULER.value !== 'completion') {
    const v = bd.vars.BB_SCHEDULER;
    out.push({
      id: 'scheduler-overridden',
      severity: 'warning',
      message: `rm_work is on but BB_SCHEDULER is "${v.value}": recipes are not finished and cleaned before new ones start, so the peak grows`,
      ...(v.file ? { file: v.file } : {}),
      ...(v.line ? { line: v.line } : {}),
      fix: 'remove the BB_SCHEDULER line (rm_work.bbclass sets "completion"), or set BB_SCHEDULER = "completion"',
    });
  }
  return out;
}

export const DEPLOY_OUTLIVES = 'deploy-outlives-tmpdir';

/**
 * The shell command that moves a folder aside as `--move-old-deploy` does (`<dir>.old-<UTC date>`),
 * for a person to paste: the date comes from `date` when it runs.
 */
export function moveAsideCommand(dir: string): string {
  return `mv ${renderShellCommand([dir, dir])}.old-$(date -u +%Y%m%d-%H%M%S)`;
}

/**
 * sstate refuses to install a file that already exists in DEPLOY_DIR unless the task's own
 * manifest in sstate-control lists it (plan/deploy-owners.ts). A DEPLOY_DIR kept on disk outlives
 * a tmpfs TMPDIR (that is why rambake apply keeps it), so after the tmpfs is gone — and after a
 * build that failed on it, which leaves manifests of its own — the next build stops with
 * "trying to install files into a shared area when those files already exist".
 */
function checkDeployOutlivesTmpdir(bd: BuildDir, facts: BuildFacts): Finding[] {
  const d = facts.deploy;
  const inside = bd.paths.deployDir.startsWith(`${bd.paths.tmpdir}/`);
  if (inside || !d || d.unowned === 0) return [];
  const which =
    d.unowned === d.files
      ? `all ${formatCount(d.files)} of its files`
      : `${formatCount(d.unowned)} of its ${formatCount(d.files)} files`;
  return [
    {
      id: DEPLOY_OUTLIVES,
      severity: 'error',
      message: `DEPLOY_DIR ${bd.paths.deployDir} holds files no sstate manifest in ${bd.paths.sstateManifests} lists (${which}, e.g. ${d.example}): sstate will refuse to install over them ("trying to install files into a shared area when those files already exist")`,
      fix: `move it aside before building, keeping your images: rambake run --move-old-deploy -- <your bitbake command> does it and checks again, or ${moveAsideCommand(bd.paths.deployDir)}`,
    },
  ];
}

function checkHost(_bd: BuildDir, facts: BuildFacts): Finding[] {
  const watches = facts.host.inotifyMaxUserWatches;
  if (watches === undefined || watches >= MIN_INOTIFY_WATCHES) return [];
  return [
    {
      id: 'inotify-limit-low',
      severity: 'warning',
      message: `fs.inotify.max_user_watches is ${watches}: rambake watch, IDEs and BitBake's own inotify use share it`,
      fix: 'sysctl fs.inotify.max_user_watches=524288 (and put it in /etc/sysctl.d/ to keep it)',
    },
  ];
}

/** A path relative to TOPDIR when inside it, for short messages. */
export function shortPath(bd: BuildDir, path: string): string {
  const rel = relative(bd.topdir, path);
  return rel.startsWith('..') ? path : rel || '.';
}
