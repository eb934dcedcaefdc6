// A short file-system workload shaped like a BitBake build: unpacking thousands of small
// files, a compiler's write-to-temp-then-rename of each object, package copies, and rm_work's
// storm of unlinks. Run in rounds until the time budget is spent, so a slow disk does fewer
// rounds instead of a longer benchmark; every file it makes is removed before it returns.

import {
  closeSync,
  copyFileSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { isTmpfs, statFs } from './fsstat.js';

export const PHASES = ['unpack', 'compile', 'package', 'rm_work'] as const;
export type Phase = (typeof PHASES)[number];

export interface PhaseFigure {
  phase: Phase;
  ops: number;
  seconds: number;
  opsPerSecond: number;
}

export interface WorkloadOptions {
  /** Time budget for this run. */
  seconds: number;
  fsync: boolean;
  /** Files per round (default: adapted to the budget, 50 to 4,000; tests fix a few dozen). */
  files?: number;
}

const PAYLOAD = Buffer.alloc(64 * 1024, 0x61);
// Source files of a typical tarball: mostly 1–16 KiB.
const sizeOf = (i: number) => 1024 * (1 + ((i * 7919) % 16));

function writeFile(path: string, bytes: number, fsync: boolean): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, PAYLOAD, 0, Math.min(bytes, PAYLOAD.length));
    if (fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** One round in `dir`; adds each phase's ops and seconds to `acc`. */
function runRound(dir: string, round: number, files: number, fsync: boolean, acc: Map<Phase, PhaseFigure>) {
  const root = join(dir, `round-${round}`);
  const src = join(root, 'sources');
  const build = join(root, 'build');
  const pkg = join(root, 'packages-split');
  const time = (phase: Phase, body: () => number) => {
    const t0 = performance.now();
    const ops = body();
    const f = acc.get(phase)!;
    f.ops += ops;
    f.seconds += (performance.now() - t0) / 1000;
  };
  const dirOf = (base: string, i: number) => join(base, `d${Math.floor(i / 32)}`);
  time('unpack', () => {
    for (let i = 0; i < files; i++) {
      if (i % 32 === 0) mkdirSync(dirOf(src, i), { recursive: true });
      writeFile(join(dirOf(src, i), `f${i}.c`), sizeOf(i), fsync);
    }
    return files;
  });
  time('compile', () => {
    for (let i = 0; i < files; i++) {
      if (i % 32 === 0) mkdirSync(dirOf(build, i), { recursive: true });
      // gcc -o x.o writes a temporary and renames it; a relink rewrites the object.
      const obj = join(dirOf(build, i), `f${i}.o`);
      writeFile(`${obj}.tmp`, sizeOf(i) * 2, fsync);
      renameSync(`${obj}.tmp`, obj);
      writeFile(obj, sizeOf(i) * 2, fsync);
    }
    return files * 3;
  });
  time('package', () => {
    for (let i = 0; i < files; i++) {
      if (i % 32 === 0) mkdirSync(dirOf(pkg, i), { recursive: true });
      copyFileSync(join(dirOf(build, i), `f${i}.o`), join(dirOf(pkg, i), `f${i}.o`));
      if (fsync) {
        const fd = openSync(join(dirOf(pkg, i), `f${i}.o`), 'r+');
        fsyncSync(fd);
        closeSync(fd);
      }
    }
    return files;
  });
  time('rm_work', () => {
    rmSync(root, { recursive: true, force: true });
    return files * 4;
  });
}

/** Rounds until the budget is spent (at least one). */
export function runWorkload(dir: string, opts: WorkloadOptions): PhaseFigure[] {
  const acc = new Map<Phase, PhaseFigure>(
    PHASES.map((p) => [p, { phase: p, ops: 0, seconds: 0, opsPerSecond: 0 }]),
  );
  const deadline = performance.now() + opts.seconds * 1000;
  // Without a fixed size, rounds start small and grow to about a quarter of the budget, so
  // fsync on a slow disk cannot stretch one round far past it.
  let files = opts.files ?? 100;
  const roundMs = Math.max(50, (opts.seconds * 1000) / 4);
  let round = 0;
  try {
    do {
      const t0 = performance.now();
      runRound(dir, round++, files, opts.fsync, acc);
      const took = Math.max(1, performance.now() - t0);
      if (opts.files === undefined)
        files = Math.round(Math.min(4000, Math.max(50, (files * roundMs) / took)));
    } while (performance.now() < deadline);
  } finally {
    rmSync(join(dir, `round-${round - 1}`), { recursive: true, force: true });
  }
  return [...acc.values()].map((f) => ({ ...f, opsPerSecond: f.seconds > 0 ? f.ops / f.seconds : 0 }));
}

export interface ScratchDir {
  path: string;
  /** How it was obtained, for the report. */
  kind: 'private-tmpfs' | 'dev-shm' | 'dir';
  tmpfs: boolean;
  release(): Promise<void>;
}

/** A fresh folder under `parent`, removed by release(). */
export async function scratchIn(parent: string): Promise<ScratchDir> {
  const path = await mkdtemp(join(parent, '.rambake-bench-io-'));
  const tmpfs = isTmpfs(await statFs(path));
  return { path, kind: 'dir', tmpfs, release: () => rm(path, { recursive: true, force: true }) };
}

/**
 * A tmpfs to compare with: as root a private mount in a temp folder (exec allowed, as a
 * TMPDIR needs), else a folder of /dev/shm when that is a tmpfs; undefined otherwise.
 */
export async function scratchTmpfs(tempParent: string, isRoot: boolean): Promise<ScratchDir | undefined> {
  if (isRoot) {
    const mountPoint = await mkdtemp(join(tempParent, 'rambake-bench-io-tmpfs-'));
    const r = await execa(
      'mount',
      ['-t', 'tmpfs', '-o', 'size=1g,mode=700', 'rambake-bench-io', mountPoint],
      {
        reject: false,
      },
    );
    if (r.exitCode === 0) {
      return {
        path: mountPoint,
        kind: 'private-tmpfs',
        tmpfs: true,
        release: async () => {
          await execa('umount', [mountPoint], { reject: false });
          await rm(mountPoint, { recursive: true, force: true });
        },
      };
    }
    await rm(mountPoint, { recursive: true, force: true });
  }
  const shm = await statFs('/dev/shm').catch(() => undefined);
  if (shm && isTmpfs(shm)) return { ...(await scratchIn('/dev/shm')), kind: 'dev-shm' };
  return undefined;
}
