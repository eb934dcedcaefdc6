import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Integration tests mount tmpfs and spawn processes: keep files in separate workers.
    pool: 'forks',
    // One shared temp folder per run for the real BitBake suite (the poky tree is unpacked once).
    globalSetup: ['test/real/global-setup.ts'],
  },
});
