// ESLint: typescript-eslint's recommended rules, the promise rules a server cannot do without, and the
// layer table of docs/architecture.md as import rules, so a boundary violation or an import cycle fails
// `npm test`. Formatting is Prettier's job (eslint-config-prettier turns off the rules it owns).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { layerBlocks } from './scripts/lint-layers.mjs';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'reports/',
      'data/',
      'models/',
      '.stryker-tmp/',
      '.ci/',
      '.harness/',
      'bench/results/',
      'coverage/',
      'dist/',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    settings: {
      // How import-x parses the modules it follows (for cycles) and resolves `.js` specifiers to `.ts` files.
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver': undefined,
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: ['./tsconfig.json', './client/portal/tsconfig.json'], noWarnOnMultipleProjects: true }),
      ],
    },
    rules: {
      // A promise nobody awaits loses its error (an unhandled rejection ends the process) and its order.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
      'import-x/no-duplicates': 'error',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  ...layerBlocks,
  {
    // The web portal (React): the rules of hooks, and the React Compiler's checks of what breaks them.
    files: ['client/portal/**/*.ts', 'client/portal/**/*.tsx'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    // A production file with one job stays readable in one sitting; tests and benches are exempt.
    files: ['server/**/*.ts', 'routers/**/*.ts', 'adapters/**/*.ts', 'jobs/**/*.ts', 'cli/**/*.ts', 'client/**/*.ts', 'client/**/*.tsx'],
    rules: { 'max-lines': ['error', { max: 500 }] },
  },
  {
    // Tests send deliberately ill-typed values and, like the benches, read JSON bodies of any shape.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  prettier,
);
