import { randomBytes, randomUUID } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { MongoClient } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMongoMemoryPorts, type MongoMemoryPorts } from '../../adapters/mongo/memory-ports.js';
import { createQdrantSearchIndex } from '../../adapters/qdrant/search-index.js';
import { drainIndexOutbox } from '../../jobs/definitions/drain-index-outbox.js';
import type { JobServices } from '../../jobs/context.js';
import type { JobRunContext } from '../../jobs/definition.js';
import { AppError } from '../../server/errors.js';
import type { ApplyWriteOp } from '../../server/ports/memories.js';
import type { IndexChange, SearchIndex } from '../../server/ports/search-index.js';
import { netIndexChanges } from '../../server/services/search/index-changes.js';
import { createIndexOutboxService, type IndexOutboxService } from '../../server/services/search/index-outbox.js';
import { content, derived } from './memory-store.contract.js';

/**
 * The server profile's index outbox on a real MongoDB (`MONGODB_URL`, a replica set), with a real
 * Qdrant behind it when `QDRANT_URL` is set too (a recording index otherwise): committed memories
 * survive an index outage and become searchable through the drain job, and an entry the index keeps
 * refusing is set aside without holding up its tenant.
 */

const mongoUrl = process.env.MONGODB_URL;
const qdrantUrl = process.env.QDRANT_URL;
const AT = '2030-01-15T10:00:00.000Z';

/** The index the outbox writes to, with a switch for an outage and memories it refuses. */
interface Sink extends Pick<SearchIndex, 'applyChanges'> {
  down: boolean;
  refuse: Set<string>;
  searchable(tenantId: string, memoryId: string, text: string): Promise<boolean>;
  close(): Promise<void>;
}

async function openSink(): Promise<Sink> {
  let apply: (t: string, c: readonly IndexChange[]) => Promise<void>;
  let searchable: Sink['searchable'];
  let close = async () => {};
  if (qdrantUrl) {
    const client = new QdrantClient({ url: qdrantUrl, apiKey: process.env.QDRANT_API_KEY || undefined, checkCompatibility: false });
    const collection = `tm_outbox_${randomBytes(6).toString('hex')}`;
    const index = await createQdrantSearchIndex({ client, collection, embedder: { model: 'none', dimension: 8, init: async () => {} } });
    apply = (t, c) => index.applyChanges(t, c);
    searchable = async (t, id, text) =>
      (await index.search(t, { text, vector: null, mode: 'hybrid', limit: 10, filters: { namespaces: null } })).hits.some(
        (h) => h.memoryId === id,
      );
    close = async () => void (await client.deleteCollection(collection));
  } else {
    const indexed = new Map<string, Set<string>>();
    apply = async (t, c) => {
      const set = indexed.get(t) ?? indexed.set(t, new Set()).get(t)!;
      const { upserts, removals } = netIndexChanges(c);
      for (const d of upserts) set.add(d.memoryId);
      for (const r of removals) set.delete(r.memoryId);
    };
    searchable = async (t, id) => indexed.get(t)?.has(id) ?? false;
  }
  const sink: Sink = {
    down: false,
    refuse: new Set(),
    async applyChanges(t, changes) {
      if (sink.down) throw new AppError('DEPENDENCY_UNAVAILABLE', 'the search index is unavailable (upsert)');
      const refused = changes.find((c) => c.op === 'upsert' && sink.refuse.has(c.doc.memoryId));
      if (refused) throw new Error('Bad Request: refused by the test');
      await apply(t, changes);
    },
    searchable: (t, id, text) => searchable(t, id, text),
    close: () => close(),
  };
  return sink;
}

