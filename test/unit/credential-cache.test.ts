import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedApiKeyStore } from '../../adapters/embedded/api-key-store.js';
import { fileChangeSignal } from '../../adapters/embedded/change-signal.js';
import { processChangeSignal } from '../support/process-change-signal.js';
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
  secretIssuedTo: null,
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
    db.prepare('UPDATE api_keys SET scopes = \'["usage:read"]\' WHERE id = ?').run([key.id]);
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
    await b.store.replaceSecret(tenant, key.id, {
      secretHash: next,
      secretPrefix: 'tmk_zzzzzzzz',
      rotatedAt: '2030-01-02T00:00:00.000Z',
      issuedTo: null,
    });
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

  it('hands out frozen credentials, lists included, so no request can alter what the next one sees', async () => {
    const { store } = processOnDataDir();
    const key = await store.insert(randomUUID(), { ...newKey(), namespaceRestrictions: ['a'], ipAllowlist: ['10.0.0.0/8'] });
    const found = await store.findBySecretHash(key.secretHash);
    expect(Object.isFrozen(found)).toBe(true);
    expect(Object.isFrozen(found!.scopes)).toBe(true);
    expect(Object.isFrozen(found!.namespaceRestrictions)).toBe(true);
    expect(Object.isFrozen(found!.ipAllowlist)).toBe(true);
  });

  it('does not keep a row read across a change that a concurrent lookup already saw', async () => {
    // Process A's store answers lookups of key 1 only when released, so a second lookup can run meanwhile.
    const dbA = openEmbeddedDatabase(dir);
    open.push(dbA);
    const inner = createEmbeddedApiKeyStore(dbA);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let slowHash = '';
    const slowFirst: ApiKeyStore = {
      ...inner,
      async findBySecretHash(h) {
        const row = await inner.findBySecretHash(h);
        if (h === slowHash) await gate;
        return row;
      },
    };
    const a = withCredentialCache(slowFirst, fileChangeSignal(path.join(dir, 'api-key-changes')));
    const b = processOnDataDir();
    const tenant = randomUUID();
    const k1 = await b.store.insert(tenant, newKey());
    const k2 = await b.store.insert(tenant, newKey());
    slowHash = k1.secretHash;

    const first = a.findBySecretHash(k1.secretHash); // reads k1 as active, then waits
    await b.store.revoke(tenant, k1.id, '2030-01-02T00:00:00.000Z'); // another process revokes and signals
    await a.findBySecretHash(k2.secretHash); // sees the new stamp and empties A's cache
    release();
    expect((await first)?.status).toBe('active'); // that lookup began before the revocation
    slowHash = '';
    expect((await a.findBySecretHash(k1.secretHash))?.status).toBe('revoked');
  });

  it('still answers a revocation whose signal cannot be written, and stops remembering keys in that process', async () => {
    const db = openEmbeddedDatabase(dir, 'solo.db');
    open.push(db);
    const errors: unknown[] = [];
    const broken = {
      stamp: () => 'fixed',
      bump: () => {
        throw Object.assign(new Error('read-only file system'), { code: 'EROFS' });
      },
    };
    const store = withCredentialCache(createEmbeddedApiKeyStore(db), broken, { onSignalError: (e) => void errors.push(e) });
    const tenant = randomUUID();
    const key = await store.insert(tenant, newKey());
    await store.findBySecretHash(key.secretHash);
    await expect(store.revoke(tenant, key.id, '2030-01-02T00:00:00.000Z')).resolves.toMatchObject({ changed: true });
    expect(errors).toHaveLength(1);
    expect((await store.findBySecretHash(key.secretHash))?.status).toBe('revoked');
    // From now on every lookup reads the store: a change behind its back is seen at once.
    const other = await store.insert(tenant, newKey());
    await store.findBySecretHash(other.secretHash);
    db.prepare("UPDATE api_keys SET status = 'revoked' WHERE id = ?").run([other.id]);
    expect((await store.findBySecretHash(other.secretHash))?.status).toBe('revoked');
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
