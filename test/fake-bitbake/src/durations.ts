// Real-world-ish task durations in seconds, by recipe kind, for tasks a scenario leaves out.

import type { RecipeKind, ScenarioRecipe } from './types.js';

const BASE: Record<string, number> = {
  do_fetch: 2,
  do_unpack: 1.5,
  do_patch: 0.8,
  do_populate_lic: 0.4,
  do_prepare_recipe_sysroot: 1.2,
  do_configure: 12,
  do_compile: 30,
  do_shared_workdir: 2,
  do_install: 3,
  do_populate_sysroot: 1.5,
  do_package: 6,
  do_packagedata: 0.6,
  do_package_qa: 2.5,
  do_package_write_ipk: 3,
  do_deploy: 2,
  do_rootfs: 40,
  do_image: 2,
  do_image_ext4: 8,
  do_image_complete: 1.5,
  do_rm_work: 0.6,
};

const KIND_FACTOR: Record<RecipeKind, number> = {
  target: 1,
  native: 0.8,
  cross: 1,
  kernel: 1,
  image: 1,
  allarch: 0.3,
};

/** Seconds for a real task; noexec tasks take none. */
export function taskSeconds(r: ScenarioRecipe, task: string, noexec: boolean): number {
  if (noexec) return 0;
  const given = r.durations?.[task];
  if (given !== undefined) return given;
  const base = BASE[task] ?? 1;
  return task === 'do_configure' || task === 'do_compile' ? base * KIND_FACTOR[r.kind] : base;
}

/** Setscene tasks unpack an archive: fast, a little longer for big outputs. */
export function setsceneSeconds(task: string): number {
  return task === 'do_package' || task === 'do_populate_sysroot' ? 1 : 0.5;
}
