import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/_app.js';
import type { RouteMeta } from '../../server/trpc.js';

const securitySchemes = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token from /auth/login, /auth/signup or /auth/callback',
  },
  apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key secret (tmk_…) from POST /api-keys' },
  portalSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'tm_portal',
    description:
      'The web portal session cookie set by POST /api/portal/login (named __Host-tm_portal when served over HTTPS). ' +
      "State-changing calls also need X-CSRF-Token (from login or GET /api/portal/session); X-Tenant-ID picks one of the user's tenants.",
  },
} as const;

/** The schemes each credential kind accepts; several become alternative requirements (either one suffices). */
const schemesOf: Record<NonNullable<RouteMeta['auth']>, readonly (keyof typeof securitySchemes)[]> = {
  none: [],
  bearer: ['bearerAuth'],
  apiKey: ['apiKeyAuth'],
  apiKeyOrBearer: ['apiKeyAuth', 'bearerAuth'],
  portal: ['portalSession'],
};

/** The licence of the API's implementation (package.json), as OpenAPI 3.1 states it. */
const license = { name: 'Apache-2.0', identifier: 'Apache-2.0' };

/**
 * OpenAPI 3.1 generated from the routers. trpc-to-openapi puts every scheme on every protected
 * operation; each procedure's `auth` meta narrows that to the credentials the route really takes, and a
 * public route says `security: []` so readers and linters see it needs none rather than a forgotten one.
 */
export function buildOpenApiDocument(router: AppRouter, baseUrl: string, version: string): OpenAPIObject {
  const doc = generateOpenApiDocument(router, {
    title: 'Tenant Memory Platform API',
    description: 'Multi-tenant memory store for AI agents: auth, API keys, memories, search, knowledge and portal.',
    version,
    openApiVersion: '3.1.0',
    baseUrl,
    securitySchemes: securitySchemes as unknown as Record<string, never>,
  });
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: RouteMeta } }>;
  for (const proc of Object.values(procedures)) {
    const meta = proc._def.meta;
    if (!meta?.openapi) continue;
    const op = doc.paths?.[meta.openapi.path]?.[meta.openapi.method.toLowerCase() as 'get'];
    if (!op) continue;
    op.security = schemesOf[meta.auth ?? 'none'].map((scheme) => ({ [scheme]: [] }));
  }
  doc.info.license = license;
  return doc;
}
