import type { EnrichmentEngine } from '../../../ports/enrichment-engine.js';
import type { KnowledgeObjectStore } from '../../../ports/knowledge.js';
import { normaliseName } from '../../../text/fact-vocabulary.js';
import type { Candidate } from '../model.js';
import type { Fact } from '../../../text/facts.js';
import { createMemoryMentions, type MemoryMentionDeps } from './memory-mentions.js';
import type { MemoryFactReader } from '../../../ports/memory-fact-reader.js';
import { inThreadFactReader } from './in-thread-fact-reader.js';
import { factCandidates, factFieldsOf, locationFromEmployer, type MemoryText } from './kg-facts.js';

/** Memories read per object: the tenant's most relevant mentions of its name. */
export const KG_MEMORY_LIMIT = 50;
/**
 * Memories whose facts are remembered, per process. A memory's content changes only with its version,
 * so (id, version) names the text exactly; objects sharing a name, or enriched again, read the same
 * memories, and extraction is most of a run's cost (bench:knowledge profile). ~50k memories' facts
 * take a few MB (most memories state none and share one empty list).
 */
export const KG_FACTS_MEMO_ENTRIES = 50_000;
/** Organisations read for a person's employer (several objects may share a name). */
const ORGANIZATION_LIMIT = 5;

export interface KgEngineDeps extends MemoryMentionDeps {
  objects: Pick<KnowledgeObjectStore, 'findByIdentity'>;
  /** Where memory texts are read for facts; default in line. */
  facts?: MemoryFactReader;
}

/**
 * The knowledge-graph engine (`KG_INFERENCE`), offline and always on: facts stated in the tenant's own
 * memories about the object (resolved by its identity, the name), and relations to the tenant's other
 * knowledge objects (`relation_traversal`: a person's location from their employer's headquarters).
 * Its `source_refs` name the memories (`memory:<id>`) and objects (`knowledge:<id>`) used; the memories
 * are those `memory-mentions.ts` finds.
 */
export function createKgEngine(deps: KgEngineDeps): EnrichmentEngine {
  const reader = deps.facts ?? inThreadFactReader;
  const memo = new Map<string, Fact[]>();
  const none: Fact[] = [];
  const keyOf = (memory: MemoryText) => `${memory.id}@${memory.version}`;
  /** The memories' facts by id: remembered ones, the rest read in one request. */
  async function factsOf(memories: readonly MemoryText[]): Promise<Map<string, Fact[]>> {
    const out = new Map<string, Fact[]>();
    const missing: MemoryText[] = [];
    for (const m of memories) {
      const known = m.version === undefined ? undefined : memo.get(keyOf(m));
      if (known) out.set(m.id, known);
      else missing.push(m);
    }
    const read = await reader.read(missing.map((m) => m.content));
    missing.forEach((m, i) => {
      const facts = read[i]!.length === 0 ? none : read[i]!;
      out.set(m.id, facts);
      if (m.version === undefined) return;
      if (memo.size >= KG_FACTS_MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
      memo.set(keyOf(m), facts);
    });
    return out;
  }
  const mentioning = createMemoryMentions(deps);

  return {
    name: 'kg',
    provenance: 'KG_INFERENCE',
    enabledFor: async () => true,
    async propose({ tenantId, object, definition, openFields, namespaces }) {
      // The object's identity: the built-in types have one identity field, its name.
      const name = object.fields[definition.identityFields[0] ?? 'name']?.value;
      if (typeof name !== 'string' || name.trim() === '') return { candidates: [] };
      const open = new Set(openFields);
      const mapped = factFieldsOf(object.type);
      if (mapped.size === 0 && object.type !== 'person')
        return { candidates: [], tried: Object.fromEntries(openFields.map((f) => [f, []])) };
      const memories: MemoryText[] = await mentioning(tenantId, name, namespaces, KG_MEMORY_LIMIT);
      const facts = await factsOf(memories);
      const candidates: Candidate[] = factCandidates(object.type, name, memories, { factsOf: (m) => facts.get(m.id) ?? none }).filter((c) =>
        open.has(c.field),
      );
      const tried: Record<string, string[]> = {};
      for (const field of openFields) tried[field] = mapped.has(field) ? ['stated_fact'] : [];
      if (object.type === 'person' && open.has('location')) {
        tried.location = [...(tried.location ?? []), 'relation_traversal'];
        const employer = employerOf(object, candidates);
        if (employer) {
          const organizations = await deps.objects.findByIdentity(tenantId, 'organization', normaliseName(employer), ORGANIZATION_LIMIT);
          candidates.push(...locationFromEmployer(employer, organizations));
        }
      }
      return { candidates, tried };
    },
  };
}

/** The employer the traversal follows: the stored value, else the most confident stated one. */
function employerOf(object: { fields: Record<string, { value: unknown } | undefined> }, candidates: readonly Candidate[]): string | null {
  const stored = object.fields.employer?.value;
  if (typeof stored === 'string' && stored.trim() !== '') return stored;
  const best = candidates.filter((c) => c.field === 'employer').sort((a, b) => b.confidence - a.confidence)[0];
  return typeof best?.value === 'string' ? best.value : null;
}
