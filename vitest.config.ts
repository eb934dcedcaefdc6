import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// Real-BitBake files that only parse (bitbake -e: no build, no mount, nothing timed) run with
// the rest, two at a time; those in REAL_PAIRS two at a time after them; every other
// real-BitBake file, a new one too, runs alone.
const REAL_PARSE_ONLY = ['conf-differential.test.ts', 'conf-repro.test.ts', 'fake-vs-real.test.ts'];
// Real-BitBake files whose builds time nothing (no watcher peak, no disk monitor, no wait
// measured): BitBake keeps about one core busy in them, so two run at a time after the rest.
const REAL_PAIRS = ['apply.test.ts', 'harness.test.ts', 'report-revert.test.ts', 'steps-graph.test.ts'].map(
  (f) => `test/real/${f}`,
);
const REAL_BUILDS = readdirSync(new URL('./test/real', import.meta.url))
  .filter((f) => f.endsWith('.test.ts') && !REAL_PARSE_ONLY.includes(f))
  .map((f) => `test/real/${f}`)
  .filter((f) => !REAL_PAIRS.includes(f));

// Files that time a build as it runs (the watcher's samples, peaks, the real BitBake, tmpfs
// stories) run one at a time after the rest: a second test beside them would change what they
// measure. The rest run two at a time (CI and this machine have 2 CPUs).
const SERIAL = [
  ...REAL_BUILDS,
  'test/story/**/*.test.ts',
  'test/watch/**/*.test.ts',
  'test/predict/**/*.test.ts',
  'test/steps/**/*.test.ts',
  'test/fuzz/**/*.test.ts',
  'test/analyze/churn-kept.test.ts',
  // Builds on a shared disk: a peak there is the growth over what the disk held, and another
  // test writing to that disk at the same time changes it.
  'test/report/*.e2e.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
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
          exclude: [...SERIAL, ...REAL_PAIRS],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'pairs', include: REAL_PAIRS, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'serial', include: SERIAL, maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
