#!/usr/bin/env node
// `npm run mutation -- <group> [stryker options]`: runs StrykerJS on one module group at the lowest CPU
// priority, because mutation runs share the machine with everything else and are not part of `npm test`.
import { spawnSync } from 'node:child_process';
import { groups } from './mutation-groups.mjs';

const [name, ...rest] = process.argv.slice(2);
if (!name || !(name in groups)) {
  console.error(`usage: npm run mutation -- <group> [stryker options]\ngroups: ${Object.keys(groups).join(', ')}`);
  process.exit(2);
}
const result = spawnSync('nice', ['-n', '19', 'npx', 'stryker', 'run', 'stryker.config.mjs', ...rest], {
  stdio: 'inherit',
  env: { ...process.env, MUTATION_GROUP: name },
});
process.exit(result.status ?? 1);
