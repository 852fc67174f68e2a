import { z } from 'zod';
import {
  CONTRADICTION_POLICIES,
  CONTRADICTION_STATUSES,
  MEMORY_STATUSES,
  MEMORY_TYPES,
  SCREENED_FIELDS,
  SENSITIVITIES,
  VERSION_CHANGES,
} from '../../server/ports/memories.js';
import { metadataOutput, textIdInput, timestamp } from '../../server/schemas/common.js';
import { metadataInput } from '../../server/schemas/metadata.js';
import { namespaceSchema } from '../../server/schemas/namespace.js';
import { safeText, visibleText } from '../../server/schemas/safe-text.js';

/** One schema per shape of the memory and usage routes, shared by tRPC, REST and the OpenAPI document. */

export const MEMORY_LIST_DEFAULT_LIMIT = 20;
export const MEMORY_LIST_MAX_LIMIT = 100;
export const MEMORY_TITLE_MAX = 500;
export const MEMORY_TAGS_MAX = 50;
export const MEMORY_TAG_MAX = 100;

const enumOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: (issue) => `unknown ${what} '${String(issue.input)}' (allowed: ${values.join(', ')})` });

export const memoryTypeSchema = enumOf(MEMORY_TYPES, 'type').meta({ description: 'Kind of memory (default episodic)' });
export const sensitivitySchema = enumOf(SENSITIVITIES, 'sensitivity').meta({ description: 'Sensitivity classification' });
export const memoryStatusSchema = enumOf(MEMORY_STATUSES, 'status').meta({ description: 'Lifecycle state' });
export const contradictionStatusSchema = enumOf(CONTRADICTION_STATUSES, 'contradiction status').meta({
  description: 'Conflict resolution state',
});
export const contradictionPolicySchema = enumOf(CONTRADICTION_POLICIES, 'contradiction policy').meta({
  description: 'NEWER_WINS: an older conflicting memory is superseded; FLAG: both are flagged for review',
});

export const memoryIdInput = textIdInput('The memory id (memory_id)');

/**
 * Body of POST /memories and PUT /memories/{id} (a full object). Unknown fields are refused (400)
 * rather than ignored, so a misspelt `sensitivty` can never silently lose the writer's choice.
 * `content` is checked against MEMORY_CONTENT_MAX_BYTES by the service (413).
 */
const memoryBody = {
  title: safeText().max(MEMORY_TITLE_MAX).optional().meta({ description: 'Short display title' }),
  content: z
    .string({ error: (issue) => (issue.input === undefined ? 'content is required' : 'content must be a string') })
    .check(visibleText)
    .meta({ description: 'Memory body' }),
  tags: z.array(safeText().trim().min(1).max(MEMORY_TAG_MAX)).max(MEMORY_TAGS_MAX).optional().meta({ description: 'Searchable labels' }),
  sensitivity: sensitivitySchema
    .optional()
    .meta({ description: 'The writer’s classification; when absent it is detected. Never lowered by detection.' }),
  type: memoryTypeSchema.optional(),
  namespace: namespaceSchema.optional().meta({ description: 'Namespace (default `default`); a memory never changes namespace' }),
  agent_id: safeText().min(1).max(200).nullable().optional().meta({ description: 'The agent that wrote it (a filter, not an identity)' }),
  metadata: metadataInput.optional(),
};

export const createMemoryInput = z.strictObject(memoryBody);
export const updateMemoryInput = z.strictObject({ ...memoryIdInput.shape, ...memoryBody });

export const rollbackInput = z.strictObject({
  ...memoryIdInput.shape,
  target_version: z.number().int().min(1).meta({ description: 'The version to make current again' }),
});

export const versionInput = z.object({
  ...memoryIdInput.shape,
  version: z.number().int().min(1).meta({ description: 'Version number' }),
});

const rfc3339 = z.iso
  .datetime({ offset: true, error: 'must be an RFC 3339 timestamp, e.g. 2025-01-31T12:00:00Z' })
  .transform((v) => new Date(v).toISOString());

export const listMemoriesInput = z.object({
  q: safeText().trim().min(1).max(200).optional().meta({ description: 'Case-insensitive text contained in the title or content' }),
  type: memoryTypeSchema.optional(),
  sensitivity: sensitivitySchema.optional(),
  status: memoryStatusSchema
    .optional()
    .meta({ description: 'Lifecycle state; `archived` also lists duplicates merged into another memory' }),
  contradiction: contradictionStatusSchema.optional(),
  namespace: namespaceSchema.optional().meta({ description: 'Only this namespace (default: every namespace the key may use)' }),
  from: rfc3339.optional().meta({ description: 'Created at or after (RFC 3339)' }),
  to: rfc3339.optional().meta({ description: 'Created at or before (RFC 3339)' }),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MEMORY_LIST_MAX_LIMIT, `limit must be at most ${MEMORY_LIST_MAX_LIMIT}`)
    .default(MEMORY_LIST_DEFAULT_LIMIT)
    .meta({ description: `Page size, 1-${MEMORY_LIST_MAX_LIMIT} (default ${MEMORY_LIST_DEFAULT_LIMIT})` }),
  offset: z.number().int().min(0).default(0).meta({ description: 'Results to skip' }),
});

