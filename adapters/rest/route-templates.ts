import type { AppRouter } from '../../routers/_app.js';
import type { RouteCatalogue } from '../../server/http/route-labels.js';
import type { RouteMeta } from '../../server/trpc.js';

/** Every REST operation (method and path template, in declaration order) and every tRPC procedure path. */
export function routeTemplates(router: AppRouter): Pick<RouteCatalogue, 'rest' | 'procedures'> {
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: RouteMeta } }>;
  const rest = Object.values(procedures).flatMap((proc) => {
    const openapi = proc._def.meta?.openapi;
    return openapi ? [{ method: openapi.method, path: openapi.path }] : [];
  });
  return { rest, procedures: Object.keys(procedures) };
}
