import type { RequestContext } from '../server/context.js';
import type { ApiKeyPrincipal, UserPrincipal } from '../server/principal.js';
import { requireScope, requireScopeOrPermission } from '../server/procedures.js';
import type { KnowledgeActedBy } from '../server/services/knowledge/knowledge-service.js';
import { router } from '../server/trpc.js';
import {
  activateStructureInput,
  createObjectInput,
  deleteObjectOutput,
  enrichmentLogInput,
  enrichmentLogOutput,
  enrichOutput,
  knowledgeObjectInput,
  knowledgeObjectOutput,
  knowledgeTypeInput,
  listObjectsInput,
  listObjectsOutput,
  listStructuresOutput,
  patchObjectInput,
  publishStructureInput,
  structureOutput,
} from './knowledge/schemas.js';
import { toKnowledgeObject, toLogEntries, toStructure } from './knowledge/wire.js';

const tags = ['Knowledge'];

/** The audit actor is the user for a bearer caller and the key for a key caller, as on every other route. */
const actedBy = (ctx: RequestContext, principal: ApiKeyPrincipal | UserPrincipal): KnowledgeActedBy => ({
  actor: principal.kind === 'user' ? { userId: principal.userId } : { keyId: principal.keyId },
  ip: ctx.ip || null,
  userAgent: ctx.userAgent,
});

/**
 * `/v1/knowledge`: structures (`knowledge:read` to list, `knowledge:admin` to publish and activate), by
 * an API key with the scope or a bearer token whose role has the permission of the same name, and
 * knowledge objects (X-API-Key with `knowledge:read` / `knowledge:write`). The `/structures` paths come
 * before `/{id}`; an object id is never `structures`.
 */
export const knowledgeRouter = router({
  structures: requireScopeOrPermission('knowledge:read')
    .meta({
      openapi: { method: 'GET', path: '/v1/knowledge/{type}/structures', tags, summary: 'Versions of a knowledge type', protect: true },
    })
    .input(knowledgeTypeInput)
    .output(listStructuresOutput)
    .query(async ({ ctx, input }) => ({
      structures: (await ctx.services.knowledge.structures(ctx.principal.tenantId, input.type)).map(toStructure),
    })),

  publishStructure: requireScopeOrPermission('knowledge:admin')
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/knowledge/{type}/structures',
        tags,
        summary: 'Publish a structure version as DRAFT (a JSON Schema object with x-knowledge annotations)',
        protect: true,
      },
    })
    .input(publishStructureInput)
    .output(structureOutput)
    .mutation(async ({ ctx, input }) => {
      const { type, ...body } = input;
      const published = await ctx.services.knowledge.publishStructure(ctx.principal.tenantId, type, body, actedBy(ctx, ctx.principal));
      ctx.response.status = 201;
      return toStructure(published);
    }),

  activateStructure: requireScopeOrPermission('knowledge:admin')
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/knowledge/{type}/structures/{version}/activate',
        tags,
        summary: 'Make a version ACTIVE and move every object to it (an incompatible change needs a migration plan)',
        protect: true,
      },
    })
    .input(activateStructureInput)
    .output(structureOutput)
    .mutation(async ({ ctx, input }) =>
      toStructure(
        await ctx.services.knowledge.activateStructure(
          ctx.principal.tenantId,
          input.type,
          input.version,
          input.migration,
          actedBy(ctx, ctx.principal),
        ),
      ),
    ),

  create: requireScope('knowledge:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/knowledge/{type}',
        tags,
        summary: 'Store a (partial) knowledge object against the ACTIVE structure of its type',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(createObjectInput)
    .output(knowledgeObjectOutput)
    .mutation(async ({ ctx, input }) => {
      const created = await ctx.services.knowledge.create(ctx.principal.tenantId, input.type, {
        fields: input.fields,
        ...(input.known_none ? { knownNone: input.known_none } : {}),
        ...(input.do_not_enrich !== undefined ? { doNotEnrich: input.do_not_enrich } : {}),
      });
      ctx.response.status = 201;
      ctx.response.headers.Location = `/v1/knowledge/${input.type}/${created.record.id}`;
      return toKnowledgeObject(created);
    }),

  list: requireScope('knowledge:read')
    .meta({
      openapi: { method: 'GET', path: '/v1/knowledge/{type}', tags, summary: 'Knowledge objects of a type, in pages', protect: true },
      auth: 'apiKey',
    })
    .input(listObjectsInput)
    .output(listObjectsOutput)
    .query(async ({ ctx, input }) => {
      const page = await ctx.services.knowledge.list(ctx.principal.tenantId, input.type, {
        limit: input.limit,
        ...(input.completeness_lt !== undefined ? { completenessLt: input.completeness_lt } : {}),
        ...(input.status ? { status: input.status } : {}),
        ...(input.cursor ? { cursor: input.cursor } : {}),
      });
      return { objects: page.objects.map(toKnowledgeObject), total: page.total, limit: input.limit, next_cursor: page.nextCursor };
    }),

  get: requireScope('knowledge:read')
    .meta({
      openapi: { method: 'GET', path: '/v1/knowledge/{type}/{id}', tags, summary: 'One knowledge object', protect: true },
      auth: 'apiKey',
    })
    .input(knowledgeObjectInput)
    .output(knowledgeObjectOutput)
    .query(async ({ ctx, input }) => toKnowledgeObject(await ctx.services.knowledge.get(ctx.principal.tenantId, input.type, input.id))),

  update: requireScope('knowledge:write')
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/v1/knowledge/{type}/{id}',
        tags,
        summary: 'Merge fields into a knowledge object (null clears one); completeness is recomputed',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(patchObjectInput)
    .output(knowledgeObjectOutput)
    .mutation(async ({ ctx, input }) =>
      toKnowledgeObject(
        await ctx.services.knowledge.patch(ctx.principal.tenantId, input.type, input.id, {
          ...(input.fields ? { fields: input.fields } : {}),
          ...(input.known_none ? { knownNone: input.known_none } : {}),
          ...(input.do_not_enrich !== undefined ? { doNotEnrich: input.do_not_enrich } : {}),
        }),
      ),
    ),

  delete: requireScope('knowledge:write')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/v1/knowledge/{type}/{id}',
        tags,
        summary: 'Delete a knowledge object and its log',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(knowledgeObjectInput)
    .output(deleteObjectOutput)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.knowledge.remove(ctx.principal.tenantId, input.type, input.id, actedBy(ctx, ctx.principal));
      return { id: input.id, deleted: true as const };
    }),

  enrich: requireScope('knowledge:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/knowledge/{type}/{id}/enrich',
        tags,
        summary: 'Start an enrichment run (202); a run already holding the object starts nothing new',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(knowledgeObjectInput)
    .output(enrichOutput)
    .mutation(async ({ ctx, input }) => {
      const started = await ctx.services.enrichment.trigger(ctx.principal.tenantId, input.type, input.id, ctx.principal.namespaces);
      ctx.response.status = 202;
      return started;
    }),

  enrichmentLog: requireScope('knowledge:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/knowledge/{type}/{id}/enrichment-log',
        tags,
        summary: 'Enrichment attempts on the object, oldest first, in pages (limit, after: the last id of the previous page)',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(enrichmentLogInput)
    .output(enrichmentLogOutput)
    .query(async ({ ctx, input }) =>
      toLogEntries(
        await ctx.services.knowledge.log(ctx.principal.tenantId, input.type, input.id, {
          limit: input.limit,
          ...(input.after !== undefined ? { after: input.after } : {}),
          ...(input.run_id !== undefined ? { runId: input.run_id } : {}),
        }),
      ),
    ),
});
