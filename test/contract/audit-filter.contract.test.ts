import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedAuditStore } from '../../adapters/embedded/audit.js';
import { createMongoAuditStore } from '../../adapters/mongo/audit.js';
import type { AuditEventRecord, AuditStore } from '../../server/ports/audit.js';
import { onEmbeddedAndMongo } from '../support/identity-stores.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

/** The audit store's filtered list (portal audit page): type exact or prefix, actor, time bounds, paging, total. */
function contract(name: string, open: () => Promise<{ ports: AuditStore; close(): Promise<void> }>) {
  describe(`audit filter contract: ${name}`, () => {
    let audit: AuditStore;
    let close: () => Promise<void>;
    const tenant = randomUUID();
    const other = randomUUID();
    // seq: type, actor, minute
    const plan: [string, { userId?: string; keyId?: string }, number][] = [
      ['auth.login', { userId: 'u1' }, 0],
      ['auth.login_failed', { userId: 'u2' }, 1],
      ['api_key.create', { userId: 'u1' }, 2],
      ['authz.other', { keyId: 'k1' }, 3],
      ['auth.step_up', { keyId: 'u1' }, 4],
      ['memory.delete', { keyId: 'k1' }, 5],
      ['auth', { userId: 'u2' }, 6],
    ];
    let written: AuditEventRecord[] = [];

    const append = (tenantId: string, type: string, actor: AuditEventRecord['actor'], minute: number) =>
      audit.append(tenantId, (head) => ({
        id: randomUUID(),
        tenantId,
        seq: (head?.seq ?? 0) + 1,
        type,
        actor,
        ip: null,
        userAgent: null,
        target: null,
        details: null,
        createdAt: at(minute),
        prevHash: head?.hash ?? '0'.repeat(64),
        hash: randomBytes(32).toString('hex'),
      }));

    beforeAll(async () => {
      ({ ports: audit, close } = await open());
      written = [];
      for (const [type, actor, minute] of plan) written.push(await append(tenant, type, actor, minute));
      await append(other, 'auth.login', { userId: 'u1' }, 0);
    });
    afterAll(async () => {
      await close?.();
    });

    const seqs = async (query: Parameters<AuditStore['list']>[1]) => {
      const page = await audit.list(tenant, query);
      return { seqs: page.events.map((e) => e.seq), total: page.total };
    };

    it('an exact type matches only that type; a type ending in "." matches its area and nothing beside it', async () => {
      expect(await seqs({ limit: 50, offset: 0, type: 'auth.login' })).toEqual({ seqs: [1], total: 1 });
      expect(await seqs({ limit: 50, offset: 0, type: 'auth.' })).toEqual({ seqs: [5, 2, 1], total: 3 });
      expect(await seqs({ limit: 50, offset: 0, type: 'auth' })).toEqual({ seqs: [7], total: 1 });
      expect(await seqs({ limit: 50, offset: 0, type: 'nothing.' })).toEqual({ seqs: [], total: 0 });
    });

    it('the actor matches a user id or a key id; time bounds are inclusive', async () => {
      expect(await seqs({ limit: 50, offset: 0, actor: 'u1' })).toEqual({ seqs: [5, 3, 1], total: 3 });
      expect(await seqs({ limit: 50, offset: 0, actor: 'k1' })).toEqual({ seqs: [6, 4], total: 2 });
      expect(await seqs({ limit: 50, offset: 0, from: at(2), to: at(4) })).toEqual({ seqs: [5, 4, 3], total: 3 });
      expect(await seqs({ limit: 50, offset: 0, from: at(6) })).toEqual({ seqs: [7], total: 1 });
    });

    it('filters combine, page newest first with the total of the whole selection, and never cross tenants', async () => {
      expect(await seqs({ limit: 1, offset: 1, type: 'auth.', actor: 'u1' })).toEqual({ seqs: [1], total: 2 });
      expect(await seqs({ limit: 2, offset: 0 })).toEqual({ seqs: [7, 6], total: 7 });
      const page = await audit.list(tenant, { limit: 50, offset: 0, type: 'auth.login', actor: 'u1' });
      expect(page.events).toEqual([written[0]]);
      expect((await audit.list(other, { limit: 50, offset: 0, actor: 'u1' })).total).toBe(1);
    });
  });
}

onEmbeddedAndMongo('audit filter contract', contract, {
  embedded: (db) => createEmbeddedAuditStore(db),
  mongo: (db) => createMongoAuditStore(db),
  mongoDbName: 'tm_contract_audit_filter',
});
