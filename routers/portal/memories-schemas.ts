import { z } from 'zod';
import { timestamp } from '../../server/schemas/common.js';
import { BULK_DELETE_BATCH } from '../../server/services/memories/bulk-delete.js';
import {
  contradictionStatusSchema,
  listMemoriesInput,
  memoryDetailOutput,
  memoryStatusSchema,
  memoryTypeSchema,
  sensitivitySchema,
} from '../memories/schemas.js';

/** One schema per shape of the portal's memory browser (`/api/portal/memories*`). */

export const PORTAL_MEMORY_PREVIEW_CHARS = 200;
export const BULK_DELETE_IDS_MAX = 1000;

const list = listMemoriesInput.shape;

/** The filters of the list, and of a deletion by filter: the same object in both places. */
const filterShape = {
  q: list.q,
  type: list.type,
  sensitivity: list.sensitivity,
  status: list.status,
  contradiction: list.contradiction,
  namespace: list.namespace.meta({ description: 'Only this namespace (default: every namespace)' }),
  created_from: list.from.meta({ description: 'Created at or after (RFC 3339)' }),
  created_to: list.to.meta({ description: 'Created at or before (RFC 3339); not before created_from' }),
};

export const portalMemoryFilter = z.strictObject(filterShape).meta({ description: 'The same filters as the list' });

export const portalListMemoriesInput = z.object({ ...filterShape, limit: list.limit, offset: list.offset });

export const portalMemoryListItem = z.object({
  id: z.string(),
  type: memoryTypeSchema,
  created_at: timestamp,
  updated_at: timestamp,
  sensitivity: sensitivitySchema,
  status: memoryStatusSchema,
  contradiction: contradictionStatusSchema.meta({ description: 'The contradiction state' }),
  title: z.string(),
  tags: z.array(z.string()),
  namespace: z.string(),
  version: z.number().int(),
  dirty: z.boolean().meta({ description: 'Accepted writes are not consolidated yet' }),
  injection_flagged: z.boolean().meta({ description: 'The injection screen flagged this memory' }),
  preview: z.string().meta({ description: `The content's first ${PORTAL_MEMORY_PREVIEW_CHARS} characters` }),
});

export const portalListMemoriesOutput = z.object({
  memories: z.array(portalMemoryListItem),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const portalBulkDeleteInput = z
  .strictObject({
    ids: z
      .array(z.uuid())
      .min(1)
      .max(BULK_DELETE_IDS_MAX, `at most ${BULK_DELETE_IDS_MAX} ids per call`)
      .optional()
      .meta({ description: `Memory ids (1-${BULK_DELETE_IDS_MAX}); ids of another tenant are not found and not counted` }),
    filter: portalMemoryFilter.optional(),
    all: z.literal(true).optional().meta({ description: 'Every memory of the tenant (must be explicit)' }),
    preview: z.boolean().default(false).meta({ description: 'Count what would be deleted; change nothing' }),
  })
  .meta({ description: 'Exactly one of ids, filter or all' });

export const portalBulkDeleteOutput = z.union([
  z.object({ would_delete: z.number().int().meta({ description: 'Preview: how many memories the selector selects now' }) }),
  z.object({
    deleted: z
      .number()
      .int()
      .meta({ description: `Deleted by this call (at most ${BULK_DELETE_BATCH})` }),
    has_more: z.boolean().meta({ description: 'More memories match: call again' }),
  }),
]);

/** The detail: the REST memory detail (content, metadata, flags, contradiction info) as is. */
export const portalMemoryDetailOutput = memoryDetailOutput;
