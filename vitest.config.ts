import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file gets its own process: tests open real databases and servers on ephemeral ports.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: {
      // Files, and the tests inside each, run in a shuffled order: a test that leans on another's
      // leftovers fails. The seed is fixed so a failure reproduces; try another with TEST_SEED=<n>
      // (or `npx vitest run --sequence.seed=<n>`).
      shuffle: { files: true, tests: true },
      seed: Number(process.env.TEST_SEED ?? 21),
    },
  },
});
