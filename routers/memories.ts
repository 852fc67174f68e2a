import { validation } from '../server/errors.js';
import type { RequestContext } from '../server/context.js';
import type { ApiKeyPrincipal } from '../server/principal.js';
import { requirePermission, requireScope, requireStepUp } from '../server/procedures.js';
import type { AuditedBy, MemoryCaller, WriteOptions } from '../server/services/memories/memory-service.js';
import { router } from '../server/trpc.js';
import {
  createMemoryInput,
  deleteMemoryOutput,
  listMemoriesInput,
  listMemoriesOutput,
  listVersionsOutput,
  memoryDetailOutput,
  memoryIdInput,
  memorySettingsOutput,
  memoryVersionOutput,
  rollbackInput,
  rollbackOutput,
  updateMemoryInput,
  updateMemorySettingsInput,
  versionInput,
  writeReceiptOutput,
} from './memories/schemas.js';
import { fromWriteBody, toMemoryDetail, toMemorySettings, toMemoryVersion, toWriteReceipt } from './memories/wire.js';

const tags = ['Memories'];

const callerOf = (principal: ApiKeyPrincipal): MemoryCaller => ({ tenantId: principal.tenantId, namespaces: principal.namespaces });

/** Who made an audited change (a key or a user) and from where. */
const auditedBy = (ctx: RequestContext, actor: AuditedBy['actor']): AuditedBy => ({ actor, ip: ctx.ip || null, userAgent: ctx.userAgent });

/** `Idempotency-Key` (1-255 visible ASCII characters) and `If-Match` (a version, bare or as an ETag). */
function writeOptions(ctx: RequestContext, withIfMatch: boolean): WriteOptions {
  const options: WriteOptions = {};
  const key = ctx.header('idempotency-key');
  if (key !== undefined) {
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw validation('Idempotency-Key', 'must be 1-255 visible ASCII characters');
    options.idempotencyKey = key;
  }
  const ifMatch = ctx.header('if-match');
  if (withIfMatch && ifMatch !== undefined) {
    const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(ifMatch);
    if (!m) throw validation('If-Match', 'must be a memory version number, e.g. 3 or "3"');
    options.ifMatch = Number(m[1]);
  }
  return options;
}

/** A replayed idempotent request answers exactly as the first one did. */
function markReplay(ctx: RequestContext, replayed: boolean): void {
  if (replayed) ctx.response.headers['Idempotent-Replayed'] = 'true';
}

/**
 * `/memories` (X-API-Key; scopes `memories:read` / `memories:write`; the key's namespace restrictions
 * apply to every route) and `/settings/memory` (bearer). Static paths come before `/memories/{id}`;
 * `GET /memories/search` belongs to the retrieval router and must be registered before this one.
 */
