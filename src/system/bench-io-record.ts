// The record `rambake bench-io` leaves in ${TOPDIR}/rambake/bench-io.json (outside TMPDIR,
// which may be volatile), and its reader, for `plan` to cite.

import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import type { PhaseFigure, ScratchDir } from './bench-io.js';
import { readText } from './read-file.js';

export const BENCH_IO_SCHEMA_VERSION = 1;

export interface FsFigures {
  path: string;
  fsType: string;
  kind: ScratchDir['kind'];
  noFsync: PhaseFigure[];
  fsync: PhaseFigure[];
}

export interface BenchIoResult {
  schemaVersion: number;
  at: string;
  seconds: number;
  /**
   * TMPDIR was on a tmpfs already when measured: the disk side is where TMPDIR would be
   * without it, and the saving is what that tmpfs saves now. Absent with --dir (no TMPDIR).
   */
  tmpdirOnTmpfs?: boolean;
  disk: FsFigures;
  tmpfs?: FsFigures;
  /** tmpfs ops/s ÷ disk ops/s, per phase and for the whole mix (no fsync; fsync). */
  speedup?: { noFsync: number; fsync: number; phases: Record<string, number> };
  /** Share of the workload's file-system time a tmpfs TMPDIR saves (no fsync, as BitBake writes). */
  savedShare?: number;
  savedTo?: string;
  notes: string[];
}

export function benchIoFile(topdir: string): string {
  return join(topdir, 'rambake', 'bench-io.json');
}

export async function saveBenchIoResult(topdir: string, result: BenchIoResult): Promise<string> {
  const file = benchIoFile(topdir);
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify({ ...result, savedTo: file }, null, 2)}\n`);
  return file;
}

/** The last saved result, for `plan` to cite; undefined when there is none or it is unreadable. */
export async function readBenchIoResult(topdir: string): Promise<BenchIoResult | undefined> {
  try {
    const v = JSON.parse((await readText(benchIoFile(topdir), 'state')) ?? '') as BenchIoResult;
    return v.schemaVersion === BENCH_IO_SCHEMA_VERSION ? v : undefined;
  } catch {
    return undefined;
  }
}
