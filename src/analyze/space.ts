// Where TMPDIR's bytes are, pure: one hardlink-aware scan (system/du.ts, grouped down to
// `work/<arch>/<pn>/<pv>/<subfolder>`) → TMPDIR's top level, each recipe's work dir split by
// subfolder, and stale work dirs. The reader is space-read.ts; comparing two saved scans is
// space-compare.ts.
//
// Attribution rule. `bytes` of a folder is what `du -sB1 <folder>` prints alone (a hard-linked
// inode counted once inside it). `uniqueBytes` counts only inodes all of whose links lie inside
// the folder; an inode with links both inside and outside (a recipe-sysroot file linked from
// sysroots-components, a packages-split file linked from another work dir, a deploy file) is
// "shared": `sharedBytes = bytes - uniqueBytes`. Unique bytes add up across folders; bytes do
// not. Removing a work dir frees its uniqueBytes, not its bytes.

import type { GroupUsage } from '../system/du.js';

export const SPACE_SCHEMA_VERSION = 1;

export const FOLDER_KINDS = [
  'sources',
  'build',
  'image',
  'package',
  'packages-split',
  'pkgdata',
  'deploy-*',
  'sysroot-destdir',
  'recipe-sysroot',
  'recipe-sysroot-native',
  'sstate-install-*',
  'temp',
  'pseudo',
  'other',
] as const;
export type FolderKind = (typeof FOLDER_KINDS)[number];

export interface Usage {
  bytes: number;
  uniqueBytes: number;
  files: number;
}

export interface RecipeSpace extends Usage {
  pn: string;
  pv: string;
  arch: string;
  workdir: string;
  sharedBytes: number;
  /** Per kind of subfolder; kinds with nothing are left out. */
  folders: Partial<Record<FolderKind, Usage>>;
  /** Why this work dir looks stale, when it does. */
  stale?: string;
}

export interface SpaceReport {
  schemaVersion: number;
  /** ISO time of the scan. */
  scannedAt: string;
  /**
   * `bytes` equals `du -sB1 <path>`; `inodes` counts each hard-linked inode once;
   * `tmpfsInodes` is what a tmpfs charges against nr_inodes for these names: every folder and
   * every link of every other entry (`df -i` on a tmpfs holding only TMPDIR: this + its root).
   */
  tmpdir: { path: string; bytes: number; inodes: number; tmpfsInodes: number; files: number; dirs: number };
  baseWorkdir: string;
  /** TMPDIR's entries (work, work-shared, sysroots-components, deploy, …), biggest first. */
  top: ({ name: string } & Usage)[];
  /** Biggest first. */
  recipes: RecipeSpace[];
  stale: { workdir: string; pn: string; pv: string; arch: string; uniqueBytes: number; why: string }[];
  /** Entries the scan could not read (a live build deletes files under it). */
  errors: { path: string; code: string }[];
  /** PN filter given on the command line (recipes and stale are filtered, totals are not). */
  filter: string[];
}

/** What the reader learnt about one work dir besides its size. */
export interface WorkdirFacts {
  mtimeMs: number;
  /** `${STAMPS_DIR}/<arch>/<pn>/<pv>.*` exist; undefined when STAMPS_DIR itself is absent. */
  hasStamps?: boolean;
}

/**
 * Subfolder name → kind. `${S}` is `<bpn>-<pv>/` for tarballs, `git/` for git recipes, and in
 * current oe-core lives under `sources/` (UNPACKDIR); `sources-unpack/` is older oe-core's.
 */
export function folderKind(name: string, pn: string, pv: string): FolderKind {
  if (['git', 'sources', 'sources-unpack', pn].includes(name) || name.endsWith(`-${pv}`)) return 'sources';
  if (name === 'pkgdata' || name.startsWith('pkgdata-')) return 'pkgdata';
  if (name.startsWith('deploy-')) return 'deploy-*';
  if (name.startsWith('sstate-install-')) return 'sstate-install-*';
  return (FOLDER_KINDS as readonly string[]).includes(name) ? (name as FolderKind) : 'other';
}

const usage = (g: GroupUsage): Usage => ({ bytes: g.bytes, uniqueBytes: g.uniqueBytes, files: g.files });

