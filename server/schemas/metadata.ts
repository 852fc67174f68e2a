import { z } from 'zod';
import { safeText } from './safe-text.js';

/** Limits of a memory's metadata, whatever the storage profile. */
export const METADATA_KEYS_MAX = 50;
export const METADATA_KEY_MAX = 100;
export const METADATA_VALUE_MAX = 2000;

/**
 * The one rule for metadata keys, the same on both storage profiles so that a memory written on one
 * can live on the other: a key must not start with `$` nor contain `.`. On MongoDB those are an
 * operator prefix and a path separator: such fields cannot be indexed, queried or updated by path
 * without `$getField`/`$setField`, and metadata of only `$ref` and `$id` reads back from the driver as
 * a DBRef instead of the object written. Refused (400) rather than escaped: an escape would be applied
 * on every read and write of both profiles and give stored keys two spellings, for names a client can
 * always choose otherwise.
 */
export function metadataKeyProblem(key: string): string | null {
  if (key.startsWith('$')) return 'must not start with "$"';
  if (key.includes('.')) return 'must not contain "."';
  return null;
}

const metadataKey = safeText()
  .min(1)
  .max(METADATA_KEY_MAX)
  .superRefine((key, ctx) => {
    const problem = metadataKeyProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: key });
  });

/** A memory's metadata as writes take it: a flat object of JSON scalars under the key rule above. */
export const metadataInput = z
  .record(metadataKey, z.union([safeText().max(METADATA_VALUE_MAX), z.number(), z.boolean(), z.null()]), {
    error: (issue) => {
      if (issue.code !== 'invalid_key') return undefined;
      const problem = typeof issue.input === 'string' ? metadataKeyProblem(issue.input) : null;
      return problem ? `metadata key ${problem}` : `metadata keys must be 1-${METADATA_KEY_MAX} characters without control characters`;
    },
  })
  .refine((m) => Object.keys(m).length <= METADATA_KEYS_MAX, `at most ${METADATA_KEYS_MAX} keys`)
  .meta({
    description: `Flat JSON object of string, number, boolean or null values; keys 1-${METADATA_KEY_MAX} characters, not starting with "$", without "."`,
    example: { source: 'chat', turn: 12 },
  });
