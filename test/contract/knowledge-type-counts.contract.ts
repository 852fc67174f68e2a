import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeObjectRecord, StorageQuota } from '../../server/ports/knowledge.js';
import { at, knowledgeObject, revised, structure } from './knowledge-records.js';
import type { KnowledgeStoresFixture } from './knowledge-store.contract.js';

const UNLIMITED: StorageQuota = { storageBytes: null };

/**
 * What the portal's knowledge pages read besides the REST routes: the types a tenant published, its
 * object counts per type, and list pages by offset. Every adapter family must answer alike.
 */
export function describeKnowledgeTypeCountsContract(name: string, make: () => Promise<KnowledgeStoresFixture>): void {
  describe(`knowledge type counts contract: ${name}`, () => {
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

    const created = async (tenantId: string, type: string, extra: Partial<KnowledgeObjectRecord> = {}) => {
      const o = knowledgeObject(tenantId, type, extra);
      expect(await f.objects.create(o, UNLIMITED)).toBe('ok');
      return o;
    };

    it('types: the types the tenant published a version of, once each, in name order; none of another tenant', async () => {
      expect(await f.structures.types(tenant)).toEqual([]);
      await f.structures.saveDraft(structure(tenant, 'vendor', '1.0.0'));
      await f.structures.saveDraft(structure(tenant, 'vendor', '1.1.0'));
      await f.structures.saveDraft(structure(tenant, 'asset', '2.0.0'));
      await f.structures.saveDraft(structure(other, 'ledger', '1.0.0'));
      expect(await f.structures.types(tenant)).toEqual(['asset', 'vendor']);
      expect(await f.structures.types(other)).toEqual(['ledger']);
    });

    it('countByType: live objects per type across statuses and scores, following creates, updates and deletes', async () => {
      expect(await f.objects.countByType(tenant)).toEqual({});
      const a = await created(tenant, 'person', { status: 'INCOMPLETE', completenessScore: 0.25 });
      await created(tenant, 'person', { status: 'COMPLETE', completenessScore: 1 });
      const p = await created(tenant, 'project');
      await created(other, 'person');
      expect(await f.objects.countByType(tenant)).toEqual({ person: 2, project: 1 });
      // Moving an object to another status and score keeps it counted once.
      expect(await f.objects.update(revised(a, a.fields, { status: 'COMPLETE', completenessScore: 1 }), a.revision, UNLIMITED)).toBe('ok');
      expect(await f.objects.countByType(tenant)).toEqual({ person: 2, project: 1 });
      await f.objects.delete(tenant, p.id);
      expect(await f.objects.countByType(tenant)).toEqual({ person: 2 });
      expect(await f.objects.countByType(other)).toEqual({ person: 1 });
    });

    it('list with offset skips that many in the list order, after the filters; the total is unchanged', async () => {
      const mine: KnowledgeObjectRecord[] = [];
      for (let i = 0; i < 7; i++)
        mine.push(await created(tenant, 'person', { createdAt: at(i), completenessScore: i % 2 === 0 ? 0.5 : 1 }));
      await created(other, 'person');
      const ids = (os: KnowledgeObjectRecord[]) => os.map((o) => o.id);
      const page = await f.objects.list(tenant, 'person', { limit: 3, offset: 2 });
      expect(ids(page.objects)).toEqual(ids(mine.slice(2, 5)));
      expect(page.total).toBe(7);
      const below = await f.objects.list(tenant, 'person', { limit: 10, offset: 1, completenessLt: 1 });
      expect(ids(below.objects)).toEqual(ids(mine.filter((_, i) => i % 2 === 0).slice(1)));
      expect(below.total).toBe(4);
      expect(await f.objects.list(tenant, 'person', { limit: 3, offset: 7 })).toEqual({ objects: [], total: 7 });
      expect(ids((await f.objects.list(tenant, 'person', { limit: 2, offset: 0 })).objects)).toEqual(ids(mine.slice(0, 2)));
    });
  });
}
