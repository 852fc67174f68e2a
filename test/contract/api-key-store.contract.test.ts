import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Database from 'libsql';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedApiKeyStore } from '../../adapters/embedded/api-key-store.js';
import { runMigrations } from '../../adapters/embedded/database.js';
import { processChangeSignal } from '../support/process-change-signal.js';
import { withCredentialCache } from '../../adapters/embedded/credential-cache.js';
import { apiKeysMigration } from '../../adapters/embedded/migrations/0002_api_keys.js';
import { apiKeySecretHolderMigration } from '../../adapters/embedded/migrations/0004_api_key_secret_holder.js';
import { createMongoApiKeyStore } from '../../adapters/mongo/api-key-store.js';
import type { ApiKeyStore, NewApiKeyRecord } from '../../server/ports/api-keys.js';
import { openApiKeyStore } from '../support/api-key-store.js';

/** One behavioural suite for every ApiKeyStore adapter. */
function contract(name: string, open: () => Promise<{ store: ApiKeyStore; close(): Promise<void> }>) {
  describe(`ApiKeyStore contract: ${name}`, () => {
    let store: ApiKeyStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    const hash = () => createHash('sha256').update(randomBytes(32)).digest('hex');
    const newKey = (overrides: Partial<NewApiKeyRecord> = {}): NewApiKeyRecord => {
      const createdBy = randomUUID();
      return {
        id: randomUUID(),
        name: 'ingest',
        scopes: ['memories:read', 'memories:write'],
        namespaceRestrictions: null,
        ipAllowlist: null,
        secretHash: hash(),
        secretPrefix: 'tmk_abcdefgh',
        createdBy,
        secretIssuedTo: createdBy,
        createdAt: '2030-01-01T00:00:00.000Z',
        ...overrides,
      };
    };

    it('inserts an active key and reads every field back', async () => {
      const tenant = randomUUID();
      const input = newKey({ namespaceRestrictions: ['default', 'team.a'], ipAllowlist: ['10.0.0.0/8', '2001:db8::1'] });
      const created = await store.insert(tenant, input);
      const expected = {
        id: input.id,
        tenantId: tenant,
        name: 'ingest',
        scopes: ['memories:read', 'memories:write'],
        namespaceRestrictions: ['default', 'team.a'],
        ipAllowlist: ['10.0.0.0/8', '2001:db8::1'],
        secretHash: input.secretHash,
        secretPrefix: 'tmk_abcdefgh',
        status: 'active',
        createdBy: input.createdBy,
        secretIssuedTo: input.createdBy,
        createdAt: '2030-01-01T00:00:00.000Z',
        rotatedAt: null,
        revokedAt: null,
        lastUsedAt: null,
      };
      expect(created).toEqual(expected);
      expect(await store.get(tenant, input.id)).toEqual(expected);
      const {
        name: _n,
        secretPrefix: _p,
        createdBy: _c,
        secretIssuedTo: _i,
        createdAt: _a,
        rotatedAt: _r,
        revokedAt: _v,
        ...credential
      } = expected;
      expect(await store.findBySecretHash(input.secretHash)).toEqual(credential);
    });

    it('scopes get, list, rotate and revoke by tenant', async () => {
      const a = randomUUID();
      const b = randomUUID();
      const key = await store.insert(a, newKey());
      expect(await store.get(b, key.id)).toBeNull();
      expect(await store.list(b)).toEqual([]);
      expect(
        await store.replaceSecret(b, key.id, {
          secretHash: hash(),
          secretPrefix: 'tmk_x',
          rotatedAt: '2030-01-02T00:00:00.000Z',
          issuedTo: randomUUID(),
        }),
      ).toBeNull();
      expect(await store.revoke(b, key.id, '2030-01-02T00:00:00.000Z')).toBeNull();
      expect((await store.get(a, key.id))?.status).toBe('active');
      expect((await store.get(a, key.id))?.secretHash).toBe(key.secretHash);
    });

    it('lists a tenant’s keys newest first, revoked ones included', async () => {
      const tenant = randomUUID();
      const k1 = await store.insert(tenant, newKey({ name: 'one', createdAt: '2030-01-01T00:00:00.000Z' }));
      const k2 = await store.insert(tenant, newKey({ name: 'two', createdAt: '2030-01-03T00:00:00.000Z' }));
      const k3 = await store.insert(tenant, newKey({ name: 'three', createdAt: '2030-01-02T00:00:00.000Z' }));
      await store.revoke(tenant, k3.id, '2030-01-04T00:00:00.000Z');
      const listed = await store.list(tenant);
      expect(listed.map((k) => k.id)).toEqual([k2.id, k3.id, k1.id]);
      expect(listed.map((k) => k.status)).toEqual(['active', 'revoked', 'active']);
    });

    it('replaces the secret atomically: the old hash stops matching, the new one matches', async () => {
      const tenant = randomUUID();
      const key = await store.insert(tenant, newKey());
      const next = hash();
      const rotator = randomUUID();
      const rotated = await store.replaceSecret(tenant, key.id, {
        secretHash: next,
        secretPrefix: 'tmk_newprefx',
        rotatedAt: '2030-01-05T00:00:00.000Z',
        issuedTo: rotator,
      });
      expect(rotated).toMatchObject({
        id: key.id,
        secretHash: next,
        secretPrefix: 'tmk_newprefx',
        rotatedAt: '2030-01-05T00:00:00.000Z',
        status: 'active',
      });
      expect(await store.findBySecretHash(key.secretHash)).toBeNull();
      expect((await store.findBySecretHash(next))?.id).toBe(key.id);
    });

    it('records who received the current secret: the creator at insert, whoever rotated it since (creator unchanged)', async () => {
      const tenant = randomUUID();
      const key = await store.insert(tenant, newKey());
      const system = await store.insert(tenant, newKey({ createdBy: null, secretIssuedTo: null }));
      expect([key.secretIssuedTo, system.secretIssuedTo]).toEqual([key.createdBy, null]);
      const rotator = randomUUID();
      const rotated = await store.replaceSecret(tenant, key.id, {
        secretHash: hash(),
        secretPrefix: 'tmk_rotated1',
        rotatedAt: '2030-01-05T00:00:00.000Z',
        issuedTo: rotator,
      });
      expect(rotated).toMatchObject({ createdBy: key.createdBy, secretIssuedTo: rotator });
      expect(await store.get(tenant, key.id)).toMatchObject({ createdBy: key.createdBy, secretIssuedTo: rotator });
      expect((await store.list(tenant)).map((k) => [k.id, k.secretIssuedTo])).toEqual(
        expect.arrayContaining([
          [key.id, rotator],
          [system.id, null],
        ]),
      );
      await store.replaceSecret(tenant, system.id, {
        secretHash: hash(),
        secretPrefix: 'tmk_rotated2',
        rotatedAt: '2030-01-06T00:00:00.000Z',
        issuedTo: null,
      });
      expect((await store.get(tenant, system.id))?.secretIssuedTo).toBeNull();
      // A refused rotation (revoked key) changes no holder.
      await store.revoke(tenant, key.id, '2030-01-07T00:00:00.000Z');
      expect(
        await store.replaceSecret(tenant, key.id, {
          secretHash: hash(),
          secretPrefix: 'tmk_rotated3',
          rotatedAt: '2030-01-08T00:00:00.000Z',
          issuedTo: randomUUID(),
        }),
      ).toBeNull();
      expect((await store.get(tenant, key.id))?.secretIssuedTo).toBe(rotator);
    });

    it('revokes once: a second revoke reports no change and keeps the first time; a revoked key cannot be rotated', async () => {
      const tenant = randomUUID();
      const key = await store.insert(tenant, newKey());
      const first = await store.revoke(tenant, key.id, '2030-01-06T00:00:00.000Z');
      expect(first).toMatchObject({ changed: true, key: { status: 'revoked', revokedAt: '2030-01-06T00:00:00.000Z' } });
      const second = await store.revoke(tenant, key.id, '2030-01-07T00:00:00.000Z');
      expect(second).toMatchObject({ changed: false, key: { status: 'revoked', revokedAt: '2030-01-06T00:00:00.000Z' } });
      expect(
        await store.replaceSecret(tenant, key.id, {
          secretHash: hash(),
          secretPrefix: 'tmk_x',
          rotatedAt: '2030-01-08T00:00:00.000Z',
          issuedTo: randomUUID(),
        }),
      ).toBeNull();
      // Still found by its hash, so authentication can tell "revoked" from "unknown".
      expect((await store.findBySecretHash(key.secretHash))?.status).toBe('revoked');
      expect(await store.revoke(tenant, randomUUID(), '2030-01-07T00:00:00.000Z')).toBeNull();
    });

    it('rejects a duplicate secret hash', async () => {
      const tenant = randomUUID();
      const key = await store.insert(tenant, newKey());
      await expect(store.insert(randomUUID(), newKey({ secretHash: key.secretHash }))).rejects.toThrow();
    });

    it('records usage in a batch, only ever moving last_used_at forward, and only for the right tenant', async () => {
      const tenant = randomUUID();
      const k1 = await store.insert(tenant, newKey());
      const k2 = await store.insert(tenant, newKey());
      await store.recordUsage([
        { tenantId: tenant, keyId: k1.id, usedAt: '2030-02-01T00:00:10.000Z' },
        { tenantId: tenant, keyId: k2.id, usedAt: '2030-02-01T00:00:20.000Z' },
      ]);
      expect((await store.get(tenant, k1.id))?.lastUsedAt).toBe('2030-02-01T00:00:10.000Z');
      expect((await store.get(tenant, k2.id))?.lastUsedAt).toBe('2030-02-01T00:00:20.000Z');
      expect((await store.findBySecretHash(k2.secretHash))?.lastUsedAt).toBe('2030-02-01T00:00:20.000Z');
      await store.recordUsage([{ tenantId: tenant, keyId: k1.id, usedAt: '2030-02-01T00:00:05.000Z' }]);
      expect((await store.get(tenant, k1.id))?.lastUsedAt).toBe('2030-02-01T00:00:10.000Z');
      await store.recordUsage([{ tenantId: randomUUID(), keyId: k1.id, usedAt: '2030-02-02T00:00:00.000Z' }]);
      expect((await store.get(tenant, k1.id))?.lastUsedAt).toBe('2030-02-01T00:00:10.000Z');
      await store.recordUsage([]);
    });

    it('answers null for an unknown hash', async () => {
      expect(await store.findBySecretHash(hash())).toBeNull();
    });
  });
}

