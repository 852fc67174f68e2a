import type { Embedder } from '../../ports/embedder.js';
import type { MemoryRecord, MemoryStore } from '../../ports/memories.js';
import type { ExtractedEntity, IndexedMemory, SearchIndex } from '../../ports/search-index.js';
import type { TenantStore } from '../../ports/tenants.js';

export interface ReindexDeps {
  tenants: Pick<TenantStore, 'listIds'>;
  memories: Pick<MemoryStore, 'list' | 'getVersion'>;
  index: Pick<SearchIndex, 'upsert'>;
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
      for (let offset = 0; ; offset += batchSize) {
        const page = await deps.memories.list(tenantId, { namespaces: null, includeMerged: false, limit: batchSize, offset });
        if (offset === 0) total += page.total;
        const committed = page.items.filter((m) => m.committedVersion > 0);
        const docs = await Promise.all(committed.map((m) => committedContent(deps, m)));
        const vectors = await deps.embedder.embed(docs.map(textOf));
        for (let i = 0; i < docs.length; i++) {
          await deps.index.upsert(tenantId, { ...docs[i]!, vector: vectors[i] ?? null, entities: deps.extractEntities(textOf(docs[i]!)) });
        }
        done += page.items.length;
        deps.onProgress?.(done, total);
        if (page.items.length < batchSize) break;
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
  };
}
