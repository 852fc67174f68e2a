// The module groups of `npm run mutation`; see docs/mutation-testing.md.

/**
 * Module groups: what to mutate and which test files can kill those mutants. `ignoreStatic: false`
 * measures the mutants hit while modules load or in `beforeAll` hooks (each reruns every test file).
 */
export const groups = {
  'api-keys': {
    mutate: ['server/services/api-keys.ts', 'server/services/api-key-fields.ts', 'server/services/ip-allowlist.ts'],
    // The service's own tests over the real embedded store; the HTTP suite (test/e2e/api-keys.test.ts)
    // adds ~15 s per mutant here, so it joins only through MUTATION_TEST_FILES.
    testFiles: ['test/unit/api-keys-service.test.ts', 'test/unit/ip-allowlist.test.ts', 'test/unit/credential-cache.test.ts'],
  },
  tenancy: {
    mutate: [
      'server/services/tenants.ts',
      'server/services/members.ts',
      'server/services/invitations.ts',
      'server/services/break-glass.ts',
    ],
    testFiles: [
      'test/e2e/auth-tenants.test.ts',
      'test/e2e/auth-break-glass.test.ts',
      'test/e2e/auth-isolation.test.ts',
      'test/e2e/members.test.ts',
      'test/e2e/member-invitations.test.ts',
      'test/e2e/break-glass-membership.test.ts',
      'test/e2e/roles-own-role.test.ts',
      'test/unit/member-changes.test.ts',
    ],
  },
  // The role table is module-level data: every mutant of it is "static" and reruns every test file, so
  // this group runs only fast tests that read the table (the e2e suites would take ~40 s per mutant).
  roles: {
    mutate: ['server/services/roles.ts'],
    testFiles: ['test/unit/roles-key-scopes.test.ts'],
    ignoreStatic: false,
  },
  auth: {
    mutate: [
      'server/services/auth.ts',
      'server/services/login-throttle.ts',
      'server/services/passwords.ts',
      'server/services/opaque-tokens.ts',
      'server/procedures.ts',
    ],
    testFiles: [
      'test/unit/auth-primitives.test.ts',
      'test/contract/attempt-counters.contract.test.ts',
      'test/e2e/auth-signin.test.ts',
      'test/e2e/auth-password-checks.test.ts',
      'test/e2e/auth-sessions.test.ts',
      'test/e2e/auth-throttle.test.ts',
      'test/e2e/throttle-concurrency.test.ts',
      'test/e2e/tenant-suspension.test.ts',
      'test/e2e/auth-step-up.test.ts',
      'test/e2e/auth-secrets.test.ts',
      'test/e2e/auth-audit.test.ts',
      'test/e2e/auth-client.test.ts',
      'test/e2e/auth-tenants.test.ts',
      'test/e2e/api-keys.test.ts',
    ],
  },
  'memory-search': {
    mutate: [
      'server/services/memories/memory-service.ts',
      'server/services/search/search-service.ts',
      'server/services/search/cursor.ts',
      'server/namespace-access.ts',
    ],
    testFiles: [
      'test/unit/search-cursor.test.ts',
      'test/unit/namespace-access.test.ts',
      'test/unit/memory-pipeline.test.ts',
      'test/e2e/memories.test.ts',
      'test/e2e/search.test.ts',
      'test/e2e/search-embedding-errors.test.ts',
    ],
  },
  // The REST edge's query parser and the text check of every input schema. The character classes are
  // module-level regular expressions (static mutants), and the suites are fast, so they are measured too.
  edge: {
    mutate: ['server/schemas/safe-text.ts', 'adapters/rest/query.ts'],
    testFiles: [
      'test/unit/safe-text.test.ts',
      'test/unit/rest-query.test.ts',
      'test/e2e/http-edge-query.test.ts',
      'test/e2e/input-hygiene-text.test.ts',
    ],
    ignoreStatic: false,
  },
  'write-queue': {
    mutate: ['server/storage-rules/write-acceptance.ts', 'adapters/embedded/write-queue.ts'],
    testFiles: [
      'test/contract/memory-store.contract.test.ts',
      'test/unit/write-acceptance.test.ts',
      'test/unit/write-queue-lock.test.ts',
      'test/unit/memory-pipeline.test.ts',
      'test/e2e/memories.test.ts',
    ],
  },
};

/**
 * The test files of a group: its list plus its own mutant-killing tests (test/unit/<group>-mutants.test.ts,
 * ...). MUTATION_TEST_FILES (comma-separated globs) replaces them, e.g. to measure a "before" score.
 */
export function groupTestFiles(name) {
  const group = groups[name];
  if (!group) throw new Error(`unknown mutation group "${name}"; one of: ${Object.keys(groups).join(', ')}`);
  const override = process.env.MUTATION_TEST_FILES;
  if (override)
    return override
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean);
  return [...group.testFiles, `test/*/${name}*-mutants.test.ts`];
}
