// vitest globalSetup: the browser tests and the /portal/ serving tests need the built portal. `npm
// install` builds it (the prepare script); this rebuilds it once per run when the sources changed since.
export default async function buildPortalIfStale(): Promise<void> {
  // @ts-expect-error -- a plain .mjs script without type declarations
  const build = (await import('../../scripts/build-portal.mjs')) as { isStale: () => boolean; buildPortal: () => Promise<boolean> };
  if (build.isStale()) await build.buildPortal();
}
