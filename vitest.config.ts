import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file gets its own process: tests open real databases and servers on ephemeral ports.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
