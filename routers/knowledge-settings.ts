import { requireScope } from '../server/procedures.js';
import { router } from '../server/trpc.js';
import { knowledgeSettingsOutput, updateKnowledgeSettingsInput } from './knowledge/schemas.js';
import { toKnowledgeSettings } from './knowledge/wire.js';

const tags = ['Knowledge settings'];

/**
 * `/settings/knowledge` (X-API-Key): the tenant's Knowledge API settings, read with `knowledge:read` and
 * changed with `knowledge:admin` (like structures: what an admin decides for every object of the tenant).
 */
export const knowledgeSettingsRouter = router({
  get: requireScope('knowledge:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/settings/knowledge',
        tags,
        summary: "The tenant's knowledge settings (whether the web enrichment engine may run)",
        protect: true,
      },
      auth: 'apiKey',
    })
    .output(knowledgeSettingsOutput)
    .query(async ({ ctx }) => toKnowledgeSettings(await ctx.services.knowledgeSettings.get(ctx.principal.tenantId))),

  update: requireScope('knowledge:admin')
    .meta({
      openapi: {
        method: 'PUT',
        path: '/settings/knowledge',
        tags,
        summary: "Turn the web enrichment engine on or off for the tenant's objects (audited)",
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(updateKnowledgeSettingsInput)
    .output(knowledgeSettingsOutput)
    .mutation(async ({ ctx, input }) =>
      toKnowledgeSettings(
        await ctx.services.knowledgeSettings.update(
          ctx.principal.tenantId,
          { webEnrichment: input.web_enrichment },
          { actor: { keyId: ctx.principal.keyId }, ip: ctx.ip || null, userAgent: ctx.userAgent },
        ),
      ),
    ),
});
