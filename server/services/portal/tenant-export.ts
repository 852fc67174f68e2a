/**
 * The portal's data export (`POST /api/portal/export`): everything a tenant stored, read page by page
 * so a tenant of any size is never held in memory at once. The HTTP handler writes what these
 * generators yield as it goes, waiting on the socket (backpressure) between pages.
 */
import type { KnowledgeObjectRecord, KnowledgeObjectStore } from '../../ports/knowledge.js';
import type { MemoryOrderKey, MemoryRecord, MemoryStore, MemoryVersionRecord } from '../../ports/memories.js';
import type { Permission } from '../roles.js';
import type { StepUpAction } from '../auth.js';
import type { AuditService, RequestMeta } from '../audit.js';

/** What the export route requires, for the procedure and the streaming handler alike. */
export const EXPORT_PERMISSION: Permission = 'data:export';
export const EXPORT_STEP_UP: StepUpAction = 'data.export';

/** Memories per page (each with its versions), and knowledge objects per page. */
export const EXPORT_PAGE = 100;

export interface ExportCounts {
  memories: number;
  versions: number;
  knowledgeObjects: number;
}

export interface TenantExport {
  /** Every memory of the tenant, merged duplicates included, newest first, each with every stored version (oldest first). */
  memories(tenantId: string): AsyncGenerator<{ memory: MemoryRecord; versions: MemoryVersionRecord[] }>;
  /** Every knowledge object of the tenant, in (type, id) order, with each field's provenance. */
  knowledgeObjects(tenantId: string): AsyncGenerator<KnowledgeObjectRecord>;
  /** Audits `portal.export` with what was written, and whether the whole document was handed to the connection (not proof the client read it all). */
  recordExport(actor: { userId: string; tenantId: string }, counts: ExportCounts, complete: boolean, meta: RequestMeta): Promise<void>;
}

export function createTenantExport(deps: {
  memories: Pick<MemoryStore, 'listAfter' | 'listVersions'>;
  knowledgeObjects: Pick<KnowledgeObjectStore, 'listAll'>;
  audit: AuditService;
}): TenantExport {
  const { memories, knowledgeObjects, audit } = deps;
  return {
    async *memories(tenantId) {
      let after: MemoryOrderKey | null = null;
      for (;;) {
        const page = await memories.listAfter(tenantId, after, EXPORT_PAGE, { includeMerged: true });
        for (const memory of page) yield { memory, versions: await memories.listVersions(tenantId, memory.id) };
        if (page.length < EXPORT_PAGE) return;
        const last = page[page.length - 1]!;
        after = { createdAt: last.createdAt, id: last.id };
      }
    },

    async *knowledgeObjects(tenantId) {
      let after: { type: string; id: string } | null = null;
      for (;;) {
        const page = await knowledgeObjects.listAll(tenantId, after, EXPORT_PAGE);
        yield* page;
        if (page.length < EXPORT_PAGE) return;
        const last = page[page.length - 1]!;
        after = { type: last.type, id: last.id };
      }
    },

    async recordExport(actor, counts, complete, meta) {
      await audit.record({
        tenantId: actor.tenantId,
        type: 'portal.export',
        actor: { userId: actor.userId },
        ...meta,
        target: { type: 'tenant', id: actor.tenantId },
        details: { memories: counts.memories, versions: counts.versions, knowledge_objects: counts.knowledgeObjects, complete },
      });
    },
  };
}
