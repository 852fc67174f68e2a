import { z } from 'zod';
import { timestamp } from '../../server/schemas/common.js';
import { safeText } from '../../server/schemas/safe-text.js';
import { RETENTION_MAX_DAYS } from '../../server/services/retention.js';
import { auditListInput } from '../auth/schemas.js';
import { knowledgeObjectOutput } from '../knowledge/schemas.js';
import { memoryDetailOutput, memoryVersionOutput } from '../memories/schemas.js';

/** Shapes of the portal's privileged and audit routes (`/api/portal/audit`, `retention`, `export`). */

export const portalAuditInput = auditListInput.extend({
  type: safeText()
    .regex(/^[a-z][a-z_]*(\.[a-z_]*)?$/, 'an event type (auth.login) or an area prefix ending in "." (auth.)')
    .max(64)
    .optional()
    .meta({ description: 'Event type, exact (`auth.login`) or every type of an area when it ends in "." (`auth.`)' }),
  actor: safeText().min(1).max(128).optional().meta({ description: 'A user id or an API key id' }),
  from: timestamp.optional().meta({ description: 'Events at or after this time' }),
  to: timestamp.optional().meta({ description: 'Events at or before this time' }),
});

const days = z
  .number()
  .int()
  .min(1)
  .max(RETENTION_MAX_DAYS)
  .nullable()
  .meta({ description: `Days (1–${RETENTION_MAX_DAYS}), or null to keep forever` });

export const retentionInput = z.object({
  deleted_days: days.meta({
    description: `Days a deleted item is kept (1–${RETENTION_MAX_DAYS}) or null. Deletions here are immediate and permanent, so nothing waits on it`,
  }),
  superseded_days: days.meta({
    description: `Days a memory version is kept after a newer version replaced it (1–${RETENTION_MAX_DAYS}), or null to keep every version`,
  }),
});

export const retentionOutput = z.object({
  deleted_days: z.number().int().nullable(),
  superseded_days: z.number().int().nullable(),
  updated_at: timestamp.nullable().meta({ description: 'Last change; null when never set (everything kept)' }),
  updated_by: z.string().nullable().meta({ description: 'The user who made the last change' }),
});

export const exportMemory = memoryDetailOutput.extend({
  versions: z.array(memoryVersionOutput).meta({ description: 'Every stored version, oldest first (retention may have purged old ones)' }),
});

export const exportKnowledgeObject = knowledgeObjectOutput.omit({ missing_fields: true });

export const exportCounts = z.object({
  memories: z.number().int(),
  versions: z.number().int(),
  knowledge_objects: z.number().int(),
});

/** The export document. Streamed on the REST path, in this key order, so a reader can parse it as it arrives. */
export const exportDocument = z
  .object({
    format: z.literal('tenant-memory-export'),
    format_version: z.literal(1),
    tenant_id: z.uuid(),
    exported_at: timestamp,
    memories: z.array(exportMemory).meta({ description: 'Every memory, merged duplicates included, newest first' }),
    knowledge_objects: z
      .array(exportKnowledgeObject)
      .meta({ description: 'Every knowledge object with its fields’ provenance, by type then id' }),
    counts: exportCounts,
  })
  .meta({ description: 'Everything the tenant stored: memories with their versions, and knowledge objects' });
