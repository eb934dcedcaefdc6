import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// Four projects, by what a file needs around it (CI and this machine have 2 CPUs):
//   parallel  two files at a time: everything that times nothing, with the real-BitBake files
//             that only parse (bitbake -e) and the fuzzer (bounded by its own time budget);
//   serial    one at a time: fake-BitBake builds timed as they run (the watcher's samples,
//             peaks, predictions, stories), where a second test at the same priority would
//             change what they measure;
//   pairs     two at a time: real-BitBake files whose builds time nothing (no watcher peak, no
//             disk monitor, no wait measured); BitBake keeps about one core busy in each;
//   real      one at a time, nothing beside: every other real-BitBake file, a new one too.
// A plain `vitest run` runs them one after the other (groupOrder). `npm test` (scripts/test.mjs)
// runs "serial" with "parallel" beside it at a lower CPU priority, on the core the serial files
// leave idle, then "pairs" and "real" as here.
const REAL_PARSE_ONLY = ['conf-differential.test.ts', 'conf-repro.test.ts', 'fake-vs-real.test.ts'];
const REAL_PAIRS = ['apply.test.ts', 'harness.test.ts', 'report-revert.test.ts', 'steps-graph.test.ts'].map(
  (f) => `test/real/${f}`,
);
const REAL_BUILDS = readdirSync(new URL('./test/real', import.meta.url))
  .filter((f) => f.endsWith('.test.ts') && !REAL_PARSE_ONLY.includes(f))
  .map((f) => `test/real/${f}`)
  .filter((f) => !REAL_PAIRS.includes(f));

const SERIAL = [
  'test/story/**/*.test.ts',
  'test/watch/**/*.test.ts',
  'test/predict/**/*.test.ts',
  'test/steps/**/*.test.ts',
  'test/analyze/churn-kept.test.ts',
  // Builds on a shared disk: a peak there is the growth over what the disk held, and another
  // test writing to that disk at the same time changes it.
  'test/report/*.e2e.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // Hooks build fixtures (a fake build, an unpacked tree), as long as a test can be.
    hookTimeout: 30_000,
    // Integration tests mount tmpfs and spawn processes: keep files in separate workers.
    pool: 'forks',
    // One shared temp folder per run for the real BitBake suite (the poky tree is unpacked once).
    globalSetup: ['test/real/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['test/**/*.test.ts'],
          exclude: [...SERIAL, ...REAL_PAIRS, ...REAL_BUILDS],
          maxWorkers: 2,
          // `npm test` runs these at a tenth of the CPU weight beside the serial files, and they
          // can wait there far longer than twice their time alone: a fake build in a hook, 0.8 s
          // alone, passed vitest's default 10 s in one CI run (12-06). Bounds for a hang only.
          testTimeout: 90_000,
          hookTimeout: 90_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'serial', include: SERIAL, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'pairs', include: REAL_PAIRS, maxWorkers: 2, sequence: { groupOrder: 2 } },
      },
      {
        extends: true,
        test: { name: 'real', include: REAL_BUILDS, maxWorkers: 1, sequence: { groupOrder: 3 } },
      },
    ],
  },
});
