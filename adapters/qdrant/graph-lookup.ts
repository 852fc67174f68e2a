import type { QdrantClient } from '@qdrant/js-client-rest';
import { guarded } from './errors.js';
import { tenantFilter } from './filters.js';
import { companionsPerSeed, graphQueryKeys, graphWeights, type GraphParams } from './graph.js';
import { entityPointId } from './ids.js';
import { PARALLEL_REQUESTS, RETRIEVE_CHUNK, chunks, mapLimit } from './parallel.js';
import type { EntityPayload } from './schema.js';
import { weightedEntityVector, type SparseVector } from './sparse.js';

/**
 * The graph channel's look-ups before the search (graph.ts holds the arithmetic): the query's entities
 * known in the tenant and their frequencies (one `retrieve` of their statistics points), then, per
 * seed, its most frequent companions (a facet over the memories that mention it) and their own
 * frequencies. Every request names the tenant.
 */

export interface GraphLookup {
  client: QdrantClient;
  collection: string;
}

/** The weighted entity query of the graph channel, or null when the query names no entity the tenant knows. */
export async function graphQueryVector(
  q: GraphLookup,
  tenantId: string,
  text: string,
  g: GraphParams,
  tenantDocs: Promise<number>,
): Promise<SparseVector | null> {
  const keys = graphQueryKeys(text);
  if (keys.length === 0) return null;
  const known = await entityFrequencies(q, tenantId, keys);
  const seeds = [...known].map(([key, df]) => ({ key, df })).filter((s) => s.df <= g.maxDocFrequency);
  if (seeds.length === 0) return null;
  const neighbors = new Map<string, { key: string; cooccurrences: number; df: number }[]>();
  const expanded = g.hopWeight > 0 && g.neighborsPerSeed > 0 ? seeds.filter((s) => s.df <= g.maxExpandFrequency) : [];
  if (expanded.length > 0) {
    const facets = await mapLimit(expanded, PARALLEL_REQUESTS, (s) =>
      guarded('graph', () =>
        q.client.facet(q.collection, {
          key: 'entities',
          filter: tenantFilter(tenantId, { entity: s.key }),
          // The seed itself is its own most frequent companion.
          limit: companionsPerSeed(g) + 1,
          exact: false,
        }),
      ),
    );
    const named = facets.map((f, i) =>
      f.hits
        .filter((h): h is { value: string; count: number } => typeof h.value === 'string' && h.value !== expanded[i]!.key)
        .map((h) => ({ key: h.value, cooccurrences: h.count })),
    );
    const unknown = new Set<string>();
    for (const list of named) for (const h of list) if (!known.has(h.key)) unknown.add(h.key);
    const df = new Map([...known, ...(await entityFrequencies(q, tenantId, [...unknown]))]);
    expanded.forEach((s, i) =>
      neighbors.set(
        s.key,
        named[i]!.map((h) => ({ ...h, df: df.get(h.key) ?? 0 })),
      ),
    );
  }
  return weightedEntityVector(graphWeights({ tenantDocs: await tenantDocs, seeds, neighbors }, g));
}

/** Document frequency of each key known in the tenant (absent keys are left out), from the entity statistics points. */
export async function entityFrequencies(q: GraphLookup, tenantId: string, keys: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const ids = [...new Set(keys)].filter((k) => k.length > 0).map((k) => entityPointId(tenantId, k));
  const batches = await mapLimit(chunks(ids, RETRIEVE_CHUNK), PARALLEL_REQUESTS, (batch) =>
    guarded('graph', () => q.client.retrieve(q.collection, { ids: batch, with_payload: true, with_vector: false })),
  );
  for (const records of batches) {
    for (const r of records) {
      const p = r.payload as Partial<EntityPayload> | null | undefined;
      if (p?.kind === 'entity' && p.tenant_id === tenantId && typeof p.entity_key === 'string' && typeof p.df === 'number' && p.df > 0) {
        out.set(p.entity_key, p.df);
      }
    }
  }
  return out;
}
