import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Integration tests mount tmpfs and spawn processes: keep files in separate workers.
    pool: 'forks',
  },
});
