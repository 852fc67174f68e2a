import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type {
  EnrichmentLogRecord,
  KnowledgeObjectRecord,
  KnowledgeObjectStore,
  KnowledgeStructureStore,
  LogPageQuery,
  ObjectListCursor,
  ObjectListQuery,
  StorageQuota,
} from '../../server/ports/knowledge.js';
import type { KnowledgeSettingsStore } from '../../server/ports/knowledge-settings.js';
import { OBJECT_STATUSES } from '../../server/services/knowledge/model.js';
import { at, knowledgeObject, logEntry, revised, sizeOf, structure, withName } from './knowledge-records.js';

/** The knowledge ports as one adapter family provides them, over fresh storage. */
export interface KnowledgeStoresFixture {
  structures: KnowledgeStructureStore;
  objects: KnowledgeObjectStore;
  settings: KnowledgeSettingsStore;
  /** The tenant's stored bytes as the usage port reports them. */
  storedBytes(tenantId: string): Promise<number>;
  close(): Promise<void>;
}

const UNLIMITED: StorageQuota = { storageBytes: null };
/** The log's first page of at most `limit` entries, every run's. */
const first = (limit: number): LogPageQuery => ({ after: null, runId: null, limit });
const TYPE = 'organization';

/**
 * The behaviour every adapter family of the knowledge ports must show; each test works in fresh
 * tenants, and checks that another tenant's ids read as absent and its rows stay untouched.
 */
