// The I/O side of `rambake space`: one scan of TMPDIR (system/du.ts) grouped down to the work
// dirs' subfolders, the work dirs' mtimes and stamps, saving and loading scans as JSON.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { assertReadable, loadBuildDir } from '../bitbake/builddir.js';
import type { LoadOptions } from '../bitbake/builddir-types.js';
import { UsageError } from '../errors.js';
import { InodeSet, scanTree } from '../system/du.js';
import { analyzeSpace, SPACE_SCHEMA_VERSION, type SpaceReport, type WorkdirFacts } from './space.js';
import { compareSpace, type SpaceComparison } from './space-compare.js';

export interface SpaceOptions {
  /** Only these recipes (PN) in the per-recipe lists. */
  pns?: string[];
  /** Write the scan (unfiltered) as JSON to this file. */
  save?: string;
  /** A scan saved earlier to compare with. */
  compare?: string;
  /** du worker threads (tests pin it). */
  workers?: number;
}

export interface SpaceResult {
  report: SpaceReport;
  comparison?: SpaceComparison;
}

export async function collectSpace(load: LoadOptions, options: SpaceOptions = {}): Promise<SpaceResult> {
  const bd = await loadBuildDir(load);
  assertReadable(bd);
  // Read the saved scan first: a bad file is a usage error before minutes of scanning.
  const before = options.compare === undefined ? undefined : readSavedScan(options.compare);
  const report = await scanSpace(bd.paths.tmpdir, bd.paths.baseWorkdir, bd.paths.stampsDir, options);
  if (options.save !== undefined) writeFileSync(options.save, `${JSON.stringify(report, null, 2)}\n`);
  const filtered = options.pns?.length ? filterRecipes(report, options.pns) : report;
  if (!before) return { report: filtered };
  return { report: filtered, comparison: compareSpace(before, report, options.pns ?? []) };
}

/** Scans TMPDIR (and BASE_WORKDIR when it lies outside it); the report is unfiltered. */
export async function scanSpace(
  tmpdir: string,
  baseWorkdir: string,
  stampsDir: string,
  options: { workers?: number } = {},
): Promise<SpaceReport> {
  if (!existsSync(tmpdir))
    throw new UsageError(
      `TMPDIR ${tmpdir} does not exist`,
      'build something first, or check TMPDIR (rambake status)',
    );
  const workers = options.workers === undefined ? {} : { workers: options.workers };
  const rel = relative(tmpdir, baseWorkdir);
  const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  const workPrefix = inside ? rel : 'work';
  const seen = new InodeSet();
  const scan = await scanTree(tmpdir, {
    groupDepth: inside ? rel.split('/').length + 4 : 1,
    seen,
    ...workers,
  });
  const groups = new Map(scan.groups);
  const errors = [...scan.errors];
  if (!inside && existsSync(baseWorkdir)) {
    // Inodes already counted under TMPDIR count as shared here, as `du TMPDIR BASE_WORKDIR` would.
    const work = await scanTree(baseWorkdir, { groupDepth: 4, seen, ...workers });
    for (const [key, g] of work.groups) groups.set(key === '' ? 'work' : `work/${key}`, g);
    errors.push(...work.errors);
  }
  const facts = await readWorkdirFacts(baseWorkdir, stampsDir, groups, workPrefix);
  return analyzeSpace({
    tmpdir: {
      path: scan.root,
      bytes: scan.bytes,
      inodes: scan.inodes,
      // A tmpfs reserves an inode for every extra hard link (shmem_link), not only per inode.
      tmpfsInodes: scan.files + scan.dirs,
      files: scan.files,
      dirs: scan.dirs,
    },
    baseWorkdir,
    workPrefix,
    groups,
    facts,
    errors,
  });
}

async function readWorkdirFacts(
  baseWorkdir: string,
  stampsDir: string,
  groups: ReadonlyMap<string, unknown>,
  workPrefix: string,
): Promise<Map<string, WorkdirFacts>> {
  const facts = new Map<string, WorkdirFacts>();
  const depth = workPrefix.split('/').length + 3;
  const stampsKnown = existsSync(stampsDir);
  const stampNames = new Map<string, string[]>();
  for (const key of groups.keys()) {
    const parts = key.split('/');
    if (!key.startsWith(`${workPrefix}/`) || parts.length !== depth) continue;
    const [arch, pn, pv] = parts.slice(-3) as [string, string, string];
    const mtimeMs = (await stat(join(baseWorkdir, arch, pn, pv)).catch(() => undefined))?.mtimeMs ?? 0;
    const fact: WorkdirFacts = { mtimeMs };
    if (stampsKnown) {
      const dir = join(stampsDir, arch, pn);
      let names = stampNames.get(dir);
      if (!names) {
        names = await readdir(dir).catch(() => [] as string[]);
        stampNames.set(dir, names);
      }
      fact.hasStamps = names.some((n) => n.startsWith(`${pv}.do_`));
    }
    facts.set(key, fact);
  }
  return facts;
}

export function filterRecipes(report: SpaceReport, pns: string[]): SpaceReport {
  return {
    ...report,
    recipes: report.recipes.filter((r) => pns.includes(r.pn)),
    stale: report.stale.filter((s) => pns.includes(s.pn)),
    filter: pns,
  };
}

/** A scan written by `--save`; anything else is a usage error naming what is wrong. */
export function readSavedScan(path: string): SpaceReport {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--compare ${path}: not a readable JSON file (${(err as Error).message})`);
  }
  const v = value as Partial<SpaceReport> | null;
  if (
    v?.schemaVersion !== SPACE_SCHEMA_VERSION ||
    !Array.isArray(v.recipes) ||
    typeof v.tmpdir?.bytes !== 'number'
  )
    throw new UsageError(
      `--compare ${path}: not a scan saved by rambake space --save (expected schemaVersion ${SPACE_SCHEMA_VERSION}, tmpdir and recipes)`,
    );
  return v as SpaceReport;
}
