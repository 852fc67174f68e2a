import type { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import type { IndexChange, IndexInfo, IndexRemoval } from '../../server/ports/search-index.js';
import { netIndexChanges } from '../../server/services/search/index-changes.js';
import { PARALLEL_REQUESTS, RETRIEVE_CHUNK, chunks, mapLimit } from './parallel.js';
import { guarded } from './errors.js';
import { tenantFilter } from './filters.js';
import { entityPointId, memoryPointId } from './ids.js';
import { memoryPoint, staleWriteFence, tombstonePoint, writtenVersionFilter } from './requests.js';
import { TOMBSTONE_RETENTION_MS, type EntityPayload, type MemoryPayload, type TombstonePayload } from './schema.js';
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
  /** The clock of tombstones (tests). */
  now?: () => number;
}

/** A memory point as this writer sent it. */
type WrittenPoint = { id: string | number; payload: MemoryPayload };

/** A point of the batch as Qdrant held it before. */
interface StoredPoint {
  keys: Set<string>;
  version: number | undefined;
}

/**
 * The write side of the Qdrant index: a batch of one tenant's changes is one look-up of what its
 * points held, one upsert, when it removes memories one write of tombstones and one purge of old ones,
 * one count per entity key its points hold or held and, when points lost keys, one clear of what they
 * owed (instead of all of that per memory). `tenant-memory reindex` writes every memory again, which would recount the
 * same popular keys in every batch: while `deferRecounts` is on, a tenant's keys are recounted once,
 * when the writes move to another tenant or at `flushDeferred`.
 */
export class QdrantIndexWriter {
  private deferring = false;
  private deferred: { tenantId: string; keys: Set<string>; losing: WrittenPoint[] } | null = null;

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
    const removedIds = removals.map((r) => memoryPointId(tenantId, r.memoryId));
    const stored = await this.storedPoints(tenantId, [...points.map((p) => String(p.id)), ...removedIds]);
    const before = new Map([...stored].map(([id, p]) => [id, p.keys]));
    // Keys a point loses are kept on it until recounted: once the upsert has landed, a retry of this
    // batch could not tell them from the point itself.
    const losing = points.filter((p) => {
      const lost = [...(before.get(String(p.id)) ?? [])].filter((k) => !p.payload.entities.includes(k));
      if (lost.length > 0) p.payload.stale_entities = lost;
      return lost.length > 0;
    });
    for (const batch of chunks(points, UPSERT_CHUNK)) {
      // Conditional: a drain that outlived its lease must not put an older version back over a newer one.
      const fence = staleWriteFence(batch);
      await guarded('upsert', () => this.client.upsert(this.collection, { wait: true, points: batch, update_filter: fence }));
    }
    if (removals.length > 0) await this.bury(tenantId, removals, stored);
    const keys = entityKeysToRecount(
      before,
      points.map((p) => ({ id: String(p.id), entities: p.payload.entities })),
      removedIds,
    );
    await this.recount(tenantId, keys, losing);
  }

  /**
   * Replaces removed memories' points with tombstones (unconditionally: a removal is final) at the
   * highest version known for the memory, the removal's or the stored point's: a removal that says
   * less (an earlier release's entry, a drain's check after its flush) never lowers the fence. Then
   * purges the tenant's tombstones older than `TOMBSTONE_RETENTION_MS`; best effort, since the
   * tenant's next removal purges them too.
   */
  private async bury(tenantId: string, removals: readonly IndexRemoval[], stored: ReadonlyMap<string, StoredPoint>) {
    const now = (this.settings.now ?? Date.now)();
    const at = new Date(now).toISOString();
    const tombstones = removals.map((r) => {
      const was = stored.get(memoryPointId(tenantId, r.memoryId));
      const versions = [r.committedVersion, was?.version].filter((v): v is number => v !== undefined);
      const removal: IndexRemoval = versions.length > 0 ? { ...r, committedVersion: Math.max(...versions) } : r;
      return tombstonePoint(tenantId, removal, [...(was?.keys ?? [])], at);
    });
    for (const batch of chunks(tombstones, UPSERT_CHUNK)) {
      await guarded('remove', () => this.client.upsert(this.collection, { wait: true, points: batch }));
    }
    const filter = tenantFilter(tenantId, { kind: 'tombstone', removedBefore: new Date(now - TOMBSTONE_RETENTION_MS).toISOString() });
    await this.client.delete(this.collection, { wait: true, filter }).catch(() => undefined);
  }

  /** Recounts what deferral held back (the end of a reindex). */
  async flushDeferred(): Promise<void> {
    const d = this.deferred;
    this.deferred = null;
    if (!d) return;
    await this.recountEntities(d.tenantId, [...d.keys]);
    await this.clearStale(d.losing);
  }

  /** Recounts `keys` (now, or when deferral ends), then clears the written points' `stale_entities`. */
  private async recount(tenantId: string, keys: readonly string[], losing: readonly WrittenPoint[]): Promise<void> {
    if (!this.deferring) {
      await this.recountEntities(tenantId, keys);
      return this.clearStale(losing);
    }
    if (this.deferred && this.deferred.tenantId !== tenantId) await this.flushDeferred();
    const d = (this.deferred ??= { tenantId, keys: new Set(), losing: [] });
    for (const k of keys) d.keys.add(k);
    d.losing.push(...losing);
  }

  private async clearStale(points: readonly WrittenPoint[]): Promise<void> {
    for (const batch of chunks(points, UPSERT_CHUNK)) {
      const filter = writtenVersionFilter(batch);
      await guarded('upsert', () => this.client.setPayload(this.collection, { wait: true, payload: { stale_entities: [] }, filter }));
    }
  }

  /**
   * What the given points of the tenant hold, by point id: the entity keys they hold or owe a recount
   * (a memory point's `entities` and `stale_entities`, a tombstone's `former_entities`) and the
   * committed version they carry.
   */
  private async storedPoints(tenantId: string, ids: readonly string[]): Promise<Map<string, StoredPoint>> {
    const out = new Map<string, StoredPoint>();
    const batches = await mapLimit(chunks(ids, RETRIEVE_CHUNK), PARALLEL_REQUESTS, (batch) =>
      guarded('upsert', () =>
        this.client.retrieve(this.collection, {
          ids: batch,
          with_payload: ['kind', 'tenant_id', 'entities', 'stale_entities', 'former_entities', 'committed_version'],
          with_vector: false,
        }),
      ),
    );
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : []);
    for (const records of batches) {
      for (const r of records) {
        const p = r.payload as Partial<Record<keyof MemoryPayload | keyof TombstonePayload, unknown>> | null | undefined;
        if (p?.tenant_id !== tenantId) continue;
        const version = typeof p.committed_version === 'number' ? p.committed_version : undefined;
        if (p.kind === 'memory') out.set(String(r.id), { keys: new Set([...strings(p.entities), ...strings(p.stale_entities)]), version });
        else if (p.kind === 'tombstone') out.set(String(r.id), { keys: new Set(strings(p.former_entities)), version });
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
