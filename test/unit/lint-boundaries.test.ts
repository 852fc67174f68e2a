import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layer table of docs/architecture.md is enforced by `npm run lint` (eslint.config.mjs and
 * scripts/lint-layers.mjs). These cases lint a few lines as if they were a file at a real path, so a
 * config change that stops catching a violation, or starts refusing an allowed import, fails here.
 */
const eslint = new ESLint({
  cwd: process.cwd(),
  // Type-aware rules need the file on disk; the import rules under test do not.
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false, project: null } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
  },
});

async function rulesBroken(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

const refused: [string, string, string, string][] = [
  [
    'a service importing an adapter',
    'server/services/usage.ts',
    "import { openEmbeddedDatabase } from '../../adapters/embedded/database.js';\nexport const x = openEmbeddedDatabase;\n",
    'import-x/no-restricted-paths',
  ],
  [
    'a service importing a driver',
    'server/services/usage.ts',
    "import { MongoClient } from 'mongodb';\nexport const x = MongoClient;\n",
    '@typescript-eslint/no-restricted-imports',
  ],
  [
    'a port importing a driver',
    'server/ports/usage.ts',
    "import type { Db } from 'mongodb';\nexport type X = Db;\n",
    '@typescript-eslint/no-restricted-imports',
  ],
  [
    'a port importing a job',
    'server/ports/usage.ts',
    "import { jobDefinitions } from '../../jobs/definitions/index.js';\nexport const x = jobDefinitions;\n",
    'import-x/no-restricted-paths',
  ],
  [
    'a port running service code',
    'server/ports/usage.ts',
    "import { roleHas } from '../services/roles.js';\nexport const x = roleHas;\n",
    '@typescript-eslint/no-restricted-imports',
  ],
  [
    'one adapter family importing another',
    'adapters/qdrant/search-index.ts',
    "import { tokenize } from '../embedded/database.js';\nexport const x = tokenize;\n",
    'import-x/no-restricted-paths',
  ],
  [
    'a router importing an adapter',
    'routers/usage.ts',
    "import { openEmbeddedDatabase } from '../adapters/embedded/database.js';\nexport const x = openEmbeddedDatabase;\n",
    'import-x/no-restricted-paths',
  ],
  [
    'a router running the composition root',
    'routers/usage.ts',
    "import { createContainer } from '../server/container.js';\nexport const x = createContainer;\n",
    '@typescript-eslint/no-restricted-imports',
  ],
  [
    'a job handler importing an adapter',
    'jobs/definitions/index.ts',
    "import { openEmbeddedDatabase } from '../../adapters/embedded/database.js';\nexport const x = openEmbeddedDatabase;\n",
    'import-x/no-restricted-paths',
  ],
  [
    'server code importing a test helper',
    'server/config.ts',
    "import { startTestServer } from '../test/support/server.js';\nexport const x = startTestServer;\n",
    'import-x/no-restricted-paths',
  ],
  [
    'the client running router code',
    'client/index.ts',
    "import { appRouter } from '../routers/_app.js';\nexport const x = appRouter;\n",
    '@typescript-eslint/no-restricted-imports',
  ],
  [
    'the retrieval benchmark reaching into the server',
    'bench/harness/metrics.ts',
    "import { loadConfig } from '../../server/config.js';\nexport const x = loadConfig;\n",
    'import-x/no-restricted-paths',
  ],
  // subjects.ts imports contradiction.ts, so contradiction.ts importing subjects.ts closes a cycle.
  [
    'an import cycle',
    'server/services/consolidation/contradiction.ts',
    "import { mayContradict } from '../memories/subjects.js';\nexport const ATTRIBUTE_RULES = mayContradict;\n",
    'import-x/no-cycle',
  ],
];

const allowed: [string, string, string][] = [
  [
    'the client naming the router type',
    'client/index.ts',
    "import type { AppRouter } from '../routers/_app.js';\nexport type X = AppRouter;\n",
  ],
  [
    'the REST adapter naming the router type',
    'adapters/rest/openapi-handler.ts',
    "import type { AppRouter } from '../../routers/_app.js';\nexport type X = AppRouter;\n",
  ],
  [
    'a port naming a domain type a service defines',
    'server/ports/usage.ts',
    "import type { RoleName } from '../services/roles.js';\nexport type X = RoleName;\n",
  ],
  [
    'a router naming the Services type',
    'routers/usage.ts',
    "import type { Services } from '../server/container.js';\nexport type X = Services;\n",
  ],
  [
    'the composition root importing an adapter',
    'server/container.ts',
    "import { openEmbeddedDatabase } from '../adapters/embedded/database.js';\nexport const x = openEmbeddedDatabase;\n",
  ],
  [
    'an adapter importing a port and its driver',
    'adapters/mongo/usage.ts',
    "import type { Db } from 'mongodb';\nimport type { UsageStore } from '../../server/ports/usage.js';\nexport type X = [Db, UsageStore];\n",
  ],
  [
    'the CLI running the retrieval benchmark',
    'cli/tenant-memory.ts',
    "import { recallAtK } from '../bench/harness/metrics.js';\nexport const x = recallAtK;\n",
  ],
];

describe('npm run lint enforces the layer table', () => {
  it.each(refused)('refuses %s', async (_name, filePath, code, rule) => {
    expect(await rulesBroken(filePath, code)).toContain(rule);
  });

  it.each(allowed)('allows %s', async (_name, filePath, code) => {
    expect(await rulesBroken(filePath, code)).toEqual([]);
  });
});
