import type { Embedder } from '../../ports/embedder.js';
import type { MemoryOrderKey, MemoryRecord, MemoryStore } from '../../ports/memories.js';
import type { ExtractedEntity, IndexedMemory, SearchIndex } from '../../ports/search-index.js';
import type { TenantStore } from '../../ports/tenants.js';

export interface ReindexDeps {
  tenants: Pick<TenantStore, 'listIds'>;
  memories: Pick<MemoryStore, 'list' | 'listAfter' | 'getVersion'>;
  index: Pick<SearchIndex, 'applyChanges'>;
  embedder: Embedder;
  extractEntities: (text: string) => ExtractedEntity[];
  /** Called after each batch with the memories indexed so far and the total known so far. */
  onProgress?: (done: number, total: number) => void;
  batchSize?: number;
}

export interface ReindexResult {
  tenants: number;
  memories: number;
}

const textOf = (m: { title: string; content: string }) => (m.title ? `${m.title}\n${m.content}` : m.content);

/**
 * `tenant-memory reindex`: rebuilds every memory's index rows (vector, keyword text, entities) from
 * the memory store, the source of truth, with the configured embedder. Only consolidated content is
 * indexed (a memory with a pending write keeps its last committed version until the pipeline runs),
 * and duplicates merged into another memory stay out, as consolidation leaves them.
 *
 * A tenant's memories are read in keyset pages (`listAfter`: each page one index range, where an
 * offset would have the store skip ever more memories) and each page is one index write.
 */
export async function reindexAll(deps: ReindexDeps): Promise<ReindexResult> {
  const batchSize = deps.batchSize ?? 64;
  let done = 0;
  let total = 0;
  let tenantCount = 0;
  for (let after: string | null = null; ;) {
    const ids = await deps.tenants.listIds(after, 100);
    for (const tenantId of ids) {
      tenantCount++;
      total += (await deps.memories.list(tenantId, { namespaces: null, includeMerged: false, limit: 1, offset: 0 })).total;
      for (let key: MemoryOrderKey | null = null; ;) {
        const page = await deps.memories.listAfter(tenantId, key, batchSize);
        if (page.length === 0) break;
        const committed = page.filter((m) => m.committedVersion > 0);
        const docs = await Promise.all(committed.map((m) => committedContent(deps, m)));
        const vectors = await deps.embedder.embed(docs.map(textOf));
        await deps.index.applyChanges(
          tenantId,
          docs.map((d, i) => ({ op: 'upsert', doc: { ...d, vector: vectors[i] ?? null, entities: deps.extractEntities(textOf(d)) } })),
        );
        done += page.length;
        deps.onProgress?.(done, Math.max(total, done));
        if (page.length < batchSize) break;
        const last = page.at(-1)!;
        key = { createdAt: last.createdAt, id: last.id };
      }
    }
    if (ids.length < 100) break;
    after = ids.at(-1)!;
  }
  return { tenants: tenantCount, memories: done };
}

async function committedContent(deps: Pick<ReindexDeps, 'memories'>, m: MemoryRecord): Promise<Omit<IndexedMemory, 'vector' | 'entities'>> {
  let { title, content, tags, agentId } = m;
  if (m.version !== m.committedVersion) {
    const v = await deps.memories.getVersion(m.tenantId, m.id, m.committedVersion);
    if (v) ({ title, content, tags, agentId } = v);
  }
  return {
    memoryId: m.id,
    namespace: m.namespace,
    agentId,
    title,
    content,
    tags,
    status: m.status,
    injectionFlagged: m.injectionFlagged,
    quality: m.quality,
    createdAt: m.createdAt,
    committedVersion: m.committedVersion,
  };
}
