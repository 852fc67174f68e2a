import type { EnrichmentEngine } from '../../../ports/enrichment-engine.js';
import type { KnowledgeObjectStore } from '../../../ports/knowledge.js';
import type { MemoryStore } from '../../../ports/memories.js';
import type { SearchIndex } from '../../../ports/search-index.js';
import { normaliseName } from '../../../text/fact-vocabulary.js';
import type { Candidate } from '../model.js';
import type { Fact } from '../../../text/facts.js';
import { extractMemoryFacts, factCandidates, factFieldsOf, locationFromEmployer, type MemoryText } from './kg-facts.js';

/** Memories read per object: the tenant's most relevant mentions of its name. */
export const KG_MEMORY_LIMIT = 50;
/**
 * The name is looked up by keyword alone: a fact only counts when a memory spells the name (or, for a
 * person, a first or last name) out, which is what the keyword channel finds; the graph channel cost
 * ~9× the time (bench:knowledge profile) and added memories that could not match.
 */
export const KG_SEARCH_MODE = 'hybrid' as const;
/**
 * Memories whose facts are remembered, per process. A memory's content changes only with its version,
 * so (id, version) names the text exactly; objects sharing a name, or enriched again, read the same
 * memories, and extraction is most of a run's cost (bench:knowledge profile). ~50k memories' facts
 * take a few MB (most memories state none and share one empty list).
 */
export const KG_FACTS_MEMO_ENTRIES = 50_000;
/** Organisations read for a person's employer (several objects may share a name). */
const ORGANIZATION_LIMIT = 5;

export interface KgEngineDeps {
  /** The tenant's memories that mention a name (the keyword channel of its own search index). */
  index: Pick<SearchIndex, 'search'>;
  memories: Pick<MemoryStore, 'getMany'>;
  objects: Pick<KnowledgeObjectStore, 'findByIdentity'>;
}

/**
 * The knowledge-graph engine (`KG_INFERENCE`), offline and always on: facts stated in the tenant's own
 * memories about the object (resolved by its identity, the name), and relations to the tenant's other
 * knowledge objects (`relation_traversal`: a person's location from their employer's headquarters).
 * Its `source_refs` name the memories (`memory:<id>`) and objects (`knowledge:<id>`) used. Only what a
 * default search returns counts: consolidated memories, superseded versions and injection-flagged ones left out.
 */
export function createKgEngine(deps: KgEngineDeps): EnrichmentEngine {
  const memo = new Map<string, Fact[]>();
  const none: Fact[] = [];
  const factsOf = (memory: MemoryText): Fact[] => {
    const key = `${memory.id}@${memory.version ?? ''}`;
    let facts = memory.version === undefined ? undefined : memo.get(key);
    if (facts === undefined) {
      const found = extractMemoryFacts(memory);
      facts = found.length === 0 ? none : found;
      if (memory.version !== undefined) {
        if (memo.size >= KG_FACTS_MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
        memo.set(key, facts);
      }
    }
    return facts;
  };

  async function mentioning(tenantId: string, name: string, namespaces: readonly string[] | null): Promise<MemoryText[]> {
    const found = await deps.index.search(tenantId, {
      text: name,
      vector: null,
      mode: KG_SEARCH_MODE,
      limit: KG_MEMORY_LIMIT,
      filters: { namespaces: namespaces === null ? null : [...namespaces] },
    });
    if (found.hits.length === 0) return [];
    const records = await deps.memories.getMany(
      tenantId,
      found.hits.map((h) => h.memoryId),
    );
    return records.map((m) => ({ id: m.id, version: m.version, content: m.content, createdAt: m.createdAt }));
  }

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
      const memories = await mentioning(tenantId, name, namespaces);
      const candidates: Candidate[] = factCandidates(object.type, name, memories, { factsOf }).filter((c) => open.has(c.field));
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
