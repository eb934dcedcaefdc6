// Deterministic randomness and hashes: a run is a pure function of scenario, config and seed
// (apart from wall-clock times and the sleeps between events).

import { createHash } from 'node:crypto';

/** mulberry32: small, fast, good enough to jitter durations and pick pids. */
export function createRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sha256(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${p}\0`);
  return h.digest('hex');
}
