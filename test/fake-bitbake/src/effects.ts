// What each task leaves on disk: the folders of WORKDIR, the shared areas (work-shared,
// sysroots-components, deploy, pkgdata), sstate objects and sstate-control manifests.

import fs from 'node:fs';
import path from 'node:path';
import {
  cleanWorkdir,
  linkTree,
  listFiles,
  rewriteStampsForRmWork,
  writeBytes,
  writeFolder,
} from './fsops.js';
import { SSTATE_TASKS } from './graph.js';
import {
  componentsOf,
  manifestPrefixOf,
  packageArchOf,
  sstateObjectOf,
  stampBaseOf,
  workdirOf,
} from './naming.js';
import type { FakeConfig, FolderWrite, ScenarioRecipe } from './types.js';

/** The task that fills each folder a scenario names. */
export const FOLDER_TASK: Record<string, string> = {
  downloads: 'do_fetch',
  sources: 'do_unpack',
  'kernel-source': 'do_unpack',
  build: 'do_compile',
  'kernel-build-artifacts': 'do_shared_workdir',
  image: 'do_install',
  'sysroot-destdir': 'do_populate_sysroot',
  package: 'do_package',
  'packages-split': 'do_package',
  pkgdata: 'do_package',
  'deploy-ipks': 'do_package_write_ipk',
  'license-destdir': 'do_populate_lic',
  deploy: 'do_deploy',
  rootfs: 'do_rootfs',
  'image-complete': 'do_image_ext4',
};

/** Folders an sstate task's object holds and setscene restores into WORKDIR as-is. */
const PLAIN_DIRS: Record<string, string[]> = { do_package: ['package', 'packages-split', 'pkgdata'] };

export interface EffectContext {
  cfg: FakeConfig;
  sizeScale: number;
  byPn: Map<string, ScenarioRecipe>;
  skipCreation: Set<string>;
  rmWorkExcluded: (r: ScenarioRecipe) => boolean;
}

/** Bytes scale linearly; file counts by the square root, so small scales keep some shape. */
export function scaled(w: FolderWrite, scale: number): FolderWrite {
  const bytes = Math.round(w[1] * scale);
  return [Math.max(1, Math.min(Math.round(w[0] * Math.sqrt(scale)), Math.floor(bytes / 512) || 1)), bytes];
}

/** Where a folder lives: most in WORKDIR; the kernel's in work-shared; downloads in DL_DIR. */
function folderPath(ctx: EffectContext, r: ScenarioRecipe, folder: string): string {
  const { cfg } = ctx;
  if (folder === 'downloads') return path.join(cfg.dlDir, `${r.pn}-${r.pv}`);
  if (folder === 'kernel-source' || folder === 'kernel-build-artifacts') {
    return path.join(cfg.workShared, cfg.machine, folder);
  }
  if (folder === 'deploy') return path.join(workdirOf(cfg, r), `deploy-${r.pn}`);
  if (folder === 'image-complete') return path.join(workdirOf(cfg, r), `deploy-${r.pn}-image-complete`);
  return path.join(workdirOf(cfg, r), folder);
}

function writesOf(r: ScenarioRecipe, task: string): [string, FolderWrite][] {
  return Object.entries(r.writes ?? {}).filter(([folder]) => (FOLDER_TASK[folder] ?? 'do_compile') === task);
}

/** Where a finished sstate task installs its shared output (the sstate manifest lists it). */
function sharedDestOf(ctx: EffectContext, r: ScenarioRecipe, task: string): string | undefined {
  const { cfg } = ctx;
  switch (task) {
    case 'do_populate_sysroot':
      return componentsOf(cfg, r);
    case 'do_package_write_ipk':
      return path.join(cfg.deployDir, 'ipk', packageArchOf(r));
    case 'do_populate_lic':
      return path.join(cfg.deployDir, 'licenses', r.pn);
    case 'do_deploy':
    case 'do_image_complete':
      return path.join(cfg.deployDir, 'images', cfg.machine);
    case 'do_packagedata':
      return path.join(cfg.tmpdir, 'pkgdata', cfg.machine);
    default:
      return undefined;
  }
}

