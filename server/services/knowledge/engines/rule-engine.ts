import type { EnrichmentEngine } from '../../../ports/enrichment-engine.js';
import type { FieldAnnotation, JsonValue } from '../model.js';
import { deriveCandidates } from './rule-derivations.js';

/**
 * The rules engine: the derivations a structure declares (`x-knowledge.derive`), e.g. an organisation's
 * domain from its website. Offline, always on. Its values are stored as `KG_INFERENCE` (the spec's
 * provenances have no rule kind); the log's `engine: "rule"` tells them apart.
 */
export function createRuleEngine(): EnrichmentEngine {
  return {
    name: 'rule',
    provenance: 'KG_INFERENCE',
    enabledFor: async () => true,
    async propose({ object, definition, openFields }) {
      const annotations: Record<string, FieldAnnotation> = {};
      const tried: Record<string, string[]> = {};
      for (const name of openFields) {
        const derive = definition.fields[name]?.annotation.derive;
        if (!derive) continue;
        annotations[name] = definition.fields[name]!.annotation;
        tried[name] = [`derive:${derive.rule}`];
      }
      const values: Record<string, JsonValue | undefined> = {};
      for (const [name, v] of Object.entries(object.fields)) values[name] = v.value;
      // Fields without a derivation are not this engine's: an empty list logs no miss for them.
      for (const name of openFields) tried[name] ??= [];
      return { candidates: deriveCandidates(values, annotations), tried };
    },
  };
}