export function describeKnowledgeStoreContract(name: string, make: () => Promise<KnowledgeStoresFixture>): void {
  describe(`knowledge store contract: ${name}`, () => {
    let f: KnowledgeStoresFixture;
    let tenant: string;
    let other: string;
    beforeAll(async () => {
      f = await make();
    });
    afterAll(async () => {
      await f?.close();
    });
    beforeEach(() => {
      tenant = randomUUID();
      other = randomUUID();
    });

    const created = async (tenantId: string, extra: Partial<KnowledgeObjectRecord> = {}, type = TYPE) => {
      const o = knowledgeObject(tenantId, type, extra);
      expect(await f.objects.create(o, UNLIMITED)).toBe('ok');
      return o;
    };

    describe('structures', () => {
      it('saves a draft, replaces it while it is a draft (keeping id and creation time), then refuses once activated', async () => {
        const first = structure(tenant, TYPE, '2.0.0');
        expect(await f.structures.saveDraft(first)).toBe('created');
        expect(await f.structures.get(tenant, TYPE, '2.0.0')).toEqual(first);

        const again = structure(tenant, TYPE, '2.0.0', { createdAt: at(30), schema: { type: 'object', properties: {} } });
        expect(await f.structures.saveDraft(again)).toBe('replaced');
        expect(await f.structures.get(tenant, TYPE, '2.0.0')).toEqual({ ...first, schema: again.schema });

        expect(await f.structures.activate(tenant, TYPE, '2.0.0', at(40), null)).toBe('ok');
        expect(await f.structures.saveDraft(structure(tenant, TYPE, '2.0.0'))).toBe('not_draft');
        expect(await f.structures.get(tenant, TYPE, '2.0.0')).toEqual({
          ...first,
          schema: again.schema,
          status: 'ACTIVE',
          activatedAt: at(40),
        });
      });

      it('activating a version deprecates the ACTIVE one; DEPRECATED refuses a draft; a missing version is false', async () => {
        await f.structures.saveDraft(structure(tenant, TYPE, '1.0.0', { createdAt: at(1) }));
        await f.structures.saveDraft(structure(tenant, TYPE, '1.1.0', { createdAt: at(2) }));
        await f.structures.saveDraft(structure(tenant, 'person', '1.0.0', { createdAt: at(3) }));
        await f.structures.activate(tenant, TYPE, '1.0.0', at(10), null);
        await f.structures.activate(tenant, 'person', '1.0.0', at(10), null);
        expect(await f.structures.activate(tenant, TYPE, '1.1.0', at(20), '1.0.0')).toBe('ok');
        const listed = await f.structures.list(tenant, TYPE);
        expect(listed.map((s) => [s.version, s.status, s.activatedAt])).toEqual([
          ['1.0.0', 'DEPRECATED', at(10)],
          ['1.1.0', 'ACTIVE', at(20)],
        ]);
        // Another type's ACTIVE version is not touched.
        expect((await f.structures.get(tenant, 'person', '1.0.0'))?.status).toBe('ACTIVE');
        expect(await f.structures.saveDraft(structure(tenant, TYPE, '1.0.0'))).toBe('not_draft');
        expect(await f.structures.activate(tenant, TYPE, '9.9.9', at(30), '1.1.0')).toBe('not_found');
        expect((await f.structures.list(tenant, TYPE)).map((s) => s.status)).toEqual(['DEPRECATED', 'ACTIVE']);
      });

      it('activates only over the ACTIVE version the caller checked (or again the same one); another activation first is `changed`', async () => {
        for (const [i, v] of ['1.0.0', '1.1.0', '1.2.0'].entries())
          await f.structures.saveDraft(structure(tenant, TYPE, v, { createdAt: at(i + 1) }));
        expect(await f.structures.activate(tenant, TYPE, '1.0.0', at(10), null)).toBe('ok');
        // Two activations both checked against 1.0.0: the second finds 1.1.0 ACTIVE and writes nothing.
        expect(await f.structures.activate(tenant, TYPE, '1.1.0', at(20), '1.0.0')).toBe('ok');
        expect(await f.structures.activate(tenant, TYPE, '1.2.0', at(30), '1.0.0')).toBe('changed');
        expect(await f.structures.activate(tenant, TYPE, '1.2.0', at(30), null)).toBe('changed');
        expect((await f.structures.list(tenant, TYPE)).map((s) => [s.version, s.status])).toEqual([
          ['1.0.0', 'DEPRECATED'],
          ['1.1.0', 'ACTIVE'],
          ['1.2.0', 'DRAFT'],
        ]);
        // Activating the ACTIVE version again (to finish a migration) needs no expectation to hold.
        expect(await f.structures.activate(tenant, TYPE, '1.1.0', at(40), '1.0.0')).toBe('ok');
        expect((await f.structures.get(tenant, TYPE, '1.1.0'))?.activatedAt).toBe(at(20));
      });

      it("another tenant's versions read as absent and are never changed", async () => {
        await f.structures.saveDraft(structure(tenant, TYPE, '1.0.0'));
        await f.structures.activate(tenant, TYPE, '1.0.0', at(10), null);
        expect(await f.structures.get(other, TYPE, '1.0.0')).toBeNull();
        expect(await f.structures.list(other, TYPE)).toEqual([]);
        expect(await f.structures.activate(other, TYPE, '1.0.0', at(20), null)).toBe('not_found');
        expect(await f.structures.saveDraft(structure(other, TYPE, '1.0.0'))).toBe('created');
        expect(await f.structures.activate(other, TYPE, '1.0.0', at(20), null)).toBe('ok');
        expect((await f.structures.get(tenant, TYPE, '1.0.0'))?.activatedAt).toBe(at(10));
        expect((await f.structures.list(tenant, TYPE)).map((s) => s.status)).toEqual(['ACTIVE']);
      });
    });

    describe('create and get', () => {
      it('stores every field and adds the size to the storage total; another tenant reads null', async () => {
        const o = await created(tenant, { enrichment: { runId: 'run-9', since: at(5) }, enrichedAt: at(4), doNotEnrich: true });
        expect(await f.objects.get(tenant, o.id)).toEqual(o);
        expect(await f.storedBytes(tenant)).toBe(o.sizeBytes);
        expect(await f.objects.get(other, o.id)).toBeNull();
        expect(await f.storedBytes(other)).toBe(0);
      });

      it('a create past the quota writes nothing; one reaching it exactly is accepted', async () => {
        const first = await created(tenant);
        const next = knowledgeObject(tenant, TYPE);
        const quota = { storageBytes: first.sizeBytes + next.sizeBytes - 1 };
        expect(await f.objects.create(next, quota)).toBe('quota_exceeded');
        expect(await f.objects.get(tenant, next.id)).toBeNull();
        expect(await f.storedBytes(tenant)).toBe(first.sizeBytes);
        expect(await f.objects.create(next, { storageBytes: first.sizeBytes + next.sizeBytes })).toBe('ok');
        expect(await f.storedBytes(tenant)).toBe(first.sizeBytes + next.sizeBytes);
      });
    });

    describe('list', () => {
      /** 23 objects with ties in score and in time (so the id decides), statuses cycling; noise elsewhere. */
      async function seed() {
        const mine: KnowledgeObjectRecord[] = [];
        for (let i = 0; i < 23; i++) {
          mine.push(
            await created(tenant, {
              completenessScore: [0, 0.25, 0.5, 1][i % 4]!,
              createdAt: at(Math.floor(i / 3)),
              status: OBJECT_STATUSES[i % OBJECT_STATUSES.length]!,
            }),
          );
        }
        await created(other, { completenessScore: 0 });
        await created(tenant, { completenessScore: 0 }, 'person');
        return mine;
      }
      const byTime = (a: KnowledgeObjectRecord, b: KnowledgeObjectRecord) =>
        a.createdAt.localeCompare(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      const byScore = (a: KnowledgeObjectRecord, b: KnowledgeObjectRecord) => a.completenessScore - b.completenessScore || byTime(a, b);

      /** Every page of the list, following cursors built from each page's last object. */
      async function pages(q: Omit<ObjectListQuery, 'after'>) {
        const seen: KnowledgeObjectRecord[] = [];
        const totals = new Set<number>();
        let after: ObjectListCursor | undefined;
        for (let guard = 0; guard < 50; guard++) {
          const page = await f.objects.list(tenant, TYPE, { ...q, ...(after ? { after } : {}) });
          totals.add(page.total);
          seen.push(...page.objects);
          const last = page.objects.at(-1);
          if (page.objects.length < q.limit || !last) break;
          after = { createdAt: last.createdAt, id: last.id, completenessScore: last.completenessScore };
        }
        return { seen, totals: [...totals] };
      }

      const cases: {
        name: string;
        q: Omit<ObjectListQuery, 'after'>;
        keep: (o: KnowledgeObjectRecord) => boolean;
        order: typeof byTime;
      }[] = [
        { name: 'everything, by creation', q: { limit: 5 }, keep: () => true, order: byTime },
        { name: 'a status, by creation', q: { limit: 2, status: 'ENRICHING' }, keep: (o) => o.status === 'ENRICHING', order: byTime },
        {
          name: 'completeness below 1, by score',
          q: { limit: 4, completenessLt: 1 },
          keep: (o) => o.completenessScore < 1,
          order: byScore,
        },
        {
          name: 'completeness below 0.5 and a status, by score',
          q: { limit: 1, completenessLt: 0.5, status: 'INCOMPLETE' },
          keep: (o) => o.completenessScore < 0.5 && o.status === 'INCOMPLETE',
          order: byScore,
        },
        { name: 'a page as large as the list', q: { limit: 100 }, keep: () => true, order: byTime },
      ];
      it.each(cases)('pages through $name exactly once, with the filtered total', async ({ q, keep, order }) => {
        const mine = await seed();
        const expected = mine.filter(keep).sort(order);
        expect(expected.length).toBeGreaterThan(1);
        const { seen, totals } = await pages(q);
        expect(seen.map((o) => o.id)).toEqual(expected.map((o) => o.id));
        expect(seen).toEqual(expected);
        expect(totals).toEqual([expected.length]);
      });

      it('the total follows creates, updates that move status or score, and deletes', async () => {
        const a = await created(tenant, { status: 'INCOMPLETE', completenessScore: 0.25 });
        const b = await created(tenant, { status: 'INCOMPLETE', completenessScore: 0.25 });
        await created(other, { status: 'INCOMPLETE', completenessScore: 0.25 });
        const totals = async () =>
          Promise.all(
            [{}, { status: 'INCOMPLETE' as const }, { status: 'COMPLETE' as const }, { completenessLt: 0.5 }, { completenessLt: 1.01 }].map(
              async (q) => (await f.objects.list(tenant, TYPE, { limit: 1, ...q })).total,
            ),
          );
        expect(await totals()).toEqual([2, 2, 0, 2, 2]);
        const done = revised(a, a.fields, { status: 'COMPLETE', completenessScore: 1 });
        expect(await f.objects.update(done, a.revision, UNLIMITED)).toBe('ok');
        expect(await totals()).toEqual([2, 1, 1, 1, 2]);
        // A write that keeps status and score keeps the totals; a stale one moves nothing.
        expect(await f.objects.update(revised(b, withName('Renamed')), b.revision, UNLIMITED)).toBe('ok');
        expect(await f.objects.update(revised(a, a.fields), a.revision, UNLIMITED)).toBe('conflict');
        expect(await totals()).toEqual([2, 1, 1, 1, 2]);
        await f.objects.delete(tenant, a.id);
        expect(await totals()).toEqual([1, 1, 0, 1, 1]);
        await f.objects.delete(tenant, b.id);
        expect(await totals()).toEqual([0, 0, 0, 0, 0]);
        expect((await f.objects.list(other, TYPE, { limit: 1 })).total).toBe(1);
      });

      it('an empty list for another tenant or type', async () => {
        await seed();
        expect(await f.objects.list(randomUUID(), TYPE, { limit: 10 })).toEqual({ objects: [], total: 0 });
        expect(await f.objects.list(tenant, 'project', { limit: 10, completenessLt: 1 })).toEqual({ objects: [], total: 0 });
      });
    });

    describe('update', () => {
      it('replaces the object at the expected revision, moves the total by the size change and appends the log', async () => {
        const o = await created(tenant);
        const next = revised(o, withName('Quillfeather Holdings International'), {
          status: 'PARTIALLY_COMPLETE',
          completenessScore: 0.75,
          enrichedAt: at(99),
          identityKey: 'quillfeather holdings',
          schemaVersion: '1.1.0',
        });
        const entries = [
          logEntry(o, 'domain'),
          logEntry(o, 'industry', { outcome: 'no_candidate', candidateValue: null, confidence: null }),
        ];
        expect(await f.objects.update(next, o.revision, UNLIMITED, entries)).toBe('ok');
        expect(await f.objects.get(tenant, o.id)).toEqual(next);
        expect(await f.storedBytes(tenant)).toBe(next.sizeBytes);
        expect(await f.objects.log(tenant, o.id, first(10))).toEqual(entries);
      });

      it('a stale revision is a conflict and writes nothing, log included', async () => {
        const o = await created(tenant);
        const second = revised(o, withName('Second'));
        expect(await f.objects.update(second, o.revision, UNLIMITED)).toBe('ok');
        const stale = revised(o, withName('Stale writer with a much longer name'));
        expect(await f.objects.update(stale, o.revision, UNLIMITED, [logEntry(o, 'domain')])).toBe('conflict');
        expect(await f.objects.get(tenant, o.id)).toEqual(second);
        expect(await f.objects.log(tenant, o.id, first(10))).toEqual([]);
        expect(await f.storedBytes(tenant)).toBe(second.sizeBytes);
      });

      it("an unknown id, or another tenant's, is not_found and writes nothing", async () => {
        const o = await created(tenant);
        expect(await f.objects.update(revised(knowledgeObject(tenant, TYPE), withName('x')), 1, UNLIMITED)).toBe('not_found');
        const hijack = { ...revised(o, withName('hijack')), tenantId: other };
        expect(await f.objects.update(hijack, o.revision, UNLIMITED, [logEntry(hijack, 'name')])).toBe('not_found');
        expect(await f.objects.get(tenant, o.id)).toEqual(o);
        expect(await f.objects.log(other, o.id, first(10))).toEqual([]);
        expect(await f.storedBytes(other)).toBe(0);
      });

      it('growing past the quota writes nothing; shrinking is allowed even over the quota', async () => {
        const o = await created(tenant, { fields: withName('Quillfeather') });
        const bigger = revised(o, withName('A considerably longer name than before, to grow the object'));
        expect(bigger.sizeBytes).toBeGreaterThan(o.sizeBytes);
        const quota = { storageBytes: o.sizeBytes };
        expect(await f.objects.update(bigger, o.revision, quota, [logEntry(o, 'name')])).toBe('quota_exceeded');
        expect(await f.objects.get(tenant, o.id)).toEqual(o);
        expect(await f.objects.log(tenant, o.id, first(10))).toEqual([]);
        expect(await f.storedBytes(tenant)).toBe(o.sizeBytes);

        const smaller = revised(o, withName('Q'));
        expect(sizeOf(smaller.fields)).toBeLessThan(o.sizeBytes);
        expect(await f.objects.update(smaller, o.revision, { storageBytes: 1 })).toBe('ok');
        expect(await f.storedBytes(tenant)).toBe(smaller.sizeBytes);
      });
    });

    describe('delete', () => {
      it('removes the object, its log and its size; returns it once; leaves other tenants alone', async () => {
        const o = await created(tenant);
        const kept = await created(tenant);
        const next = revised(o, withName('Logged'));
        await f.objects.update(next, o.revision, UNLIMITED, [logEntry(o, 'name')]);
        expect(await f.objects.delete(other, o.id)).toBeNull();
        expect(await f.objects.get(tenant, o.id)).toEqual(next);
        expect(await f.objects.delete(tenant, o.id)).toEqual(next);
        expect(await f.objects.get(tenant, o.id)).toBeNull();
        expect(await f.objects.log(tenant, o.id, first(10))).toEqual([]);
        expect(await f.storedBytes(tenant)).toBe(kept.sizeBytes);
        expect(await f.objects.delete(tenant, o.id)).toBeNull();
        expect(await f.storedBytes(tenant)).toBe(kept.sizeBytes);
      });
    });

    describe('look-ups', () => {
      it('findByIdentity: objects of the type with that key, oldest first, at most limit', async () => {
        const late = await created(tenant, { identityKey: 'acme', createdAt: at(9) });
        const early = await created(tenant, { identityKey: 'acme', createdAt: at(1) });
        const middle = await created(tenant, { identityKey: 'acme', createdAt: at(5) });
        await created(tenant, { identityKey: 'acme corp' });
        await created(tenant, { identityKey: 'acme' }, 'person');
        await created(other, { identityKey: 'acme' });
        expect((await f.objects.findByIdentity(tenant, TYPE, 'acme', 10)).map((o) => o.id)).toEqual([early.id, middle.id, late.id]);
        expect(await f.objects.findByIdentity(tenant, TYPE, 'acme', 2)).toEqual([early, middle]);
        expect(await f.objects.findByIdentity(tenant, TYPE, 'nobody', 10)).toEqual([]);
      });

      it('findByIdentityKeys: objects of any type whose key is one of those given, by id, with their hold and opt-out', async () => {
        const org = await created(tenant, { identityKey: 'vantablue' });
        const person = await created(tenant, { identityKey: 'rosalind okafor', doNotEnrich: true }, 'person');
        const held = await created(tenant, { identityKey: 'rosalind okafor', enrichment: { runId: 'run-7', since: at(3) } }, 'project');
        await created(tenant, { identityKey: 'vantablue labs' });
        await created(tenant, { identityKey: '' });
        await created(other, { identityKey: 'vantablue' });
        const found = await f.objects.findByIdentityKeys(tenant, ['vantablue', 'rosalind okafor', 'nobody', ''], 10);
        const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
        expect(found).toEqual(
          [
            { id: org.id, type: TYPE, identityKey: 'vantablue', doNotEnrich: false, enrichment: null },
            { id: person.id, type: 'person', identityKey: 'rosalind okafor', doNotEnrich: true, enrichment: null },
            {
              id: held.id,
              type: 'project',
              identityKey: 'rosalind okafor',
              doNotEnrich: false,
              enrichment: { runId: 'run-7', since: at(3) },
            },
          ].sort(byId),
        );
        expect(await f.objects.findByIdentityKeys(tenant, ['vantablue', 'rosalind okafor'], 2)).toEqual(found.slice(0, 2));
        // An empty key names no object, even where objects without an identity are stored.
        expect(await f.objects.findByIdentityKeys(tenant, [''], 10)).toEqual([]);
        expect(await f.objects.findByIdentityKeys(tenant, [], 10)).toEqual([]);
        expect((await f.objects.findByIdentityKeys(other, ['vantablue', 'rosalind okafor'], 10)).map((m) => m.type)).toEqual([TYPE]);
      });

      it('usesVersion: only objects of that tenant, type and version count', async () => {
        await created(tenant, { schemaVersion: '1.0.0' });
        await created(tenant, { schemaVersion: '2.0.0' }, 'person');
        await created(other, { schemaVersion: '3.0.0' });
        expect(await f.objects.usesVersion(tenant, TYPE, '1.0.0')).toBe(true);
        expect(await f.objects.usesVersion(tenant, TYPE, '2.0.0')).toBe(false);
        expect(await f.objects.usesVersion(tenant, TYPE, '3.0.0')).toBe(false);
        expect(await f.objects.usesVersion(other, TYPE, '1.0.0')).toBe(false);
      });

      it('listNotAtVersion pages by id through the objects at other versions', async () => {
        const behind: string[] = [];
        for (let i = 0; i < 7; i++) behind.push((await created(tenant, { schemaVersion: i % 2 ? '1.0.0' : '1.1.0' })).id);
        for (let i = 0; i < 4; i++) await created(tenant, { schemaVersion: '2.0.0' });
        await created(tenant, { schemaVersion: '1.0.0' }, 'person');
        await created(other, { schemaVersion: '1.0.0' });
        const seen: string[] = [];
        let afterId: string | null = null;
        for (let guard = 0; guard < 20; guard++) {
          const page = await f.objects.listNotAtVersion(tenant, TYPE, '2.0.0', afterId, 3);
          expect(page.every((o) => o.schemaVersion !== '2.0.0' && o.tenantId === tenant && o.type === TYPE)).toBe(true);
          seen.push(...page.map((o) => o.id));
          if (page.length < 3) break;
          afterId = page.at(-1)!.id;
        }
        expect(seen).toEqual([...behind].sort());
      });

      it('listAll pages every object of the tenant, of every type, in (type, id) order', async () => {
        const mine: KnowledgeObjectRecord[] = [];
        for (let i = 0; i < 4; i++) mine.push(await created(tenant));
        for (let i = 0; i < 3; i++) mine.push(await created(tenant, {}, 'person'));
        await created(other);
        const seen: string[] = [];
        let after: { type: string; id: string } | null = null;
        for (let guard = 0; guard < 20; guard++) {
          const page = await f.objects.listAll(tenant, after, 3);
          expect(page.every((o) => o.tenantId === tenant)).toBe(true);
          seen.push(...page.map((o) => o.id));
          if (page.length < 3) break;
          after = { type: page.at(-1)!.type, id: page.at(-1)!.id };
        }
        const byKey = (a: KnowledgeObjectRecord, b: KnowledgeObjectRecord) =>
          a.type < b.type ? -1 : a.type > b.type ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
        expect(seen).toEqual([...mine].sort(byKey).map((o) => o.id));
        expect(await f.objects.listAll(other, null, 10)).toHaveLength(1);
      });

      it('log: oldest first, a batch stamped alike in the order written, at most limit, per tenant', async () => {
        const o = await created(tenant);
        const run1 = ['name', 'domain', 'industry', 'website'].map((field) => logEntry(o, field, { createdAt: at(60) }));
        const one = revised(o, o.fields);
        await f.objects.update(one, o.revision, UNLIMITED, run1);
        const run2 = [logEntry(o, 'headquarters', { createdAt: at(70), runId: 'run-2', engine: 'kg', outcome: 'proposed' })];
        await f.objects.update(revised(one, o.fields), one.revision, UNLIMITED, run2);
        expect(await f.objects.log(tenant, o.id, first(10))).toEqual([...run1, ...run2]);
        expect(await f.objects.log(tenant, o.id, first(3))).toEqual(run1.slice(0, 3));
        expect(await f.objects.log(other, o.id, first(10))).toEqual([]);
      });
    });

    describe('log pages', () => {
      /** An object with three runs' entries: a batch stamped alike whose ids sort against their write order, then two more. */
      const loggedObject = async (tenantId: string) => {
        let o = await created(tenantId);
        const runs = [
          ['z', 'y', 'x', 'w'].map((p, i) => logEntry(o, `f${i}`, { id: `${p}-${randomUUID()}`, createdAt: at(60) })),
          [logEntry(o, 'industry', { createdAt: at(70), runId: 'run-2', engine: 'kg', outcome: 'proposed' })],
          ['b', 'a'].map((p) => logEntry(o, 'headquarters', { id: `${p}-${randomUUID()}`, createdAt: at(80), runId: 'run-3' })),
        ];
        for (const entries of runs) {
          const next = revised(o, o.fields);
          expect(await f.objects.update(next, o.revision, UNLIMITED, entries)).toBe('ok');
          o = next;
        }
        return { o, all: runs.flat() };
      };

      /** Every page of `limit` after `after` until a short one, concatenated; fails on a page over the limit. */
      const pageThrough = async (tenantId: string, objectId: string, limit: number, runId: string | null = null) => {
        const seen: EnrichmentLogRecord[] = [];
        for (let guard = 0; guard < 20; guard++) {
          const page = await f.objects.log(tenantId, objectId, { after: seen.at(-1)?.id ?? null, runId, limit });
          if (page === null) throw new Error('a page after an entry of the log read as an unknown entry');
          expect(page.length).toBeLessThanOrEqual(limit);
          seen.push(...page);
          if (page.length < limit) return seen;
        }
        throw new Error('the log never ended');
      };

      it('paging through three pages gives the whole log, in order, a batch stamped alike in write order', async () => {
        const { o, all } = await loggedObject(tenant);
        expect(await f.objects.log(tenant, o.id, first(100))).toEqual(all);
        expect(await pageThrough(tenant, o.id, 3)).toEqual(all);
        // One entry per page walks the batch stamped alike by its place in the batch, not by id.
        expect(await pageThrough(tenant, o.id, 1)).toEqual(all);
        expect(await f.objects.log(tenant, o.id, { after: all[1]!.id, runId: null, limit: 2 })).toEqual(all.slice(2, 4));
        expect(await f.objects.log(tenant, o.id, { after: all.at(-1)!.id, runId: null, limit: 10 })).toEqual([]);
      });

      it("runId keeps one run's entries, paged the same way", async () => {
        const { o, all } = await loggedObject(tenant);
        expect(await pageThrough(tenant, o.id, 1, 'run-3')).toEqual(all.slice(5));
        expect(await pageThrough(tenant, o.id, 3, 'run-1')).toEqual(all.slice(0, 4));
        expect(await f.objects.log(tenant, o.id, { after: all[0]!.id, runId: 'run-3', limit: 10 })).toEqual(all.slice(5));
        expect(await f.objects.log(tenant, o.id, { after: null, runId: 'no-such-run', limit: 10 })).toEqual([]);
      });

      it("an after that is unknown, another object's or another tenant's entry is null, never a page", async () => {
        const { o, all } = await loggedObject(tenant);
        const sibling = await loggedObject(tenant);
        const foreign = await loggedObject(other);
        const page = (tenantId: string, objectId: string, after: string) =>
          f.objects.log(tenantId, objectId, { after, runId: null, limit: 10 });
        expect(await page(tenant, o.id, randomUUID())).toBeNull();
        expect(await page(tenant, o.id, sibling.all[0]!.id)).toBeNull();
        expect(await page(tenant, o.id, foreign.all[0]!.id)).toBeNull();
        // Another tenant naming this tenant's object and entry reads nothing either.
        expect(await page(other, o.id, all[0]!.id)).toBeNull();
        expect(await f.objects.log(other, o.id, first(10))).toEqual([]);
      });
    });

    describe('settings', () => {
      it('reads the defaults (web enrichment off, never saved) for a tenant that saved none', async () => {
        expect(await f.settings.get(tenant)).toEqual({ webEnrichment: false, updatedAt: null });
      });

      it('stores a change, replaces it on the next put, and keeps each tenant to its own', async () => {
        expect(await f.settings.put(tenant, { webEnrichment: true }, at(10))).toEqual({ webEnrichment: true, updatedAt: at(10) });
        expect(await f.settings.get(tenant)).toEqual({ webEnrichment: true, updatedAt: at(10) });
        expect(await f.settings.get(other)).toEqual({ webEnrichment: false, updatedAt: null });

        await f.settings.put(other, { webEnrichment: true }, at(15));
        expect(await f.settings.put(tenant, { webEnrichment: false }, at(20))).toEqual({ webEnrichment: false, updatedAt: at(20) });
        expect(await f.settings.get(tenant)).toEqual({ webEnrichment: false, updatedAt: at(20) });
        expect(await f.settings.get(other)).toEqual({ webEnrichment: true, updatedAt: at(15) });
      });
    });
  });
}
