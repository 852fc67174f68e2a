import type { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import type { IndexChange, IndexInfo } from '../../server/ports/search-index.js';
import { netIndexChanges } from '../../server/services/search/index-changes.js';
import { PARALLEL_REQUESTS, RETRIEVE_CHUNK, chunks, mapLimit } from './parallel.js';
import { guarded } from './errors.js';
import { tenantFilter } from './filters.js';
import { entityPointId, memoryPointId } from './ids.js';
import { memoryPoint, staleWriteFence } from './requests.js';
import type { EntityPayload, MemoryPayload } from './schema.js';
import type { ColumnWeights } from './sparse.js';

/** Memory points per upsert request (a batch of the outbox or of a reindex is at most a few hundred). */
const UPSERT_CHUNK = 256;

/**
 * The entity keys a batch recounts: every key a written point holds now or held before (`before`, by
 * point id; a point absent there is new), and every key of a removed point. Each key once, however
 * many points of the batch touch it.
 *
 * Every key of every point, not only the keys that changed: a batch whose upsert went through and
 * whose recount failed is retried with the stored points already written, so a diff against them
 * would be empty and the retry would leave the statistics wrong (or the entity point missing) for good.
 */
export function entityKeysToRecount(
  before: ReadonlyMap<string, ReadonlySet<string>>,
  written: readonly { id: string; entities: readonly string[] }[],
  removedIds: readonly string[],
): string[] {
  const touched = new Set<string>();
  for (const p of written) {
    for (const k of p.entities) touched.add(k);
    for (const k of before.get(p.id) ?? []) touched.add(k);
  }
  for (const id of removedIds) for (const k of before.get(id) ?? []) touched.add(k);
  return [...touched];
}

export interface IndexWriterSettings {
  info: IndexInfo;
  keyword: ColumnWeights;
}

/**
 * The write side of the Qdrant index: a batch of one tenant's changes is one look-up of the entities
 * its points held, one upsert, one delete and one recount per entity key its points hold or held
 * (instead of all of that per memory). `tenant-memory reindex` writes every memory again, which would recount the
 * same popular keys in every batch: while `deferRecounts` is on, a tenant's keys are recounted once,
 * when the writes move to another tenant or at `flushDeferred`.
 */
export class QdrantIndexWriter {
  private deferring = false;
  private deferred: { tenantId: string; keys: Set<string> } | null = null;

  constructor(
    private readonly client: QdrantClient,
    private readonly collection: string,
    private readonly settings: IndexWriterSettings,
  ) {}

  deferRecounts(on: boolean): void {
    this.deferring = on;
  }

  async apply(tenantId: string, changes: readonly IndexChange[]): Promise<void> {
    const { upserts, removals } = netIndexChanges(changes);
    const { info, keyword } = this.settings;
    for (const d of upserts) {
      if (d.vector && d.vector.length !== info.dimension) {
        throw new Error(
          `vector of memory ${d.memoryId} has ${d.vector.length} dimensions; the search index holds ` +
            `${info.dimension}-dimensional vectors of model "${info.model}"`,
        );
      }
    }
    if (upserts.length === 0 && removals.length === 0) return;
    const points = upserts.map((d) => memoryPoint(tenantId, d, keyword));
    const removedIds = removals.map((id) => memoryPointId(tenantId, id));
    const before = await this.storedEntityKeys(tenantId, [...points.map((p) => String(p.id)), ...removedIds]);
    for (const batch of chunks(points, UPSERT_CHUNK)) {
      // Conditional: a drain that outlived its lease must not put an older version back over a newer one.
      const fence = staleWriteFence(batch);
      await guarded('upsert', () => this.client.upsert(this.collection, { wait: true, points: batch, update_filter: fence }));
    }
    if (removals.length > 0) {
      const filter = tenantFilter(tenantId, { memoryId: removals.length === 1 ? removals[0]! : removals });
      await guarded('remove', () => this.client.delete(this.collection, { wait: true, filter }));
    }
    const keys = entityKeysToRecount(
      before,
      points.map((p) => ({ id: String(p.id), entities: p.payload.entities })),
      removedIds,
    );
    await this.recount(tenantId, keys);
  }

  /** Recounts what deferral held back (the end of a reindex). */
  async flushDeferred(): Promise<void> {
    const d = this.deferred;
    this.deferred = null;
    if (d) await this.recountEntities(d.tenantId, [...d.keys]);
  }

  private async recount(tenantId: string, keys: readonly string[]): Promise<void> {
    if (!this.deferring) return this.recountEntities(tenantId, keys);
    if (this.deferred && this.deferred.tenantId !== tenantId) await this.flushDeferred();
    const d = (this.deferred ??= { tenantId, keys: new Set() });
    for (const k of keys) d.keys.add(k);
  }

  /** The entity keys currently stored on the given memory points of the tenant, by point id. */
  private async storedEntityKeys(tenantId: string, ids: readonly string[]): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>();
    const batches = await mapLimit(chunks(ids, RETRIEVE_CHUNK), PARALLEL_REQUESTS, (batch) =>
      guarded('upsert', () =>
        this.client.retrieve(this.collection, { ids: batch, with_payload: ['kind', 'tenant_id', 'entities'], with_vector: false }),
      ),
    );
    for (const records of batches) {
      for (const r of records) {
        const p = r.payload as Partial<MemoryPayload> | null | undefined;
        if (p?.kind !== 'memory' || p.tenant_id !== tenantId) continue;
        out.set(String(r.id), new Set(Array.isArray(p.entities) ? p.entities.filter((k): k is string => typeof k === 'string') : []));
      }
    }
    return out;
  }

  /**
   * Recounts how many of the tenant's memories mention each key and stores it on the entity's
   * statistics point (deleted at 0). Counting from the memory points, instead of incrementing, makes
   * the statistics converge to the truth on every write that touches the entity.
   */
  private async recountEntities(tenantId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const counts = await mapLimit(keys, PARALLEL_REQUESTS, async (key) => {
      const res = await guarded('upsert', () =>
        this.client.count(this.collection, { filter: tenantFilter(tenantId, { entity: key }), exact: true }),
      );
      return { key, df: res.count };
    });
    const live = counts.filter((c) => c.df > 0);
    const gone = counts.filter((c) => c.df === 0).map((c) => entityPointId(tenantId, c.key));
    for (const batch of chunks(live, UPSERT_CHUNK)) {
      const points: Schemas['PointStruct'][] = batch.map((c) => ({
        id: entityPointId(tenantId, c.key),
        vector: {},
        payload: { kind: 'entity', tenant_id: tenantId, entity_key: c.key, df: c.df } satisfies EntityPayload,
      }));
      await guarded('upsert', () => this.client.upsert(this.collection, { wait: true, points }));
    }
    if (gone.length > 0) {
      await guarded('upsert', () => this.client.delete(this.collection, { wait: true, points: gone }));
    }
  }
}
