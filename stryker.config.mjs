// Mutation testing of the security-critical modules, one group at a time (`npm run mutation -- <group>`).
// Each group mutates a few files and runs only the test files that exercise them, so a run takes minutes
// on a shared two-core machine; perTest coverage then runs only the tests that reach each mutant.

import { groups } from './scripts/mutation-groups.mjs';

const name = process.env.MUTATION_GROUP ?? '';
const group = groups[name];
if (!group) {
  throw new Error(`MUTATION_GROUP must be one of: ${Object.keys(groups).join(', ')} (got "${name}")`);
}
// A run over other test files (MUTATION_TEST_FILES) keeps its reports and sandbox apart from the group's.
const label = process.env.MUTATION_TEST_FILES ? `${name}-custom` : name;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // The e2e suites reach the services through HTTP, not imports, so `related` would find none of them;
  // this config narrows vitest's `include` to the group's test files instead.
  vitest: { configFile: 'vitest.mutation.config.mjs', related: false },
  mutate: group.mutate,
  coverageAnalysis: 'perTest',
  // Code run in the e2e suites' beforeAll (sign-ups, tenant creation) counts as "static": each such
  // mutant would rerun every test file, ~40 s apiece here. Skipped by default; `--ignoreStatic false`
  // measures them too.
  ignoreStatic: group.ignoreStatic ?? true,
  // One sandbox at a time: the machine's two cores are shared.
  concurrency: 1,
  // Real servers and password hashing make tests slow on a loaded machine; a hung mutant still times out.
  timeoutMS: 30_000,
  // The e2e groups' first full run (coverage per test) took over Stryker's 5-minute default under load.
  dryRunTimeoutMinutes: 30,
  ignorePatterns: ['.stryker-tmp', 'bench/results', 'reports', 'data', '.harness', '.ci'],
  incremental: true,
  incrementalFile: `reports/mutation/${label}/stryker-incremental.json`,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${label}/index.html` },
  jsonReporter: { fileName: `reports/mutation/${label}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  tempDirName: `.stryker-tmp/${label}`,
  cleanTempDir: true,
};
