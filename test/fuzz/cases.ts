// The fuzz cases: a base build directory (the sample build with recorded runs, buildstats,
// console logs and a saved scan laid in), and for each case a copy of it with one to three
// files mutated and one rambake command to run on it. A case is a pure function of its seed.

import { execFileSync } from 'node:child_process';
import {
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from '../helpers/exec.js';
import { DIR_MUTATIONS, type Mutation, type Replacement } from './mutate-bytes.js';
import { CONF_MUTATIONS } from './mutate-conf.js';
import {
  BUILDSTATS_MUTATIONS,
  CONSOLE_MUTATIONS,
  JSON_FILE_MUTATIONS,
  TIMELINE_MUTATIONS,
} from './mutate-records.js';
import { Random } from './random.js';

const FIXTURES = join(ROOT, 'test', 'fixtures');
export const RUN_FILE = 'build/rambake/runs/20251130-142600.jsonl';
export const SAVED_SCAN = 'scan.json';

/** Lays the base tree out in `dir` (layers/, build/, sstate-cache/): done once per fuzz run. */
export function makeBase(dir: string): void {
  cpSync(join(ROOT, 'examples'), dir, { recursive: true, verbatimSymlinks: true });
  const build = join(dir, 'build');
  const report = join(FIXTURES, 'report', 'tmpfs-run-kernel-peak');
  cpSync(join(report, 'tmp'), join(build, 'tmp'), { recursive: true });
  cpSync(join(report, 'rambake'), join(build, 'rambake'), { recursive: true });
  const churn = join(FIXTURES, 'analyze', 'redundant-package-setscene');
  cpSync(join(churn, 'tmp'), join(build, 'tmp'), { recursive: true, force: false });
  cpSync(join(churn, 'sstate-cache'), join(dir, 'sstate-cache'), { recursive: true });
  writeFileSync(join(build, 'conf', 'auto.conf'), 'BB_NUMBER_THREADS = "4"\nPARALLEL_MAKE = "-j 4"\n');
  writeFileSync(join(build, 'conf', 'fuzz.inc'), 'INHERIT += "rm_work"\nRM_WORK_EXCLUDE += "zlib"\n');
  writeFileSync(
    join(build, 'conf', 'local.conf'),
    `${readFileSync(join(build, 'conf', 'local.conf'), 'utf8')}require \${TOPDIR}/conf/fuzz.inc\n`,
  );
}

/** A state.json as `rambake apply` writes it, for the copy at `root`. */
const stateFor = (root: string) =>
  JSON.stringify({
    schemaVersion: 1,
    topdir: join(root, 'build'),
    scope: 'tmpdir',
    previousTmpdir: join(root, 'build', 'tmp'),
    conf: { file: join(root, 'build', 'conf', 'auto.conf'), existed: true },
    mount: { path: join(root, 'build', 'tmp-ram'), source: 'rambake-0123abcd', createdFolder: true },
  });

interface Target {
  /** Relative to the case root; a function when it is picked among files of the base. */
  path: (rng: Random, base: string) => string;
  mutations: Mutation[];
  /** The commands that read it (after `rambake`, before the global flags). */
  commands: string[][];
}

const CONF_COMMANDS = [['status'], ['doctor'], ['plan'], ['apply', '--dry-run']];
const fixed = (p: string) => () => p;

/** Files under `rel` in the base (recursively), for a target picked among many. */
function filesUnder(base: string, rel: string): string[] {
  const out: string[] = [];
  const walk = (r: string) => {
    for (const e of readdirSync(join(base, r), { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(r, e.name));
      else out.push(join(r, e.name));
    }
  };
  walk(rel);
  return out.sort();
}

const TARGETS: { weight: number; group: 'conf' | 'records'; target: Target }[] = [
  ...[
    'build/conf/local.conf',
    'build/conf/auto.conf',
    'build/conf/bblayers.conf',
    'build/conf/fuzz.inc',
    'layers/meta/conf/layer.conf',
    'layers/meta-poky/conf/distro/poky.conf',
    'layers/meta/conf/bitbake.conf',
  ].map((p, i) => ({
    weight: i < 4 ? 3 : 1,
    group: 'conf' as const,
    target: { path: fixed(p), mutations: CONF_MUTATIONS, commands: CONF_COMMANDS },
  })),
  {
    weight: 5,
    group: 'records',
    target: {
      path: fixed(RUN_FILE),
      mutations: TIMELINE_MUTATIONS,
      commands: [['report', '--no-plan'], ['report'], ['plan']],
    },
  },
  {
    weight: 4,
    group: 'records',
    target: {
      path: (rng, base) => rng.pick(filesUnder(base, 'build/tmp/buildstats')),
      mutations: BUILDSTATS_MUTATIONS,
      commands: [['churn'], ['report', '--no-plan'], ['space'], ['plan']],
    },
  },
  {
    weight: 2,
    group: 'records',
    target: {
      path: (rng, base) => rng.pick(filesUnder(base, 'build/tmp/log/cooker')),
      mutations: CONSOLE_MUTATIONS,
      commands: [['report', '--no-plan'], ['churn']],
    },
  },
  {
    weight: 2,
    group: 'records',
    target: {
      path: fixed('build/rambake/state.json'),
      mutations: JSON_FILE_MUTATIONS,
      commands: [['status'], ['doctor'], ['revert'], ['apply', '--dry-run']],
    },
  },
  {
    weight: 2,
    group: 'records',
    target: {
      path: (rng) =>
        rng.pick([
          'build/rambake/runs',
          'build/tmp/buildstats',
          'build/tmp/buildstats/20251130142602',
          'build/tmp/buildstats/20251130142602/zlib-1.3.1-r0',
          'build/tmp/log/cooker',
          'build/tmp/log/cooker/qemux86-64',
          'build/tmp',
          'sstate-cache',
        ]),
      mutations: DIR_MUTATIONS,
      commands: [['report', '--no-plan'], ['churn'], ['space'], ['plan'], ['status'], ['doctor']],
    },
  },
  {
    weight: 2,
    group: 'records',
    target: {
      path: fixed(SAVED_SCAN),
      mutations: JSON_FILE_MUTATIONS,
      commands: [['space', '--compare', SAVED_SCAN]],
    },
  },
];

export interface Case {
  index: number;
  seed: number;
  group: 'conf' | 'records';
  /** What was done, one entry per mutation: `path: mutation (note)`. */
  mutations: string[];
  /** rambake's arguments (paths relative to the case root are made absolute by the runner). */
  args: string[];
  json: boolean;
}

/** The seed of case `index` of a run seeded `seed` (a case is reproduced from these two alone). */
export const caseSeed = (seed: number, index: number): number =>
  (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + index * 0x27d4eb2f) >>> 0;

function pickWeighted<T extends { weight: number }>(rng: Random, items: T[]): T {
  let n = rng.next() * items.reduce((s, x) => s + x.weight, 0);
  for (const x of items) {
    n -= x.weight;
    if (n < 0) return x;
  }
  return items[items.length - 1] as T;
}

/** Reads what is at `file` now, never blocking: anything but a regular file reads as empty. */
function currentBytes(file: string): Buffer {
  try {
    return lstatSync(file).isFile() ? readFileSync(file) : Buffer.alloc(0);
  } catch {
    return Buffer.alloc(0);
  }
}

/** Puts `r` at `file` (whatever was there goes). */
export function place(file: string, r: Replacement): void {
  rmSync(file, { recursive: true, force: true });
  mkdirSync(dirname(file), { recursive: true });
  if (r.kind === 'bytes') writeFileSync(file, r.data);
  else if (r.kind === 'fifo') execFileSync('mkfifo', [file]);
  else if (r.kind === 'link') symlinkSync(r.to === '.self' ? file : r.to, file);
  else if (r.kind === 'dir') mkdirSync(file);
}

const shorten = (s: string) => {
  const line = s.split('\n').find((l) => l.trim() !== '') ?? s;
  return line.length > 70 ? `${line.slice(0, 70)}… (${s.length} chars)` : line;
};

/**
 * Case `index` of the run seeded `seed`: copies `base` to `root`, mutates it, and says what to
 * run. `base` is the folder makeBase filled; `root` must not exist yet.
 */
export function makeCase(seed: number, index: number, base: string, root: string): Case {
  const s = caseSeed(seed, index);
  const rng = new Random(s);
  cpSync(base, root, { recursive: true, verbatimSymlinks: true });
  const first = pickWeighted(rng, TARGETS);
  const mutations: string[] = [];
  const count = rng.chance(0.75) ? 1 : rng.int(2, 3);
  for (let i = 0; i < count; i++) {
    const { target } =
      i === 0
        ? first
        : pickWeighted(
            rng,
            TARGETS.filter((t) => t.group === first.group),
          );
    const rel = target.path(rng, base);
    const file = join(root, rel);
    if (rel.endsWith('state.json') && !mutations.some((m) => m.startsWith(rel)))
      writeFileSync(file, stateFor(root));
    const mutation = rng.pick(target.mutations);
    const replacement = mutation.apply(rng, currentBytes(file));
    place(file, replacement);
    const note = replacement.kind === 'bytes' && replacement.note ? ` (${shorten(replacement.note)})` : '';
    mutations.push(`${rel}: ${mutation.name}${note}`);
    // A folder made a link (to /dev, /proc/self) ends the case's mutations: a later one must
    // never write through it, outside the case's tree.
    if (target.mutations === DIR_MUTATIONS) break;
  }
  const args = [...rng.pick(first.target.commands)];
  const json = rng.chance(0.5);
  return { index, seed: s, group: first.group, mutations, args, json };
}
