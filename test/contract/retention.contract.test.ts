import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedRetentionStore } from '../../adapters/embedded/retention.js';
import { MEMORY_COLLECTION_NAMES } from '../../adapters/mongo/memory-collections.js';
import { createMongoRetentionStore } from '../../adapters/mongo/retention.js';
import type { RetentionStore } from '../../server/ports/retention.js';
import { onEmbeddedAndMongo } from '../support/identity-stores.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const day = (d: number) => new Date(T0 + d * 86_400_000).toISOString();

interface Ports {
  retention: RetentionStore;
  /** Stores versions 1..n of a memory, version i created on `days[i-1]` (as the memory store's commit would). */
  seed(tenantId: string, memoryId: string, days: number[]): Promise<void>;
  versionsOf(tenantId: string, memoryId: string): Promise<number[]>;
}

function contract(name: string, open: () => Promise<{ ports: Ports; close(): Promise<void> }>) {
  describe(`retention contract: ${name}`, () => {
    let p: Ports;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ ports: p, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    it('answers null settings for a tenant never set, stores and replaces them, and lists only limited tenants in id order', async () => {
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()].sort();
      expect(await p.retention.get(a!)).toEqual({ deletedDays: null, supersededDays: null, updatedAt: null, updatedBy: null });
      await p.retention.put(a!, { deletedDays: 30, supersededDays: null, updatedAt: day(0), updatedBy: 'u1' });
      const stored = await p.retention.put(a!, { deletedDays: null, supersededDays: 7, updatedAt: day(1), updatedBy: 'u2' });
      expect(stored).toEqual({ deletedDays: null, supersededDays: 7, updatedAt: day(1), updatedBy: 'u2' });
      expect(await p.retention.get(a!)).toEqual(stored);
      await p.retention.put(b!, { deletedDays: null, supersededDays: null, updatedAt: day(0), updatedBy: 'u1' });
      await p.retention.put(c!, { deletedDays: 3650, supersededDays: 1, updatedAt: day(0), updatedBy: 'u1' });
      const listed = (await p.retention.listLimited(null, 1000)).map((r) => r.tenantId);
      expect(listed).toContain(a);
      expect(listed).toContain(c);
      expect(listed).not.toContain(b); // keeps everything: nothing for the job to do
      expect(listed).toEqual([...listed].sort());
      const after = await p.retention.listLimited(a!, 1000);
      expect(after.map((r) => r.tenantId)).not.toContain(a);
    });

    /** A whole pass, as the retention service walks it: the versions removed. */
    const purgeAll = async (tenantId: string, cutoff: string, step: number) => {
      let removed = 0;
      let after: string | null = null;
      do {
        const r = await p.retention.purgeSupersededVersions(tenantId, cutoff, after, step);
        removed += r.removed;
        after = r.next;
      } while (after !== null);
      return removed;
    };

    it('purges versions replaced before the cutoff, keeps the newest version before it and every later one, and only in that tenant', async () => {
      const tenant = randomUUID();
      const other = randomUUID();
      const [m1, m2, m3, m4] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      await p.seed(tenant, m1, [0, 1, 2, 20]); // cutoff day 10: v3 is the newest before it; v1, v2 go
      await p.seed(tenant, m2, [0]); // a single version: never purged
      await p.seed(tenant, m3, [15, 16]); // replaced after the cutoff: kept
      await p.seed(other, m4, [0, 1, 2]); // another tenant's versions: untouched
      expect(await purgeAll(tenant, day(10), 1)).toBe(2);
      expect(await purgeAll(tenant, day(10), 1)).toBe(0);
      expect(await p.versionsOf(tenant, m1)).toEqual([3, 4]);
      expect(await p.versionsOf(tenant, m2)).toEqual([1]);
      expect(await p.versionsOf(tenant, m3)).toEqual([1, 2]);
      expect(await p.versionsOf(other, m4)).toEqual([1, 2, 3]);
      expect(await p.versionsOf(other, m1)).toEqual([]);
    });

    it('walks the memories in id order, at most the given number per step, until it says there is no next', async () => {
      const tenant = randomUUID();
      const ids = [randomUUID(), randomUUID(), randomUUID()].sort();
      for (const id of ids) await p.seed(tenant, id, [0, 1]);
      const first = await p.retention.purgeSupersededVersions(tenant, day(5), null, 2);
      expect(first).toEqual({ removed: 2, next: ids[1] });
      expect(await p.versionsOf(tenant, ids[2]!)).toEqual([1, 2]); // not reached yet
      expect(await p.retention.purgeSupersededVersions(tenant, day(5), first.next, 2)).toEqual({ removed: 1, next: null });
      expect(await p.versionsOf(tenant, ids[2]!)).toEqual([2]);
      expect(await p.retention.purgeSupersededVersions(tenant, day(5), null, 2)).toEqual({ removed: 0, next: ids[1] });
    });
  });
}

const version = (tenantId: string, memoryId: string, v: number, createdAt: string) => ({
  memoryId,
  version: v,
  tenantId,
  change: v === 1 ? 'create' : 'update',
  title: `t${v}`,
  content: `c${v}`,
  tags: [] as string[],
  type: 'semantic',
  agentId: null,
  metadata: {},
  sensitivity: 'low',
  status: 'active',
  rolledBackTo: null,
  createdAt,
});

function embeddedPorts(db: EmbeddedDatabase): Ports {
  const insert = db.prepare(`INSERT INTO memory_versions (memory_id, version, tenant_id, change, title, content, tags, type,
      agent_id, metadata, sensitivity, status, rolled_back_to, created_at) VALUES (?, ?, ?, ?, ?, ?, '[]', ?, NULL, '{}', ?, ?, NULL, ?)`);
  return {
    retention: createEmbeddedRetentionStore(db),
    async seed(tenantId, memoryId, days) {
      days.forEach((d, i) => {
        const v = version(tenantId, memoryId, i + 1, day(d));
        insert.run([memoryId, v.version, tenantId, v.change, v.title, v.content, v.type, v.sensitivity, v.status, v.createdAt]);
      });
    },
    async versionsOf(tenantId, memoryId) {
      return (
        db
          .prepare('SELECT version FROM memory_versions WHERE tenant_id = ? AND memory_id = ? ORDER BY version')
          .all([tenantId, memoryId]) as {
          version: number;
        }[]
      ).map((r) => Number(r.version));
    },
  };
}

async function mongoPorts(db: Db): Promise<Ports> {
  const versions = db.collection<{ _id: string; tenantId: string; memoryId: string; version: number }>(MEMORY_COLLECTION_NAMES.versions);
  return {
    retention: await createMongoRetentionStore(db),
    async seed(tenantId, memoryId, days) {
      await versions.insertMany(
        days.map((d, i) => ({ _id: `${tenantId}:${memoryId}:${i + 1}`, ...version(tenantId, memoryId, i + 1, day(d)) })),
      );
    },
    async versionsOf(tenantId, memoryId) {
      return (await versions.find({ tenantId, memoryId }).sort({ version: 1 }).toArray()).map((d) => d.version);
    },
  };
}

onEmbeddedAndMongo('retention contract', contract, {
  embedded: embeddedPorts,
  mongo: mongoPorts,
  mongoDbName: 'tm_contract_retention',
});
