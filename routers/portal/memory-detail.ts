import { requirePortalPermission } from '../../server/portal-procedures.js';
import { router } from '../../server/trpc.js';
import { listVersionsOutput, memoryIdInput, rollbackInput, rollbackOutput } from '../memories/schemas.js';
import { toMemoryDetail, toMemoryVersion, toWriteReceipt } from '../memories/wire.js';
import { portalMemoryDetailOutput } from './memories-schemas.js';
import { portalCaller } from './memories.js';

const tags = ['Portal'];

/**
 * One memory in the portal: detail, its versions and a rollback, through the same memory service as
 * `/memories/{id}*` (another tenant's id is 404; a rollback queues a new version like the REST one).
 */
export const portalMemoryDetailRouter = router({
  memoryGet: requirePortalPermission('memories:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/memories/{id}',
        tags,
        summary: 'One memory: content, metadata, sensitivity, injection flags and contradiction state',
        protect: true,
      },
    })
    .input(memoryIdInput)
    .output(portalMemoryDetailOutput)
    .query(async ({ ctx, input }) => {
      const caller = portalCaller(ctx.principal);
      const m = await ctx.services.memories.get(caller, input.id);
      const { contradictionPolicy } = await ctx.services.memories.settings(caller.tenantId);
      return toMemoryDetail(m, contradictionPolicy);
    }),

  memoryVersions: requirePortalPermission('memories:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/memories/{id}/versions',
        tags,
        summary: 'Every committed version of a memory, oldest first',
        protect: true,
      },
    })
    .input(memoryIdInput)
    .output(listVersionsOutput)
    .query(async ({ ctx, input }) => {
      const versions = await ctx.services.memories.versions(portalCaller(ctx.principal), input.id);
      return { memory_id: input.id, versions: versions.map(toMemoryVersion) };
    }),

  memoryRollback: requirePortalPermission('memories:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/memories/{id}/rollback',
        tags,
        summary: 'Make an earlier version current again: queues a new version equal to it (404 if the version is unknown)',
        protect: true,
      },
    })
    .input(rollbackInput)
    .output(rollbackOutput)
    .mutation(async ({ ctx, input }) => {
      const receipt = await ctx.services.memories.rollback(portalCaller(ctx.principal), input.id, input.target_version);
      return { ...toWriteReceipt(receipt), rolled_back_to: input.target_version };
    }),
});