export const writeReceiptOutput = z.object({
  memory_id: z.string(),
  status: z.literal('queued').meta({ description: 'The write is durable and queued for consolidation' }),
  version: z.number().int().meta({ description: 'The version this write becomes' }),
  pending_count: z.number().int().meta({ description: 'Writes of this memory not yet consolidated' }),
});

export const rollbackOutput = writeReceiptOutput.extend({
  rolled_back_to: z.number().int().meta({ description: 'The version whose content the new version repeats' }),
});

const injectionPattern = z.object({
  id: z.string().meta({ description: 'Stable pattern id, e.g. instruction-override' }),
  category: z.string(),
  field: z
    .enum(SCREENED_FIELDS)
    .optional()
    .meta({ description: 'The part of the memory it was found in; `across-fields` when only the parts read together match' }),
  evidence: z
    .string()
    .meta({ description: 'Short excerpt of what matched (a tag or metadata finding names it first, e.g. `[metadata.note]`)' }),
  weight: z.number(),
});

export const memoryDetailOutput = z.object({
  memory_id: z.string(),
  tenant_id: z.string(),
  namespace: z.string(),
  agent_id: z.string().nullable(),
  type: memoryTypeSchema,
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  metadata: metadataOutput,
  sensitivity: sensitivitySchema.meta({
    description: 'Effective classification; `high` until a memory without a writer choice is classified',
  }),
  sensitivity_reasons: z.array(z.string()).meta({ description: 'What detection found, e.g. financial:payment-card' }),
  status: memoryStatusSchema,
  version: z.number().int().meta({ description: 'Current version (of the last accepted write)' }),
  consolidated_version: z.number().int().meta({ description: 'Last version the pipeline committed (0 before the first)' }),
  dirty: z.boolean().meta({ description: 'Accepted writes are not consolidated yet' }),
  pending_count: z.number().int(),
  contradiction_status: contradictionStatusSchema,
  contradiction_policy: contradictionPolicySchema.meta({
    description: 'The policy that decided the contradiction status (the tenant policy when clear)',
  }),
  conflicts_with: z.array(z.string()).meta({ description: 'Memories this one contradicts' }),
  superseded_by: z.string().nullable(),
  merged_into: z.string().nullable().meta({ description: 'Set when this memory was a duplicate merged into another one' }),
  injection_flagged: z.boolean(),
  injection_patterns: z.array(injectionPattern),
  injection_score: z.number().min(0).max(1),
  quality: z.number().min(0).max(1),
  created_at: timestamp,
  updated_at: timestamp,
});

export const listMemoriesOutput = z.object({
  memories: z.array(memoryDetailOutput),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const memoryVersionOutput = z.object({
  memory_id: z.string(),
  version: z.number().int(),
  change: enumOf(VERSION_CHANGES, 'change'),
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  type: memoryTypeSchema,
  agent_id: z.string().nullable(),
  metadata: metadataOutput,
  sensitivity: sensitivitySchema,
  status: memoryStatusSchema,
  rolled_back_to: z.number().int().nullable(),
  created_at: timestamp,
});

export const listVersionsOutput = z.object({ memory_id: z.string(), versions: z.array(memoryVersionOutput) });

export const deleteMemoryOutput = z.object({ memory_id: z.string(), deleted: z.literal(true) });

export const memorySettingsOutput = z.object({
  contradiction_policy: contradictionPolicySchema,
  updated_at: timestamp.nullable(),
});

export const updateMemorySettingsInput = z.strictObject({ contradiction_policy: contradictionPolicySchema });

const limit = z.number().int().nullable();

/** Period counters are kept per tenant: a namespace-restricted key gets null, never another namespace's activity. */
const periodCounter = z.number().int().nullable().meta({ description: 'This period, tenant-wide; null for a namespace-restricted key' });

export const usageOutput = z.object({
  memory_count: z.number().int(),
  storage_used_bytes: z.number().int(),
  writes_current_period: periodCounter,
  reads_current_period: periodCounter,
  searches_current_period: periodCounter,
  namespaces: z
    .array(z.string())
    .nullable()
    .meta({ description: "The namespaces the counts cover (a namespace-restricted key's); null: the whole tenant" }),
  plan: z.string(),
  pending_writes: z.number().int().meta({ description: 'Accepted writes not yet consolidated' }),
  period: z.string().meta({ description: 'The current period (calendar month, UTC)', example: '2025-01' }),
  period_ends_at: timestamp,
  limits: z
    .object({ writes: limit, reads: limit, searches: limit, storage_bytes: limit, memories: limit })
    .meta({ description: 'Plan limits per period; null = unlimited' }),
});
