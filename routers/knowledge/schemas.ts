import { z } from 'zod';
import { timestamp } from '../../server/schemas/common.js';
import { safeText } from '../../server/schemas/safe-text.js';
import {
  ENRICHMENT_OUTCOMES,
  OBJECT_STATUSES,
  PROVENANCES,
  STRUCTURE_STATUSES,
  type JsonValue,
} from '../../server/services/knowledge/model.js';
import { ENRICHMENT_LOG_MAX_LIMIT } from '../../server/services/knowledge/knowledge-service.js';
import { MAX_FIELDS, MAX_FIELD_NAME_LENGTH, MAX_VERSION_LENGTH } from '../../server/services/knowledge/structure-definition.js';
import { migrationPlanSchema } from '../../server/services/knowledge/structure-migration.js';

/**
 * One schema per shape of the Knowledge API (`/v1/knowledge`), shared by tRPC, REST and the OpenAPI
 * document. Field values are plain JSON here: the structure the object is bound to decides what each
 * may hold, and the service answers 400 naming every field that does not fit.
 */

export const KNOWLEDGE_LIST_DEFAULT_LIMIT = 20;
export const KNOWLEDGE_LIST_MAX_LIMIT = 100;

const enumOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: (issue) => `unknown ${what} '${String(issue.input)}' (allowed: ${values.join(', ')})` });

const json = z.json() as z.ZodType<JsonValue>;

/** `{type}`: a structure's type name; one that does not exist answers 404. */
const type = safeText().min(1).max(64).meta({ description: 'Knowledge type, e.g. person, organization, project', example: 'person' });
const objectId = safeText().min(1).max(128).meta({ description: 'Knowledge object id' });
const fieldName = safeText().min(1).max(MAX_FIELD_NAME_LENGTH);

export const knowledgeTypeInput = z.object({ type });
export const knowledgeObjectInput = z.object({ type, id: objectId });

const fieldsInput = z
  .record(fieldName, json)
  .refine((f) => Object.keys(f).length <= MAX_FIELDS, `at most ${MAX_FIELDS} fields`)
  .meta({ description: 'Field name → plain value', example: { name: 'Dana Whitfield', employer: 'Northwind' } });
const knownNoneInput = z
  .array(fieldName)
  .max(MAX_FIELDS)
  .meta({ description: 'Fields known to have no value: they count as filled and are never enriched' });

export const createObjectInput = z.strictObject({
  type,
  fields: fieldsInput,
  do_not_enrich: z.boolean().optional().meta({ description: 'Never enrich this object (default false)' }),
  known_none: knownNoneInput.optional(),
});

export const patchObjectInput = z.strictObject({
  type,
  id: objectId,
  fields: fieldsInput
    .optional()
    .meta({ description: 'Merged into the object: an omitted field is kept, null clears it, an array replaces' }),
  do_not_enrich: z.boolean().optional(),
  known_none: knownNoneInput.optional(),
});

/** A page size of the object lists (the Knowledge API's and the portal's). */
export const knowledgeListLimit = z
  .number()
  .int()
  .min(1)
  .max(KNOWLEDGE_LIST_MAX_LIMIT, `limit must be at most ${KNOWLEDGE_LIST_MAX_LIMIT}`)
  .default(KNOWLEDGE_LIST_DEFAULT_LIMIT)
  .meta({ description: `Page size, 1-${KNOWLEDGE_LIST_MAX_LIMIT} (default ${KNOWLEDGE_LIST_DEFAULT_LIMIT})` });

export const listObjectsInput = z.object({
  type,
  limit: knowledgeListLimit,
  completeness_lt: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .meta({ description: 'Only objects whose completeness_score is below this (then listed least complete first)' }),
  status: enumOf(OBJECT_STATUSES, 'status').optional(),
  cursor: safeText().min(1).max(512).optional().meta({ description: 'next_cursor of the previous page' }),
});

const fieldValueOutput = z.object({
  value: json,
  confidence: z.number().meta({ description: 'Confidence in the value, 0-1 (1 for values clients wrote)' }),
  provenance: z.enum(PROVENANCES),
  updated_at: timestamp,
  known_none: z.literal(true).optional().meta({ description: 'The client stated there is no value' }),
});

const missingFieldOutput = z.object({
  field: z.string(),
  required: z.boolean(),
  weight: z.number(),
  share: z.number().meta({ description: 'Share of the completeness score this field would add' }),
});

