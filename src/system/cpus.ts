// CPUs as BitBake counts them. BB_NUMBER_THREADS and PARALLEL_MAKE default to the CPUs this
// process may run on (sched_getaffinity, so taskset/cgroup cpusets count), capped at 64
// (bitbake-formats.md §3). Node's availableParallelism() reads the same affinity mask.

import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { RambakeError } from '../errors.js';

/** BitBake caps its BB_NUMBER_THREADS default at this many CPUs. */
export const BB_THREADS_CAP = 64;

export interface CpuCount {
  /** CPUs the machine has online. */
  online: number;
  /** CPUs this process may use (affinity). */
  usable: number;
  /** BitBake's default BB_NUMBER_THREADS: usable, capped at 64. */
  bbDefault: number;
  /** Cpus_allowed_list of /proc/self/status, counted (a cross-check of `usable`); undefined off Linux. */
  allowedByStatus: number | undefined;
}

/** Expands a kernel CPU list: `0-3,8-11` → [0,1,2,3,8,9,10,11]. Also takes strides, `0-7:2` → [0,2,4,6]. */
export function parseCpuList(text: string): number[] {
  const cpus: number[] = [];
  const trimmed = text.trim();
  if (trimmed === '') return cpus;
  for (const part of trimmed.split(',')) {
    // `8-11` → ['8', '11', undefined]; `0-7:2` → ['0', '7', '2']
    const m = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part);
    if (!m) throw new RambakeError(`bad CPU list "${trimmed}" at "${part}" (expected e.g. 0-3,8-11)`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    const stride = m[3] === undefined ? 1 : Math.max(1, Number(m[3]));
    for (let cpu = from; cpu <= to; cpu += stride) cpus.push(cpu);
  }
  return cpus;
}

/** The number of CPUs in the `Cpus_allowed_list:` line of /proc/<pid>/status text, if present. */
export function parseCpusAllowed(statusText: string): number | undefined {
  // `Cpus_allowed_list:	0-3,8-11` → '0-3,8-11'
  const m = /^Cpus_allowed_list:\s*(\S*)\s*$/m.exec(statusText);
  return m ? parseCpuList(m[1]!).length : undefined;
}

/** BitBake's default thread count for `usable` CPUs. */
export function bbDefaultThreads(usable: number): number {
  return Math.max(1, Math.min(usable, BB_THREADS_CAP));
}

export async function readCpus(statusPath = '/proc/self/status'): Promise<CpuCount> {
  const usable = os.availableParallelism();
  let allowedByStatus: number | undefined;
  try {
    allowedByStatus = parseCpusAllowed(await readFile(statusPath, 'utf8'));
  } catch {
    allowedByStatus = undefined; // not Linux, or /proc not mounted: affinity from Node is enough
  }
  return { online: os.cpus().length || usable, usable, bbDefault: bbDefaultThreads(usable), allowedByStatus };
}
