import { z } from 'zod';
import { SEARCH_MODES } from '../../server/ports/search-index.js';
import { metadataOutput } from '../../server/schemas/common.js';
import { namespaceSchema } from '../../server/schemas/namespace.js';
import { safeText, visibleText } from '../../server/schemas/safe-text.js';
import { SEARCH_OFFSET_MAX } from '../../server/services/search/search-service.js';

export const SEARCH_K_DEFAULT = 10;
export const SEARCH_K_MAX = 100;

/**
 * `mode=hybrid+graph` arrives as `hybrid graph` when a client does not encode `+` as `%2B`
 * (form encoding turns `+` into a space): both spellings mean the same mode.
 */
const modeSchema = safeText()
  .max(32)
  .transform((v) => v.trim().replace(/ /g, '+'))
  .pipe(z.enum(SEARCH_MODES, { error: (i) => `unknown mode '${String(i.input)}' (allowed: ${SEARCH_MODES.join(', ')})` }))
  .meta({ description: 'Retrieval mode: vector-only, hybrid (default) or hybrid+graph (encode + as %2B; a space is accepted too)' });

export const searchInput = z.object({
  q: z
    .string({ error: 'q is required' })
    .check(visibleText)
    .trim()
    .min(1, 'q must not be empty')
    .max(2000)
    .meta({ description: 'Query text' }),
  k: z
    .number()
    .int()
    .min(1, 'k must be at least 1')
    .max(SEARCH_K_MAX, `k must be at most ${SEARCH_K_MAX}`)
    .default(SEARCH_K_DEFAULT)
    .meta({ description: `Number of results (1-${SEARCH_K_MAX}, default ${SEARCH_K_DEFAULT})` }),
  offset: z
    .number()
    .int()
    .min(0)
    .max(SEARCH_OFFSET_MAX)
    .optional()
    .meta({ description: `Results to skip (pagination, at most ${SEARCH_OFFSET_MAX})` }),
  cursor: safeText()
    .min(1)
    .max(512)
    .optional()
    .meta({ description: 'The next_cursor of the previous page (takes precedence over offset)' }),
  mode: modeSchema.default('hybrid'),
  min_quality: z
    .number()
    .min(0, 'min_quality must be between 0 and 1')
    .max(1, 'min_quality must be between 0 and 1')
    .optional()
    .meta({ description: 'Soft quality threshold: results below it are ranked after those that meet it' }),
  agent_id: safeText()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: "Only this agent's memories (a filter; does not establish identity)" }),
  namespace: namespaceSchema.optional().meta({ description: 'Only this namespace (default: every namespace the key may use)' }),
  include_superseded: z.boolean().optional().meta({ description: 'Also return superseded memories' }),
  include_flagged: z.boolean().optional().meta({ description: 'Also return memories flagged as prompt-injection attempts' }),
});

export const searchResultSchema = z.object({
  memory_id: z.string(),
  title: z.string(),
  content: z.string(),
  score: z.number().meta({ description: 'Fused relevance; higher is better; comparable within one response' }),
  created_at: z.string(),
  tags: z.array(z.string()),
  namespace: z.string(),
  agent_id: z.string().nullable(),
  metadata: metadataOutput,
  injection_flagged: z.boolean().meta({
    description:
      'The injection screen flagged this memory (only returned with include_flagged=true); GET /memories/{id} names the patterns and fields',
  }),
});

export const searchOutput = z.object({
  results: z.array(searchResultSchema),
  total: z.number().int().meta({ description: 'Matching results in this response scope' }),
  offset: z.number().int(),
  k: z.number().int(),
  next_cursor: z
    .string()
    .nullable()
    .meta({
      description: `Pass as \`cursor\` for the next page; null when there is none, or when it would start past offset ${SEARCH_OFFSET_MAX}`,
    }),
});
