// Two scans of TMPDIR compared, pure: "what blew up between two versions of my layer".
// Recipes are matched by arch and PN, not PV, so a version bump compares the new work dir
// with the old one; growth is in `bytes` (what du shows per work dir and subfolder).

import { FOLDER_KINDS, type FolderKind, type SpaceReport } from './space.js';

export interface Growth {
  before: number;
  after: number;
  growth: number;
}

export interface RecipeGrowth extends Growth {
  arch: string;
  pn: string;
  /** PVs before and after (several when several work dirs exist); [] when absent. */
  pvBefore: string[];
  pvAfter: string[];
  /** Biggest growth first; unchanged folders left out. */
  folders: ({ folder: FolderKind } & Growth)[];
}

export interface SpaceComparison {
  before: { path: string; scannedAt: string; bytes: number };
  after: { path: string; scannedAt: string; bytes: number };
  total: Growth;
  top: ({ name: string } & Growth)[];
  /** Biggest growth first; unchanged recipes left out. */
  recipes: RecipeGrowth[];
}

const growth = (before: number, after: number): Growth => ({ before, after, growth: after - before });
const byGrowth = (a: Growth, b: Growth) => b.growth - a.growth;

interface Side {
  pvs: string[];
  bytes: number;
  folders: Map<FolderKind, number>;
}

function sides(report: SpaceReport, pns: string[]): Map<string, Side> {
  const map = new Map<string, Side>();
  for (const r of report.recipes) {
    if (pns.length > 0 && !pns.includes(r.pn)) continue;
    const key = `${r.arch}/${r.pn}`;
    const side: Side = map.get(key) ?? { pvs: [], bytes: 0, folders: new Map() };
    side.pvs.push(r.pv);
    side.bytes += r.bytes;
    for (const [kind, u] of Object.entries(r.folders) as [FolderKind, { bytes: number }][])
      side.folders.set(kind, (side.folders.get(kind) ?? 0) + u.bytes);
    map.set(key, side);
  }
  return map;
}

export function compareSpace(before: SpaceReport, after: SpaceReport, pns: string[] = []): SpaceComparison {
  const old = sides(before, pns);
  const now = sides(after, pns);
  const recipes: RecipeGrowth[] = [];
  for (const key of new Set([...old.keys(), ...now.keys()])) {
    const a = old.get(key);
    const b = now.get(key);
    const g = growth(a?.bytes ?? 0, b?.bytes ?? 0);
    if (g.growth === 0) continue;
    const slash = key.indexOf('/');
    const folders = FOLDER_KINDS.map((folder) => ({
      folder,
      ...growth(a?.folders.get(folder) ?? 0, b?.folders.get(folder) ?? 0),
    }))
      .filter((f) => f.growth !== 0)
      .sort(byGrowth);
    recipes.push({
      arch: key.slice(0, slash),
      pn: key.slice(slash + 1),
      pvBefore: a?.pvs.sort() ?? [],
      pvAfter: b?.pvs.sort() ?? [],
      ...g,
      folders,
    });
  }
  const topBefore = new Map(before.top.map((t) => [t.name, t.bytes]));
  const topAfter = new Map(after.top.map((t) => [t.name, t.bytes]));
  const top = [...new Set([...topBefore.keys(), ...topAfter.keys()])]
    .map((name) => ({ name, ...growth(topBefore.get(name) ?? 0, topAfter.get(name) ?? 0) }))
    .sort(byGrowth);
  const side = (r: SpaceReport) => ({ path: r.tmpdir.path, scannedAt: r.scannedAt, bytes: r.tmpdir.bytes });
  return {
    before: side(before),
    after: side(after),
    total: growth(before.tmpdir.bytes, after.tmpdir.bytes),
    top,
    recipes: recipes.sort((x, y) => byGrowth(x, y) || (x.pn < y.pn ? -1 : 1)),
  };
}