const SOURCE_OF: Record<string, string> = {
  do_populate_sysroot: 'sysroot-destdir',
  do_package_write_ipk: 'deploy-ipks',
  do_populate_lic: 'license-destdir',
  do_deploy: 'deploy',
  do_image_complete: 'image-complete',
};

/** A real (non-noexec) task's effects. */
export function applyTask(ctx: EffectContext, r: ScenarioRecipe, task: string, hash: string): void {
  const { cfg } = ctx;
  const wd = workdirOf(cfg, r);
  if (task === 'do_rm_work') {
    if (ctx.rmWorkExcluded(r)) return;
    rewriteStampsForRmWork(stampBaseOf(cfg, r), SSTATE_TASKS);
    cleanWorkdir(wd, ['temp']);
    return;
  }
  if (task === 'do_prepare_recipe_sysroot') {
    for (const dep of sysrootDeps(ctx, r)) {
      const native = dep.kind === 'native' || dep.kind === 'cross';
      linkTree(componentsOf(cfg, dep), path.join(wd, native ? 'recipe-sysroot-native' : 'recipe-sysroot'));
    }
    fs.mkdirSync(path.join(wd, 'recipe-sysroot'), { recursive: true });
    return;
  }
  for (const [folder, w] of writesOf(r, task)) {
    const dir = folderPath(ctx, r, folder);
    if (folder === 'downloads' && fs.existsSync(`${dir}.done`)) continue;
    const [files, bytes] = scaled(w, ctx.sizeScale);
    writeFolder(dir, files, bytes, `${r.pn}-`);
    if (folder === 'downloads') fs.writeFileSync(`${dir}.done`, '');
  }
  const installed: string[] = [];
  if (task === 'do_packagedata') {
    const runtime = path.join(sharedDestOf(ctx, r, task)!, 'runtime', r.pn);
    writeBytes(runtime, 2048);
    installed.push(runtime);
  }
  const src = SOURCE_OF[task];
  const dest = sharedDestOf(ctx, r, task);
  if (src && dest) installed.push(...installShared(ctx, r, task, folderPath(ctx, r, src), dest));
  if (SSTATE_TASKS.has(task)) finishSstateTask(ctx, r, task, hash, true, installed);
}

/** A setscene task: restores from the object what the real task would have produced. */
export function applySetscene(ctx: EffectContext, r: ScenarioRecipe, task: string, hash: string): void {
  const wd = workdirOf(ctx.cfg, r);
  const plain = PLAIN_DIRS[task];
  const installed: string[] = [];
  if (plain) {
    for (const folder of plain) {
      const w = r.writes?.[folder];
      if (w) writeFolder(path.join(wd, folder), ...scaled(w, ctx.sizeScale), `${r.pn}-`);
    }
  } else {
    // sstate unpacks into WORKDIR/sstate-install-<task> first; the folder stays behind.
    const install = path.join(wd, `sstate-install-${task.replace(/^do_/, '')}`);
    const w = r.writes?.[SOURCE_OF[task] ?? ''];
    if (w) writeFolder(install, ...scaled(w, ctx.sizeScale), `${r.pn}-`);
    // An empty output still leaves a file, named per recipe like the others (shared areas mix recipes).
    else writeBytes(path.join(install, `${r.pn}-sstate`), 256);
    const dest = sharedDestOf(ctx, r, task);
    if (dest) installed.push(...installShared(ctx, r, task, install, dest));
  }
  finishSstateTask(ctx, r, task, hash, false, installed);
}

/**
 * sstate.bbclass's refusal (sstate_install): a file this task would install into a shared
 * area that is already there, and that the task's own manifest does not list (sstate removes
 * its own previous install first). It happens when DEPLOY_DIR outlives TMPDIR and its
 * sstate-control manifests. Only SSTATE_ALLOW_OVERLAP_FILES may overlap: in DEPLOY_DIR that is
 * sources/ and images/<machine>/{ovmf,grub-efi,systemd-boot,microcode} (OE-Core's sstate.bbclass);
 * licenses/ is not among them.
 */
export class SharedAreaOverlap extends Error {}

