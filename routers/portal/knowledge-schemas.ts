import { z } from 'zod';
import { OBJECT_STATUSES } from '../../server/services/knowledge/model.js';
import { enrichmentLogOutput, knowledgeListLimit, knowledgeObjectOutput, knowledgeTypeInput } from '../knowledge/schemas.js';

/**
 * Shapes of the portal's knowledge pages (`/api/portal/knowledge`). An object is the Knowledge API's
 * own shape (fields with value, provenance and confidence); only the paging differs: offsets, as the
 * spec's portal lists page, and a log page that says where the next one starts.
 */

/** The largest offset a list accepts: deep offsets walk the index; the portal pages a screen at a time. */
export const PORTAL_KNOWLEDGE_MAX_OFFSET = 100_000;

export const portalKnowledgeTypesOutput = z.object({
  types: z.array(
    z.object({
      type: z.string(),
      builtin: z.boolean().meta({ description: 'One of the structures every tenant has (person, organization, project)' }),
      active_version: z.string().nullable().meta({ description: 'The ACTIVE schema_version; null while the type has only drafts' }),
      versions: z.number().int().meta({ description: 'Structure versions of the type (the built-in one included)' }),
      object_count: z.number().int(),
    }),
  ),
});

export const portalKnowledgeListInput = z.object({
  type: knowledgeTypeInput.shape.type,
  limit: knowledgeListLimit,
  offset: z
    .number()
    .int()
    .min(0)
    .max(PORTAL_KNOWLEDGE_MAX_OFFSET, `offset must be at most ${PORTAL_KNOWLEDGE_MAX_OFFSET}`)
    .default(0)
    .meta({ description: 'Objects to skip, oldest first (default 0)' }),
  status: z.enum(OBJECT_STATUSES).optional().meta({ description: 'Only objects in this status' }),
});

export const portalKnowledgeListOutput = z.object({
  objects: z.array(knowledgeObjectOutput),
  total: z.number().int().meta({ description: 'Objects of the type (and status) in all pages' }),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const portalEnrichmentLogOutput = z.object({
  entries: enrichmentLogOutput,
  next_after: z
    .string()
    .nullable()
    .meta({ description: 'Send as `after` for the next page; null when this page was the last (shorter than limit)' }),
});
