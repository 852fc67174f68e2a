import type { Migration } from './migration.js';

/**
 * The memory browser's filters (`GET /api/portal/memories`, `GET /memories`, bulk deletion by filter)
 * at 100k memories a tenant: one index per equality filter, newest first, holding only live
 * (non-merged) rows as every list but `status=archived` reads. Counting and a page then read one index
 * range instead of the tenant's rows: at 100k memories a filtered list with its total went from
 * 40-75 ms to ~1 ms, the unfiltered total from 53 to 27 ms; a bulk insert of 100k rows costs ~50%
 * more (figures: docs/performance.md#memory-list-indexes).
 */
export const memoryListIndexesMigration: Migration = {
  id: 64,
  name: 'memory_list_indexes',
  up: `
    CREATE INDEX memories_live_created ON memories (tenant_id, created_at DESC, id DESC) WHERE merged_into IS NULL;
    CREATE INDEX memories_live_sensitivity ON memories (tenant_id, sensitivity, created_at DESC, id DESC) WHERE merged_into IS NULL;
    CREATE INDEX memories_live_status ON memories (tenant_id, status, created_at DESC, id DESC) WHERE merged_into IS NULL;
    CREATE INDEX memories_live_contradiction ON memories (tenant_id, contradiction_status, created_at DESC, id DESC)
      WHERE merged_into IS NULL;
    CREATE INDEX memories_live_type ON memories (tenant_id, type, created_at DESC, id DESC) WHERE merged_into IS NULL;
    CREATE INDEX memories_live_namespace ON memories (tenant_id, namespace, created_at DESC, id DESC) WHERE merged_into IS NULL;
  `,
};
