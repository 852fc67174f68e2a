import type { RequestContext } from '../../server/context.js';
import { requirePortalPermission } from '../../server/portal-procedures.js';
import type { UserPrincipal } from '../../server/principal.js';
import { emptyInput } from '../../server/schemas/common.js';
import { requestEnrichment } from '../../server/services/knowledge/enrichment-request.js';
import type { KnowledgeActedBy } from '../../server/services/knowledge/knowledge-service.js';
import { router } from '../../server/trpc.js';
import { enrichOutput, enrichmentLogInput, knowledgeObjectInput, knowledgeObjectOutput } from '../knowledge/schemas.js';
import { toKnowledgeObject, toLogEntries } from '../knowledge/wire.js';
import { metaOf } from '../request-facts.js';
import {
  portalEnrichmentLogOutput,
  portalKnowledgeListInput,
  portalKnowledgeListOutput,
  portalKnowledgeTypesOutput,
} from './knowledge-schemas.js';

const tags = ['Portal'];

const actedBy = (ctx: RequestContext, p: UserPrincipal): KnowledgeActedBy => ({ actor: { userId: p.userId }, ...metaOf(ctx) });

/**
 * `/api/portal/knowledge`: the knowledge pages. The same service calls as `/v1/knowledge`, under the
 * role's `knowledge:read` (browse) and `knowledge:write` (enrich) permissions instead of key scopes.
 * `types` is a static path of one segment, `{type}/{id}` two: they never overlap.
 */
export const portalKnowledgeRouter = router({
  knowledgeTypes: requirePortalPermission('knowledge:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/knowledge/types',
        tags,
        summary: "The tenant's knowledge types (built-in and published) with their ACTIVE version and object count",
        protect: true,
      },
    })
    .input(emptyInput)
    .output(portalKnowledgeTypesOutput)
    .query(async ({ ctx }) => ({
      types: (await ctx.services.knowledge.types(ctx.principal.tenantId)).map((t) => ({
        type: t.type,
        builtin: t.builtin,
        active_version: t.activeVersion,
        versions: t.versions,
        object_count: t.objectCount,
      })),
    })),

  knowledgeList: requirePortalPermission('knowledge:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/knowledge',
        tags,
        summary: 'Knowledge objects of one type, oldest first, by limit and offset (404 for an unknown type)',
        protect: true,
      },
    })
    .input(portalKnowledgeListInput)
    .output(portalKnowledgeListOutput)
    .query(async ({ ctx, input }) => {
      const page = await ctx.services.knowledge.list(ctx.principal.tenantId, input.type, {
        limit: input.limit,
        offset: input.offset,
        ...(input.status ? { status: input.status } : {}),
      });
      return { objects: page.objects.map(toKnowledgeObject), total: page.total, limit: input.limit, offset: input.offset };
    }),

  knowledgeGet: requirePortalPermission('knowledge:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/knowledge/{type}/{id}',
        tags,
        summary: 'One knowledge object: each field with its value, provenance and confidence',
        protect: true,
      },
    })
    .input(knowledgeObjectInput)
    .output(knowledgeObjectOutput)
    .query(async ({ ctx, input }) => toKnowledgeObject(await ctx.services.knowledge.get(ctx.principal.tenantId, input.type, input.id))),

  knowledgeLog: requirePortalPermission('knowledge:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/knowledge/{type}/{id}/log',
        tags,
        summary: "The object's enrichment log, oldest first, in pages (limit; after: the previous page's next_after)",
        protect: true,
      },
    })
    .input(enrichmentLogInput)
    .output(portalEnrichmentLogOutput)
    .query(async ({ ctx, input }) => {
      const entries = await ctx.services.knowledge.log(ctx.principal.tenantId, input.type, input.id, {
        limit: input.limit,
        ...(input.after !== undefined ? { after: input.after } : {}),
        ...(input.run_id !== undefined ? { runId: input.run_id } : {}),
      });
      return { entries: toLogEntries(entries), next_after: entries.length === input.limit ? entries.at(-1)!.id : null };
    }),

  knowledgeEnrich: requirePortalPermission('knowledge:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/knowledge/{type}/{id}/enrich',
        tags,
        summary: 'Start an enrichment run (202, audited); a run already holding the object starts nothing new; 409 for do_not_enrich',
        protect: true,
        successDescription: 'Accepted',
      },
    })
    .input(knowledgeObjectInput)
    .output(enrichOutput)
    .mutation(async ({ ctx, input }) => {
      const started = await requestEnrichment(ctx.services, ctx.principal.tenantId, input.type, input.id, actedBy(ctx, ctx.principal));
      ctx.response.status = 202;
      return started;
    }),
});
