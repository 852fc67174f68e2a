import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedApiKeyStore } from '../../adapters/embedded/api-key-store.js';
import { fileChangeSignal, processChangeSignal } from '../../adapters/embedded/change-signal.js';
import { withCredentialCache } from '../../adapters/embedded/credential-cache.js';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import type { ApiKeyStore, NewApiKeyRecord } from '../../server/ports/api-keys.js';

const hash = () => createHash('sha256').update(randomBytes(32)).digest('hex');
const newKey = (): NewApiKeyRecord => ({
  id: randomUUID(),
  name: 'agent',
  scopes: ['memories:read'],
  namespaceRestrictions: null,
  ipAllowlist: null,
  secretHash: hash(),
  secretPrefix: 'tmk_abcdefgh',
  createdBy: null,
  createdAt: '2030-01-01T00:00:00.000Z',
});

let dir: string;
const open: EmbeddedDatabase[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tm-credentials-'));
});
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What one process of `serve --processes N` has: its own connection, its own cache, the shared signal file. */
function processOnDataDir(options: Parameters<typeof withCredentialCache>[2] = {}) {
  const db = openEmbeddedDatabase(dir);
  open.push(db);
  return { db, store: withCredentialCache(createEmbeddedApiKeyStore(db), fileChangeSignal(path.join(dir, 'api-key-changes')), options) };
}

describe('the credential cache of the embedded profile', () => {
  it('serves repeated lookups from memory: a change made behind its back is not seen until the signal moves', async () => {
    const { db, store } = processOnDataDir();
    const tenant = randomUUID();
    const key = await store.insert(tenant, newKey());
    expect((await store.findBySecretHash(key.secretHash))?.status).toBe('active');
    // Nothing but the adapter may change keys; this statement stands in for "was it read again?".
    db.prepare("UPDATE api_keys SET scopes = '[\"usage:read\"]' WHERE id = ?").run([key.id]);
    expect((await store.findBySecretHash(key.secretHash))?.scopes).toEqual(['memories:read']);
  });

  it('sees a revocation made by another process at once', async () => {
    const a = processOnDataDir();
    const b = processOnDataDir();
    const tenant = randomUUID();
    const key = await a.store.insert(tenant, newKey());
    expect((await a.store.findBySecretHash(key.secretHash))?.status).toBe('active');
    expect((await b.store.findBySecretHash(key.secretHash))?.status).toBe('active');

    await b.store.revoke(tenant, key.id, '2030-01-02T00:00:00.000Z');
    expect((await a.store.findBySecretHash(key.secretHash))?.status).toBe('revoked');
    expect((await b.store.findBySecretHash(key.secretHash))?.status).toBe('revoked');
  });

  it('stops finding a rotated-away secret in every process at once, and finds the new one', async () => {
    const a = processOnDataDir();
    const b = processOnDataDir();
    const tenant = randomUUID();
    const key = await a.store.insert(tenant, newKey());
    expect(await a.store.findBySecretHash(key.secretHash)).not.toBeNull();

    const next = hash();
    await b.store.replaceSecret(tenant, key.id, { secretHash: next, secretPrefix: 'tmk_zzzzzzzz', rotatedAt: '2030-01-02T00:00:00.000Z' });
    expect(await a.store.findBySecretHash(key.secretHash)).toBeNull();
    expect((await a.store.findBySecretHash(next))?.id).toBe(key.id);
  });

  it('does not remember unknown secrets: a key made in another process is found at once', async () => {
    const a = processOnDataDir();
    const b = processOnDataDir();
    const record = newKey();
    expect(await a.store.findBySecretHash(record.secretHash)).toBeNull();
    await b.store.insert(randomUUID(), record);
    expect((await a.store.findBySecretHash(record.secretHash))?.id).toBe(record.id);
  });

  it('reads a key again after maxAgeMs even when no signal came (a process killed between commit and signal)', async () => {
    let now = 1_000;
    const { db, store } = processOnDataDir({ maxAgeMs: 30_000, clock: () => now });
    const tenant = randomUUID();
    const key = await store.insert(tenant, newKey());
    await store.findBySecretHash(key.secretHash);
    db.prepare("UPDATE api_keys SET status = 'revoked' WHERE id = ?").run([key.id]);
    now += 29_999;
    expect((await store.findBySecretHash(key.secretHash))?.status).toBe('active');
    now += 1;
    expect((await store.findBySecretHash(key.secretHash))?.status).toBe('revoked');
  });

  it('hands out frozen credentials, so no request can alter what the next one sees', async () => {
    const { store } = processOnDataDir();
    const key = await store.insert(randomUUID(), newKey());
    const found = await store.findBySecretHash(key.secretHash);
    expect(Object.isFrozen(found)).toBe(true);
  });

  it('works for a database only this process opens, with the in-process signal', async () => {
    const db = openEmbeddedDatabase(dir, 'solo.db');
    open.push(db);
    const store: ApiKeyStore = withCredentialCache(createEmbeddedApiKeyStore(db), processChangeSignal());
    const tenant = randomUUID();
    const key = await store.insert(tenant, newKey());
    expect((await store.findBySecretHash(key.secretHash))?.status).toBe('active');
    await store.revoke(tenant, key.id, '2030-01-02T00:00:00.000Z');
    expect((await store.findBySecretHash(key.secretHash))?.status).toBe('revoked');
  });
});
