import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the web portal when its sources changed since the last build (browser and /portal/ tests).
    globalSetup: ['test/support/portal-build.global.ts'],
    // Each file gets its own process: tests open real databases and servers on ephemeral ports.
    pool: 'forks',
    // One file per core (vitest's default leaves one core free): the files wait on servers, child
    // processes and polls more than they compute; on two cores the suite took 476 s instead of 698 s.
    maxWorkers: availableParallelism(),
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
