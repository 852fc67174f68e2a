import { router } from '../server/trpc.js';
import { apiKeysRouter } from './apiKeys.js';
import { authRouter } from './auth.js';
import { knowledgeRouter } from './knowledge.js';
import { knowledgeSettingsRouter } from './knowledge-settings.js';
import { memoriesRouter } from './memories.js';
import { portalRouter } from './portal.js';
import { rolesRouter } from './roles.js';
import { searchRouter } from './search.js';
import { ssoRouter } from './sso.js';
import { systemRouter } from './system.js';
import { tenantsRouter } from './tenants.js';
import { usageRouter } from './usage.js';

/**
 * Every area's router. Each procedure is defined once here and served both at /trpc and, through
 * its `openapi` meta, on the spec's REST path.
 */
export const appRouter = router({
  apiKeys: apiKeysRouter,
  system: systemRouter,
  auth: authRouter,
  sso: ssoRouter,
  tenants: tenantsRouter,
  roles: rolesRouter,
  // Before `memories`: /memories/search must match ahead of /memories/{id}.
  search: searchRouter,
  memories: memoriesRouter,
  usage: usageRouter,
  knowledge: knowledgeRouter,
  knowledgeSettings: knowledgeSettingsRouter,
  portal: portalRouter,
});

export type AppRouter = typeof appRouter;
