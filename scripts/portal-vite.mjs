// The web portal's Vite configuration, shared by the build (scripts/build-portal.mjs) and the dev
// server (scripts/dev-portal.mjs). Inline rather than a vite.config.ts, so neither TypeScript project
// has to type-check a Node file among the browser sources.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const portalRoot = resolve(repoRoot, 'client/portal');
export const portalOut = resolve(repoRoot, 'dist/portal');

/** @returns {import('vite').InlineConfig} */
export function portalViteConfig(extra = {}) {
  return {
    configFile: false,
    root: portalRoot,
    base: '/portal/',
    // React 19's automatic runtime through Vite's own transformer (oxc): no React plugin needed.
    oxc: { jsx: { runtime: 'automatic' } },
    build: {
      outDir: portalOut,
      emptyOutDir: true,
      target: 'es2022',
      sourcemap: false,
      assetsDir: 'assets',
      // Inlined assets would need `data:` in the CSP for scripts and styles.
      assetsInlineLimit: 0,
      rolldownOptions: {
        // Radix marks its modules "use client" (for React Server Components); a browser bundle has no use for it.
        onwarn(warning, warn) {
          if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
        },
      },
    },
    ...extra,
  };
}