export const memoriesRouter = router({
  list: requireScope('memories:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/memories',
        tags,
        summary: 'List memories (newest first) with filters; only namespaces the key may use',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(listMemoriesInput)
    .output(listMemoriesOutput)
    .query(async ({ ctx, input }) => {
      const caller = callerOf(ctx.principal);
      const page = await ctx.services.memories.list(caller, input);
      const { contradictionPolicy } = await ctx.services.memories.settings(caller.tenantId);
      return {
        memories: page.items.map((m) => toMemoryDetail(m, contradictionPolicy)),
        total: page.total,
        limit: input.limit,
        offset: input.offset,
      };
    }),

  create: requireScope('memories:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/memories',
        tags,
        summary:
          'Queue a new memory: durable when answered (202), readable at once (dirty), searchable once consolidated. Honours Idempotency-Key',
        protect: true,
        successDescription: 'Accepted: the write is stored and queued',
      },
      auth: 'apiKey',
    })
    .input(createMemoryInput)
    .output(writeReceiptOutput)
    .mutation(async ({ ctx, input }) => {
      const receipt = await ctx.services.memories.create(callerOf(ctx.principal), fromWriteBody(input), writeOptions(ctx, false));
      ctx.response.status = 202;
      ctx.response.headers.Location = `/memories/${receipt.memoryId}`;
      markReplay(ctx, receipt.replayed);
      return toWriteReceipt(receipt);
    }),

  get: requireScope('memories:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/memories/{id}',
        tags,
        summary: 'One memory with its consolidation, sensitivity, injection and contradiction state',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(memoryIdInput)
    .output(memoryDetailOutput)
    .query(async ({ ctx, input }) => {
      const caller = callerOf(ctx.principal);
      const m = await ctx.services.memories.get(caller, input.id);
      const { contradictionPolicy } = await ctx.services.memories.settings(caller.tenantId);
      ctx.response.headers.ETag = `"${m.version}"`;
      return toMemoryDetail(m, contradictionPolicy);
    }),

  update: requireScope('memories:write')
    .meta({
      openapi: {
        method: 'PUT',
        path: '/memories/{id}',
        tags,
        summary:
          'Queue a full update against the current version (202); If-Match: <version> answers 412 when stale. Honours Idempotency-Key',
        protect: true,
        successDescription: 'Accepted: the write is stored and queued',
      },
      auth: 'apiKey',
    })
    .input(updateMemoryInput)
    .output(writeReceiptOutput)
    .mutation(async ({ ctx, input }) => {
      const { id, ...body } = input;
      const receipt = await ctx.services.memories.update(callerOf(ctx.principal), id, fromWriteBody(body), writeOptions(ctx, true));
      ctx.response.status = 202;
      markReplay(ctx, receipt.replayed);
      return toWriteReceipt(receipt);
    }),

  delete: requireScope('memories:write')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/memories/{id}',
        tags,
        summary: 'Delete for good: gone from reads, lists and every search at once, with all its versions',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(memoryIdInput)
    .output(deleteMemoryOutput)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.memories.delete(callerOf(ctx.principal), input.id, auditedBy(ctx, { keyId: ctx.principal.keyId }));
      return { memory_id: input.id, deleted: true as const };
    }),

  versions: requireScope('memories:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/memories/{id}/versions',
        tags,
        summary: 'Every committed version, oldest first (history is never rewritten)',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(memoryIdInput)
    .output(listVersionsOutput)
    .query(async ({ ctx, input }) => {
      const versions = await ctx.services.memories.versions(callerOf(ctx.principal), input.id);
      return { memory_id: input.id, versions: versions.map(toMemoryVersion) };
    }),

  version: requireScope('memories:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/memories/{id}/versions/{version}',
        tags,
        summary: 'One committed version (404 if unknown)',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(versionInput)
    .output(memoryVersionOutput)
    .query(async ({ ctx, input }) =>
      toMemoryVersion(await ctx.services.memories.version(callerOf(ctx.principal), input.id, input.version)),
    ),

  rollback: requireScope('memories:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/memories/{id}/rollback',
        tags,
        summary:
          'Make an earlier version current: queues a new version equal to it, through the same pipeline (404 if the version is unknown)',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(rollbackInput)
    .output(rollbackOutput)
    .mutation(async ({ ctx, input }) => {
      const receipt = await ctx.services.memories.rollback(
        callerOf(ctx.principal),
        input.id,
        input.target_version,
        writeOptions(ctx, true),
      );
      markReplay(ctx, receipt.replayed);
      return { ...toWriteReceipt(receipt), rolled_back_to: input.target_version };
    }),

  settings: requirePermission('memories:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/settings/memory',
        tags: ['Memory settings'],
        summary: "The tenant's memory settings (contradiction policy)",
        protect: true,
      },
      auth: 'bearer',
    })
    .output(memorySettingsOutput)
    .query(async ({ ctx }) => {
      const s = await ctx.services.memories.settings(ctx.principal.tenantId);
      return toMemorySettings(s);
    }),

  updateSettings: requireStepUp('tenant:manage', 'settings.memory')
    .meta({
      openapi: {
        method: 'PUT',
        path: '/settings/memory',
        tags: ['Memory settings'],
        summary: 'Choose the contradiction policy for memories consolidated from now on (owners; X-Step-Up-Token for settings.memory)',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(updateMemorySettingsInput)
    .output(memorySettingsOutput)
    .mutation(async ({ ctx, input }) => {
      const s = await ctx.services.memories.updateSettings(
        ctx.principal.tenantId,
        { contradictionPolicy: input.contradiction_policy },
        auditedBy(ctx, { userId: ctx.principal.userId }),
      );
      return toMemorySettings(s);
    }),
});
