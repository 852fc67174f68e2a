/**
 * How `UsageStore.consume` on MongoDB reads one attempt at counting. An attempt is a conditional
 * `findOneAndUpdate` on the period's document (`_id` tenant:period) whose filter also says "the counter
 * is below the limit"; the first attempt upserts so the first request of a period creates the document.
 *
 * An upsert whose filter matches nothing inserts, and the insert hits the unique `_id` when the
 * document exists after all. That happens in two cases the error alone cannot tell apart: the
 * document is at the limit (its counter failed the filter), or a concurrent first request of the
 * period inserted it a moment ago (MongoDB retries such a race itself only when the filter is pure
 * equality on the key, which a limited counter's is not). Reading it as "limit reached" answered a
 * false 429 in the second case; the attempt is repeated without upsert instead, which the document
 * now existing makes definitive.
 */
export type ConsumeOutcome =
  /** The filter matched (or the upsert inserted): the counter's new value. */
  | { kind: 'counted'; value: number }
  /** No document matched and none was inserted (only possible without upsert). */
  | { kind: 'not_matched' }
  /** The upsert tried to insert a document whose `_id` exists (E11000). */
  | { kind: 'duplicate_key' };

export type ConsumeStep =
  /** The answer of `consume`: the new value, or null when the limit does not allow the increment. */
  | { kind: 'answer'; value: number | null }
  /** Try again, now as a plain update of the existing document. */
  | { kind: 'retry'; upsert: false }
  /** A failure the attempt cannot explain: raise the driver's error. */
  | { kind: 'fail' };

/** What to do after an attempt made with or without upsert ended with `outcome`. */
export function nextConsumeStep(upserted: boolean, outcome: ConsumeOutcome): ConsumeStep {
  switch (outcome.kind) {
    case 'counted':
      return { kind: 'answer', value: outcome.value };
    case 'duplicate_key':
      // Without upsert nothing is inserted, so a duplicate key there is not this race.
      return upserted ? { kind: 'retry', upsert: false } : { kind: 'fail' };
    case 'not_matched':
      // The document exists (the upsert's duplicate key proved it) and its counter is at the limit.
      // An upsert never ends here; should a driver report it so, the plain update decides.
      return upserted ? { kind: 'retry', upsert: false } : { kind: 'answer', value: null };
  }
}