/** Links `from` into the shared `dest` after sstate's overlap check; returns the files installed. */
function installShared(
  ctx: EffectContext,
  r: ScenarioRecipe,
  task: string,
  from: string,
  dest: string,
): string[] {
  const { cfg } = ctx;
  const files = listFiles(from).map((rel) => path.join(dest, rel));
  const manifest = `${manifestPrefixOf(cfg, r)}.${task.replace(/^do_/, '')}`;
  const own = new Set(fs.existsSync(manifest) ? fs.readFileSync(manifest, 'utf8').split('\n') : []);
  const clash = files.filter((f) => fs.existsSync(f) && !own.has(f) && !overlapAllowed(cfg.deployDir, f));
  if (clash.length > 0) {
    const where = clash.flatMap((f) => [`  ${f}`, `    (${matchedIn(cfg.sstateManifests, f)})`]);
    throw new SharedAreaOverlap(
      [
        `Recipe ${r.pn} is trying to install files into a shared area when those files already exist. The files and the manifests listing them are:`,
        ...where,
        'Please adjust the recipes so only one recipe provides a given file. ',
      ].join('\n'),
    );
  }
  linkTree(from, dest);
  return files;
}

/** SSTATE_ALLOW_OVERLAP_FILES's entries in DEPLOY_DIR (a path prefix, as sstate matches them). */
function overlapAllowed(deployDir: string, file: string): boolean {
  const rel = path.relative(deployDir, file);
  return /^sources\//.test(rel) || /^images\/[^/]+\/(ovmf|grub-efi|systemd-boot|microcode)/.test(rel);
}

/** Which manifest lists a file, as sstate's grep reports it. */
function matchedIn(manifests: string, file: string): string {
  const names = fs.existsSync(manifests)
    ? fs.readdirSync(manifests).filter((n) => !n.startsWith('index-'))
    : [];
  const hits = names.filter((n) =>
    fs.readFileSync(path.join(manifests, n), 'utf8').split('\n').includes(file),
  );
  return hits.length > 0 ? `matched in ${hits.join(' ')}` : 'not matched to any task';
}

/** Manifest (the files installed), the index line `<STAMP> <MANFILEPREFIX> <WORKDIR>` and (after real tasks) the object. */
function finishSstateTask(
  ctx: EffectContext,
  r: ScenarioRecipe,
  task: string,
  hash: string,
  real: boolean,
  installed: string[],
) {
  const { cfg } = ctx;
  const prefix = manifestPrefixOf(cfg, r);
  fs.mkdirSync(cfg.sstateManifests, { recursive: true });
  fs.writeFileSync(`${prefix}.${task.replace(/^do_/, '')}`, installed.map((f) => `${f}\n`).join(''));
  const index = path.join(cfg.sstateManifests, `index-${packageArchOf(r)}`);
  const line = `${stampBaseOf(cfg, r)} ${prefix} ${workdirOf(cfg, r)}\n`;
  const have = fs.existsSync(index) ? fs.readFileSync(index, 'utf8') : '';
  if (!have.split('\n').includes(line.trimEnd())) fs.appendFileSync(index, line);
  if (!real || ctx.skipCreation.has(`${r.pn}:${task}`)) return;
  const obj = sstateObjectOf(cfg, r, task, hash);
  const outBytes = Object.entries(r.writes ?? {})
    .filter(([f]) => (PLAIN_DIRS[task] ?? [SOURCE_OF[task]]).includes(f))
    .reduce((sum, [, w]) => sum + scaled(w, ctx.sizeScale)[1], 0);
  writeBytes(obj, Math.max(1024, Math.round(outBytes * 0.35)));
  writeBytes(`${obj}.siginfo`, 512);
}

/** Everything a recipe's sysroot holds: its DEPENDS and theirs, transitively. */
function sysrootDeps(ctx: EffectContext, r: ScenarioRecipe): ScenarioRecipe[] {
  const out = new Map<string, ScenarioRecipe>();
  const stack = [...r.deps];
  while (stack.length > 0) {
    const pn = stack.pop()!;
    const d = ctx.byPn.get(pn);
    if (!d || out.has(pn)) continue;
    out.set(pn, d);
    stack.push(...d.deps);
  }
  return [...out.values()];
}
