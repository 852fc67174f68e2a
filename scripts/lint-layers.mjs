// The layer table of docs/architecture.md as ESLint blocks: which folder may import which. Each block
// covers files no other block covers (a later block would replace an earlier block's rule for a file),
// so every file gets exactly one list of forbidden folders.

/** Where the process is assembled: the only code that knows the adapters (jobs/runner.ts is the worker's main). */
export const compositionRoot = [
  'server/main.ts',
  'server/app.ts',
  'server/container.ts',
  'server/enrichment-engines.ts',
  'server/profiles/**',
  'jobs/runner.ts',
];

/** Storage, queue, network and model drivers: adapters (and jobs, for Agenda) may use them; services and ports may not. */
const drivers = [
  'mongodb',
  'libsql',
  '@qdrant/js-client-rest',
  'agenda',
  '@agendajs/*',
  'openid-client',
  '@energetic-ai/*',
  'node:http',
  'node:worker_threads',
  'undici',
];

const adapterFamilies = ['embedded', 'embeddings', 'identity', 'in-process', 'llm', 'mongo', 'qdrant', 'rest', 'threads', 'web'];

/** Type-only imports of the composition root are allowed (the `Services` bag is its product); runtime ones are not. */
const compositionRootImport = {
  regex: String.raw`^(\.\.?/)+(server/)?(container|main|app|enrichment-engines|profiles/[\w-]+)\.js$`,
  allowTypeImports: true,
  message:
    'Only the composition root (server/main.ts, app.ts, container.ts, enrichment-engines.ts, profiles/) wires adapters; import its types only.',
};
const driverImports = { group: drivers, message: 'Services and ports see ports, never drivers: put driver code in an adapter.' };

const folders = (...names) => names.map((name) => `./${name}`);

/** An import of `folder` allowed for its types only (the pattern matches the relative import path). */
const typesOnly = (folder, message) => ({ regex: String.raw`^(\.\.?/)+${folder}/`, allowTypeImports: true, message });

/**
 * One block: files (minus `ignores`) may not import from `forbidden`, nor the composition root at run
 * time, nor drivers when `pure`; `types` lists imports allowed for their types only.
 */
function layer({ files, ignores = [], forbidden, message, rootTypesOnly = true, pure = false, types = [] }) {
  const patterns = [...(rootTypesOnly ? [compositionRootImport] : []), ...(pure ? [driverImports] : []), ...types];
  return {
    files,
    ignores,
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [{ target: '.', from: forbidden, message }] }],
      '@typescript-eslint/no-restricted-imports': patterns.length ? ['error', { patterns }] : 'off',
    },
  };
}

const notInProduction = folders('cli', 'bench', 'test');

export const layerBlocks = [
  layer({
    files: ['server/ports/**/*.ts'],
    forbidden: folders('adapters', 'routers', 'jobs', 'client', 'cli', 'bench', 'test'),
    message: 'Ports import nothing outside server/: they are what services need, in domain types.',
    pure: true,
    types: [typesOnly('services', 'A port may name the domain types a service defines, never run service code.')],
  }),
  layer({
    files: ['server/services/**/*.ts', 'server/storage-rules/**/*.ts', 'server/text/**/*.ts', 'server/schemas/**/*.ts'],
    forbidden: folders('adapters', 'routers', 'jobs', 'client', 'cli', 'bench', 'test'),
    message: 'Services and pure modules reach storage through ports and work through the job catalogue (server/jobs/).',
    pure: true,
  }),
  layer({
    files: ['server/**/*.ts'],
    ignores: [
      'server/ports/**',
      'server/services/**',
      'server/storage-rules/**',
      'server/text/**',
      'server/schemas/**',
      ...compositionRoot,
    ],
    forbidden: folders('adapters', 'routers', 'jobs', 'client', 'cli', 'bench', 'test'),
    message:
      'Only the composition root (server/main.ts, app.ts, container.ts, enrichment-engines.ts, profiles/) imports adapters, routers and jobs.',
  }),
  layer({
    files: compositionRoot,
    forbidden: notInProduction,
    message: 'Production code never imports the CLI, benches or tests.',
    rootTypesOnly: false,
  }),
  layer({
    files: ['routers/**/*.ts'],
    forbidden: folders('adapters', 'jobs', 'client', 'cli', 'bench', 'test'),
    message: 'Routers are thin: they call services from server/, never adapters or jobs.',
  }),
  ...adapterFamilies.map((family) =>
    layer({
      files: [`adapters/${family}/**/*.ts`],
      forbidden: [
        ...folders(...(family === 'rest' ? [] : ['routers']), 'jobs', 'client', 'cli', 'bench', 'test'),
        ...adapterFamilies.filter((f) => f !== family).map((f) => `./adapters/${f}`),
      ],
      message: `adapters/${family} imports ports, pure helpers of server/ and drivers, never another adapter family.`,
      // The REST adapter serves the router: it needs the AppRouter type, never a router's code.
      types: family === 'rest' ? [typesOnly('routers', 'The REST adapter takes the router as a value; import its type only.')] : [],
    }),
  ),
  layer({
    files: ['jobs/**/*.ts'],
    ignores: compositionRoot,
    forbidden: folders('adapters', 'routers', 'client', 'cli', 'bench', 'test'),
    message: 'Job handlers call services (jobs/context.ts), never adapters or routers.',
  }),
  {
    // The typed client and the web portal built on it (client/portal).
    files: ['client/**/*.ts', 'client/**/*.tsx'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: '.',
              from: folders('server', 'adapters', 'jobs', 'cli', 'bench', 'test'),
              message: "The client ships to browsers and SDK users: it knows the routers' types only.",
            },
          ],
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [typesOnly('routers', "The client imports the routers' types only.")] },
      ],
    },
  },
  layer({
    files: ['cli/**/*.ts'],
    forbidden: folders('test'),
    message: 'The CLI is production code: it never imports tests.',
    rootTypesOnly: false,
  }),
  layer({
    // The retrieval benchmark measures the service as a client does.
    files: ['bench/run.ts', 'bench/harness/**/*.ts'],
    forbidden: folders('server', 'adapters', 'jobs', 'routers', 'cli', 'test'),
    message: 'The retrieval benchmark talks to the service through the typed client only.',
    rootTypesOnly: false,
  }),
];