function add(into: Usage | undefined, u: Usage): Usage {
  if (!into) return { ...u };
  into.bytes += u.bytes;
  into.uniqueBytes += u.uniqueBytes;
  into.files += u.files;
  return into;
}

/**
 * Builds the report from the scan's groups (keys relative to TMPDIR). `workPrefix` is
 * BASE_WORKDIR relative to TMPDIR ('work'); `facts` is keyed by the work dir's group key.
 */
export function analyzeSpace(input: {
  tmpdir: SpaceReport['tmpdir'];
  baseWorkdir: string;
  workPrefix: string;
  groups: ReadonlyMap<string, GroupUsage>;
  facts: ReadonlyMap<string, WorkdirFacts>;
  errors: SpaceReport['errors'];
  filter?: string[];
  scannedAt?: Date;
}): SpaceReport {
  const top: SpaceReport['top'] = [];
  const recipes = new Map<string, RecipeSpace>();
  const depth = input.workPrefix.split('/').length;
  for (const [key, g] of input.groups) {
    const parts = key === '' ? [] : key.split('/');
    if (parts.length === 1) top.push({ name: parts[0]!, ...usage(g) });
    if (!key.startsWith(`${input.workPrefix}/`)) continue;
    const rest = parts.slice(depth);
    if (rest.length === 3) {
      const [arch, pn, pv] = rest as [string, string, string];
      recipes.set(key, {
        pn,
        pv,
        arch,
        workdir: `${input.baseWorkdir}/${arch}/${pn}/${pv}`,
        ...usage(g),
        sharedBytes: g.bytes - g.uniqueBytes,
        folders: {},
      });
    }
  }
  for (const [key, g] of input.groups) {
    const slash = key.lastIndexOf('/');
    const recipe = recipes.get(key.slice(0, slash));
    if (!recipe) continue;
    const kind = folderKind(key.slice(slash + 1), recipe.pn, recipe.pv);
    recipe.folders[kind] = add(recipe.folders[kind], usage(g));
  }
  for (const r of recipes.values()) {
    // Files lying directly in the work dir (patches, configs) belong to no subfolder.
    const sub = Object.values(r.folders).reduce((n, u) => n + u.bytes, 0);
    if (r.bytes > sub)
      r.folders.other = add(r.folders.other, { bytes: r.bytes - sub, uniqueBytes: 0, files: 0 });
  }
  markStale(recipes, input.facts);
  const wanted = (pn: string) => !input.filter?.length || input.filter.includes(pn);
  const list = [...recipes.values()].filter((r) => wanted(r.pn)).sort((a, b) => b.bytes - a.bytes);
  return {
    schemaVersion: SPACE_SCHEMA_VERSION,
    scannedAt: (input.scannedAt ?? new Date()).toISOString(),
    tmpdir: input.tmpdir,
    baseWorkdir: input.baseWorkdir,
    top: top.sort((a, b) => b.bytes - a.bytes),
    recipes: list,
    stale: list
      .filter((r) => r.stale !== undefined)
      .map((r) => ({
        workdir: r.workdir,
        pn: r.pn,
        pv: r.pv,
        arch: r.arch,
        uniqueBytes: r.uniqueBytes,
        why: r.stale!,
      })),
    errors: input.errors,
    filter: input.filter ?? [],
  };
}

// Stale: an older PV beside the newest of the same arch/pn (by the work dir's mtime), or a work
// dir whose stamps are gone (cleaned, or STAMPS_DIR wiped while WORKDIR survived).
function markStale(recipes: Map<string, RecipeSpace>, facts: ReadonlyMap<string, WorkdirFacts>): void {
  const byPn = new Map<string, [string, RecipeSpace][]>();
  for (const entry of recipes) {
    const k = `${entry[1].arch}/${entry[1].pn}`;
    byPn.set(k, [...(byPn.get(k) ?? []), entry]);
  }
  for (const list of byPn.values()) {
    const mtime = ([key]: [string, RecipeSpace]) => facts.get(key)?.mtimeMs ?? 0;
    const newest = list.reduce((a, b) => (mtime(b) > mtime(a) ? b : a));
    for (const entry of list) {
      const [key, r] = entry;
      if (entry !== newest) r.stale = `older PV beside ${newest[1].pv}`;
      else if (facts.get(key)?.hasStamps === false) r.stale = 'no stamps left for this PV';
    }
  }
}
