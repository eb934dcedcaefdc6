// The fuzzing suite as CI runs it: a few hundred seeded mutants of conf trees and build records,
// each a real `rambake` process with a time limit and a memory cap, within a time budget.
// Every exit must be a documented one (0, 1, 2, 3) with no stack trace, and nothing may hang.
// A fixed seed: a failure here is reproduced by `npm run fuzz -- --seed 15 --case N`.
// Needs `npm run build` (dist/).

import { describe, expect, it } from 'vitest';
import { ADDRESS_SPACE_MB, describeFailure, fuzz, summary } from './fuzzer.js';

const SEED = 15;

describe('fuzzing: mutated conf trees and build records', () => {
  it('every case exits 0, 1, 2 or 3 with no stack trace; no hang, no crash', async () => {
    const counts = await fuzz({
      seed: SEED,
      count: 300,
      // All 300 in about 70 s alone; `npm test` runs this file at a lower CPU priority beside
      // the timed ones (scripts/test.mjs), where they take two to three times as long. Bounded on
      // a machine loaded beyond that too: no new case starts after 240 s.
      budgetSeconds: 240,
      timeoutMs: 20_000,
      memoryMb: 256,
      addressSpaceMb: ADDRESS_SPACE_MB,
      jobs: 2,
    });
    console.log(summary(counts));
    for (const f of counts.failures) console.log(describeFailure(f, SEED));
    expect(counts.cases).toBeGreaterThanOrEqual(30);
    expect(counts.byGroup.conf).toBeGreaterThan(0);
    expect(counts.byGroup.records).toBeGreaterThan(0);
    // No case reached the address-space cap (an allocation past it fails, and is counted).
    expect({ hangs: counts.hangs, crashes: counts.crashes, overCap: counts.overCap }).toEqual({
      hangs: 0,
      crashes: 0,
      overCap: 0,
    });
  }, 330_000);
});