function describeOutboxContract(): void {
  describe('index outbox contract: mongodb' + (qdrantUrl ? ' + qdrant' : ' (recording index)'), () => {
    let client: MongoClient;
    let dbName: string;
    let sink: Sink;
    let ports: MongoMemoryPorts;
    let service: IndexOutboxService;
    let tenant: string;

    beforeEach(async () => {
      client = new MongoClient(mongoUrl!, { serverSelectionTimeoutMS: 10_000 });
      await client.connect();
      dbName = `tm_outbox_${randomUUID().replace(/-/g, '')}`;
      sink = await openSink();
      ports = await createMongoMemoryPorts(client, client.db(dbName), sink, { maxAttempts: 3 });
      service = createIndexOutboxService({ outbox: ports.indexOutbox, logger: { warn: () => undefined }, clock: Date.now });
      tenant = randomUUID();
    });
    afterEach(async () => {
      await client.db(dbName).dropDatabase();
      await client.close();
      await sink.close();
    });

    /**
     * Accepts a write per text and commits them all as one consolidation (what the pipeline does);
     * `refused`: the index refuses these memories' rows.
     */
    async function writeAndCommit(texts: string[], refused = false): Promise<string[]> {
      const ids: string[] = [];
      for (const text of texts) {
        const memoryId = randomUUID();
        if (refused) sink.refuse.add(memoryId);
        const r = await ports.writeQueue.enqueue(tenant, {
          kind: 'create',
          memoryId,
          namespace: 'default',
          content: content(text),
          allowedNamespaces: null,
          idempotency: null,
          quota: { period: '2030-01', writes: null, storageBytes: null, memories: null },
          acceptedAt: AT,
        });
        if (r.kind !== 'accepted') throw new Error(r.kind);
        ids.push(r.receipt.memoryId);
      }
      const writes = await ports.writeQueue.peek(tenant, 1000);
      const ops: ApplyWriteOp[] = writes.map((w) => ({
        kind: 'apply',
        writeId: w.id,
        memoryId: w.memoryId,
        namespace: w.namespace,
        version: w.version,
        snapshot: { change: w.kind, ...w.content, sensitivity: 'low', status: 'active', rolledBackTo: null, createdAt: AT },
        derived: derived(),
      }));
      await ports.memories.commitConsolidation(tenant, {
        ops,
        indexUpserts: writes.map((w) => ({
          memoryId: w.memoryId,
          namespace: w.namespace,
          agentId: null,
          title: '',
          content: w.content.content,
          tags: [],
          status: 'active',
          injectionFlagged: false,
          quality: 0.5,
          createdAt: AT,
          vector: null,
          entities: [],
        })),
        indexRemovals: [],
        at: new Date().toISOString(),
      });
      return ids;
    }

    const runDrainJob = () =>
      drainIndexOutbox.handler(
        undefined,
        { indexOutbox: service } as unknown as JobServices,
        {
          touch: async () => undefined,
          isCanceled: () => false,
          logger: { info: () => undefined, warn: () => undefined },
        } as unknown as JobRunContext,
      );

    it('keeps committed memories through an index outage; the drain job makes every one searchable once it is back', async () => {
      sink.down = true;
      const texts = ['lighthouse keeper logbook', 'harbour crane schedule', 'ferry timetable winter'];
      const ids = await writeAndCommit(texts);
      for (const [i, id] of ids.entries()) expect(await sink.searchable(tenant, id, texts[i]!)).toBe(false);
      expect(await service.counts()).toMatchObject({ pending: 3, poisoned: 0 });
      await runDrainJob(); // still down: nothing lost, nothing set aside
      expect(await service.counts()).toMatchObject({ pending: 3, poisoned: 0 });

      sink.down = false;
      await runDrainJob();
      for (const [i, id] of ids.entries()) expect(await sink.searchable(tenant, id, texts[i]!)).toBe(true);
      expect(await service.counts()).toEqual({ pending: 0, poisoned: 0 });
      expect(await ports.indexOutbox.tenantsWithPending(10)).toEqual([]);
    });

    it('sets aside an entry the index keeps refusing, without holding up the entries after it', async () => {
      const [refused] = await writeAndCommit(['glacier boots'], true);
      const [later] = await writeAndCommit(['mountain hut booking']);
      expect(await sink.searchable(tenant, later!, 'mountain hut booking')).toBe(true);
      // Refused alone, it would not count (the index might be refusing everything); beside an entry the
      // index accepts in the same run, it does. Each entry here waits for the drain job (its flush meets an outage).
      for (const text of ['snow chains', 'ice axe']) {
        sink.down = true;
        await writeAndCommit([text]);
        sink.down = false;
        await runDrainJob();
      }
      expect(await service.counts()).toEqual({ pending: 0, poisoned: 1 });
      const [after] = await writeAndCommit(['alpine pass weather']);
      expect(await sink.searchable(tenant, after!, 'alpine pass weather')).toBe(true);
      expect(await sink.searchable(tenant, refused!, 'glacier boots')).toBe(false);

      sink.refuse.clear();
      expect((await service.retryPoisoned(tenant)).entries).toBe(1);
      expect(await sink.searchable(tenant, refused!, 'glacier boots')).toBe(true);
      expect(await service.counts()).toEqual({ pending: 0, poisoned: 0 });
    });
  });
}

if (mongoUrl) describeOutboxContract();
else {
  describe('index outbox contract: mongodb', () => {
    it.skip('skipped: set MONGODB_URL (a replica set; QDRANT_URL too for a real index) to run the index outbox contract', () => {});
  });
}