export const knowledgeObjectOutput = z.object({
  id: z.string(),
  tenant_id: z.string(),
  ks_id: z.string().meta({ description: 'Id of the structure (schema) the object is bound to' }),
  ks_type: z.string(),
  schema_version: z.string(),
  status: z.enum(OBJECT_STATUSES),
  completeness_score: z.number().meta({ description: 'Weighted share of filled fields, 0-1' }),
  do_not_enrich: z.boolean(),
  fields: z.record(z.string(), fieldValueOutput),
  missing_fields: z.array(missingFieldOutput).meta({ description: 'Empty fields, what to fill next first' }),
  created_at: timestamp,
  updated_at: timestamp,
});

export const listObjectsOutput = z.object({
  objects: z.array(knowledgeObjectOutput),
  total: z.number().int(),
  limit: z.number().int(),
  next_cursor: z.string().nullable(),
});

export const deleteObjectOutput = z.object({ id: z.string(), deleted: z.literal(true) });

export const enrichOutput = z.object({
  id: z.string(),
  status: z.literal('ENRICHING').meta({ description: 'A run holds the object; its status settles when the run ends' }),
});

/**
 * A page of the log, keyset-paged: `after` is the last entry id of the previous page, so entries
 * written meanwhile never shift a page (an offset would). The answer stays a plain array, oldest first;
 * a page shorter than `limit` is the last.
 */
export const enrichmentLogInput = z.object({
  type,
  id: objectId,
  limit: z
    .number()
    .int()
    .min(1, 'limit must be at least 1')
    .max(ENRICHMENT_LOG_MAX_LIMIT, `limit must be at most ${ENRICHMENT_LOG_MAX_LIMIT}`)
    .default(ENRICHMENT_LOG_MAX_LIMIT)
    .meta({ description: `Page size, 1-${ENRICHMENT_LOG_MAX_LIMIT} (default ${ENRICHMENT_LOG_MAX_LIMIT})`, example: 100 }),
  // The description goes on the string itself, not its optional wrapper, so the OpenAPI document shows it.
  after: safeText()
    .min(1)
    .max(128)
    .meta({
      description: "Id of the last entry of the previous page: only entries after it (404 if it is not an entry of this object's log)",
      example: '0195f3c2-7a10-7c3e-9d2a-5b8e4f1a6c01',
    })
    .optional(),
  run_id: safeText()
    .min(1)
    .max(128)
    .meta({ description: "Only this enrichment run's entries (an entry's run_id)", example: '0195f3c2-79f0-7a41-8c55-0d6e2b9f3a77' })
    .optional(),
});

export const enrichmentLogOutput = z.array(
  z.object({
    id: z.string(),
    tenant_id: z.string(),
    ko_id: z.string(),
    run_id: z.string(),
    engine: z.string().meta({ description: 'rule, kg, llm, web, or migration' }),
    field: z.string(),
    strategy: z.string(),
    candidate_value: json,
    confidence: z.number().nullable(),
    outcome: z.enum(ENRICHMENT_OUTCOMES),
    source_refs: z.array(z.string()),
    previous_value: json,
    created_at: timestamp,
  }),
);

export const structureOutput = z.object({
  ks_id: z.string(),
  ks_type: z.string(),
  schema_version: z.string(),
  status: z.enum(STRUCTURE_STATUSES),
  builtin: z.boolean(),
  schema: z.record(z.string(), json),
  created_at: timestamp,
  activated_at: timestamp.nullable(),
});

export const listStructuresOutput = z.object({ structures: z.array(structureOutput) });

export const publishStructureInput = z.strictObject({
  type,
  schema_version: safeText().min(1).max(MAX_VERSION_LENGTH).meta({ example: '1.1.0' }),
  schema: z
    .record(safeText().max(200), json)
    .meta({ description: 'JSON Schema object (type object, properties, required) with x-knowledge annotations' }),
});

export const activateStructureInput = z.strictObject({
  type,
  version: safeText().min(1).max(MAX_VERSION_LENGTH),
  migration: migrationPlanSchema.optional(),
});

const webEnrichment = z.boolean().meta({
  description:
    "Let the web engine (WEB_INFERENCE) fetch each object's own website and read its schema.org JSON-LD and OpenGraph data (default false)",
  example: true,
});

/** `/settings/knowledge`: the tenant's opt-ins to engines that reach outside the deployment. */
export const knowledgeSettingsOutput = z.object({ web_enrichment: webEnrichment, updated_at: timestamp.nullable() });

/** Strict: a misspelt setting is a 400, never a silent no-op that leaves the engine off. */
export const updateKnowledgeSettingsInput = z.strictObject({ web_enrichment: webEnrichment });
