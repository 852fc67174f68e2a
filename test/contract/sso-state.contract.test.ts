import { createHash, randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedSsoStateStore } from '../../adapters/embedded/sso-state.js';
import { createMongoSsoStateStore } from '../../adapters/mongo/sso-state.js';
import type { PendingLogin, SsoStateStore } from '../../server/ports/sso-state.js';

/** One behavioural suite for every SsoStateStore adapter. */
function contract(name: string, open: () => Promise<{ store: SsoStateStore; close(): Promise<void> }>) {
  describe(`SsoStateStore contract: ${name}`, () => {
    let store: SsoStateStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    const t0 = new Date('2030-01-01T00:00:00.000Z');
    const pending = (overrides: Partial<PendingLogin> = {}): PendingLogin => ({
      stateHash: createHash('sha256').update(randomBytes(16)).digest('hex'),
      providerId: 'acme',
      nonce: randomBytes(16).toString('base64url'),
      codeVerifier: randomBytes(32).toString('base64url'),
      redirectUri: 'https://tm.example/auth/callback',
      createdAt: t0,
      expiresAt: new Date(t0.getTime() + 600_000),
      ...overrides,
    });

    it('returns a saved login once, with every field intact', async () => {
      const login = pending();
      await store.save(login);
      const got = await store.consume(login.stateHash, new Date(t0.getTime() + 1000));
      expect(got).toEqual(login);
      expect(await store.consume(login.stateHash, new Date(t0.getTime() + 2000))).toBeNull();
    });

    it('answers null for an unknown state', async () => {
      expect(await store.consume('0'.repeat(64), t0)).toBeNull();
    });

    it('refuses an expired login and removes it', async () => {
      const login = pending();
      await store.save(login);
      expect(await store.consume(login.stateHash, login.expiresAt)).toBeNull();
      // Gone, not just hidden: even an earlier clock cannot bring it back.
      expect(await store.consume(login.stateHash, t0)).toBeNull();
    });

    it('lets only one of many concurrent consumers win', async () => {
      const login = pending();
      await store.save(login);
      const results = await Promise.all(Array.from({ length: 8 }, () => store.consume(login.stateHash, t0)));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    it('rejects a second login with the same state hash', async () => {
      const login = pending();
      await store.save(login);
      await expect(store.save({ ...login, providerId: 'other' })).rejects.toThrow();
      expect((await store.consume(login.stateHash, t0))?.providerId).toBe('acme');
    });

    it('purges expired logins and keeps live ones', async () => {
      const late = new Date(t0.getTime() + 10 * 86_400_000);
      await store.purgeExpired(late);
      const old = pending({ expiresAt: new Date(t0.getTime() + 1000) });
      const live = pending({ expiresAt: new Date(late.getTime() + 600_000) });
      await store.save(old);
      await store.save(live);
      expect(await store.purgeExpired(late)).toBe(1);
      expect(await store.consume(old.stateHash, t0)).toBeNull();
      expect(await store.consume(live.stateHash, late)).toEqual(live);
    });
  });
}

contract('embedded (libsql)', async () => {
  const db = openInMemoryDatabase();
  return {
    store: createEmbeddedSsoStateStore(db),
    close: async () => {
      db.close();
    },
  };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  contract('mongo', async () => {
    const client = await new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5000 }).connect();
    const db = client.db(`tm_contract_sso_${randomBytes(4).toString('hex')}`);
    return {
      store: await createMongoSsoStateStore(db),
      close: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
} else {
  describe('SsoStateStore contract: mongo', () => {
    it.skip('skipped: MONGODB_URL is not set', () => {});
  });
}
