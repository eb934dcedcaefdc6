// CPU time, not wall time, for the few tests that guard against runaway work (an exponential
// expansion, a quadratic parse): the suite runs some files beside others at a lower CPU priority
// (scripts/test.mjs), where wall time stretches with the load and CPU time does not.

/** Runs `fn` (synchronous) and returns its result and the CPU milliseconds this process spent. */
export function withCpuMs<T>(fn: () => T): { result: T; cpuMs: number } {
  const before = process.cpuUsage();
  const result = fn();
  const used = process.cpuUsage(before);
  return { result, cpuMs: (used.user + used.system) / 1000 };
}
