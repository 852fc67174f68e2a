// The vitest config of `npm run mutation`: the project's config with `include` narrowed to the test files
// of the group being mutated. Stryker's own `testFiles` option is not used because StrykerJS 9.6 then
// activates "static" mutants only at runtime, after the module under test has loaded, so none of them
// could ever be killed (stryker-mutator/stryker-js#6209).
import base from './vitest.config.ts';
import { groupTestFiles } from './scripts/mutation-groups.mjs';

// Spread, not mergeConfig: mergeConfig concatenates arrays and would keep the project's whole `include`.
export default { ...base, test: { ...base.test, include: groupTestFiles(process.env.MUTATION_GROUP ?? '') } };