contract('embedded (libsql)', async () => {
  const { db, store } = openApiKeyStore();
  return { store, close: async () => void db.close() };
});

// What the embedded profile serves: the same store behind its per-process credential cache.
contract('embedded (libsql) behind the credential cache', async () => {
  const { db, store } = openApiKeyStore();
  return { store: withCredentialCache(store, processChangeSignal()), close: async () => void db.close() };
});

describe('embedded migration 4 (secret_issued_to)', () => {
  it('attributes the current secret of keys stored before it to their creator', async () => {
    const db = new Database(':memory:');
    runMigrations(db, [apiKeysMigration]);
    const insert = db.prepare(`INSERT INTO api_keys (id, tenant_id, name, scopes, secret_hash, secret_prefix, created_by, created_at)
      VALUES (?, 't', 'old', '["usage:read"]', ?, 'tmk_abcdefgh', ?, '2030-01-01T00:00:00.000Z')`);
    insert.run(['k-user', 'a'.repeat(64), 'u-1']);
    insert.run(['k-system', 'b'.repeat(64), null]);
    runMigrations(db, [apiKeysMigration, apiKeySecretHolderMigration]);
    const store = createEmbeddedApiKeyStore(db);
    expect((await store.list('t')).map((k) => [k.id, k.createdBy, k.secretIssuedTo]).sort()).toEqual([
      ['k-system', null, null],
      ['k-user', 'u-1', 'u-1'],
    ]);
    db.close();
  });
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  contract('mongo', async () => {
    const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
    const db = client.db(`tm_contract_api_keys_${process.pid}_${Date.now()}`);
    return {
      store: await createMongoApiKeyStore(db),
      close: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
} else {
  describe('ApiKeyStore contract: mongo', () => {
    it.skip('skipped: set MONGODB_URL to run the contract against MongoDB', () => {});
  });
}
