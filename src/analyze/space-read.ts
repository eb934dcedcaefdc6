// The I/O side of `rambake space`: one scan of TMPDIR (system/du.ts) grouped down to the work
// dirs' subfolders, the work dirs' mtimes and stamps, saving and loading scans as JSON.

import { existsSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { assertReadable, loadBuildDir } from '../bitbake/builddir.js';
import type { LoadOptions } from '../bitbake/builddir-types.js';
import { NothingYetError, RambakeError, UsageError } from '../errors.js';
import { InodeSet, scanTree } from '../system/du.js';
import { readTextSync } from '../system/read-file.js';
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
    throw new NothingYetError(
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
    // Bounded and non-blocking: a FIFO or /proc file given to --compare is refused, not read.
    const text = readTextSync(path, 'index');
    if (text === undefined) throw new UsageError(`--compare ${path}: no such file`);
    value = JSON.parse(text);
  } catch (err) {
    if (err instanceof RambakeError) throw err;
    throw new UsageError(`--compare ${path}: not a readable JSON file (${(err as Error).message})`);
  }
  const problem = savedScanProblem(value);
  if (problem !== undefined)
    throw new UsageError(
      `--compare ${path}: not a scan saved by rambake space --save (${problem}; expected schemaVersion ${SPACE_SCHEMA_VERSION}, tmpdir, top and recipes)`,
    );
  return value as SpaceReport;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isSize = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The first field the comparison reads that is missing or of the wrong type, or undefined. */
function savedScanProblem(v: unknown): string | undefined {
  if (!isObject(v)) return 'not a JSON object';
  if (v.schemaVersion !== SPACE_SCHEMA_VERSION) return `schemaVersion ${JSON.stringify(v.schemaVersion)}`;
  if (typeof v.scannedAt !== 'string') return 'no scannedAt';
  if (!isObject(v.tmpdir) || typeof v.tmpdir.path !== 'string' || !isSize(v.tmpdir.bytes))
    return 'a damaged tmpdir';
  if (!Array.isArray(v.top)) return 'no top';
  const badTop = v.top.findIndex((t) => !isObject(t) || typeof t.name !== 'string' || !isSize(t.bytes));
  if (badTop >= 0) return `a damaged top[${badTop}]`;
  if (!Array.isArray(v.recipes)) return 'no recipes';
  const badRecipe = v.recipes.findIndex(
    (r) =>
      !isObject(r) ||
      typeof r.pn !== 'string' ||
      typeof r.pv !== 'string' ||
      typeof r.arch !== 'string' ||
      !isSize(r.bytes) ||
      !isObject(r.folders) ||
      !Object.values(r.folders).every((u) => isObject(u) && isSize(u.bytes)),
  );
  if (badRecipe >= 0) return `a damaged recipes[${badRecipe}]`;
  return undefined;
}
