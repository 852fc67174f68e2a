import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileChangeSignal } from '../../adapters/embedded/change-signal.js';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { withTenantCache } from '../../adapters/embedded/tenant-cache.js';
import { createEmbeddedTenantStore } from '../../adapters/embedded/tenants.js';

/** Two caches over one data directory stand for two processes of `serve --processes 2`. */
let dir: string;
let db: EmbeddedDatabase;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tenant-cache-'));
  db = openEmbeddedDatabase(dir);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tenant cache', () => {
  it('serves remembered tenants, and a suspension made by another process applies at the next lookup', async () => {
    const port = createEmbeddedTenantStore(db);
    const signalFile = path.join(dir, 'tenant-changes');
    const one = withTenantCache(port, fileChangeSignal(signalFile));
    const two = withTenantCache(port, fileChangeSignal(signalFile));
    db.prepare(
      "INSERT INTO users (id, email, name, password_hash, created_at) VALUES ('u1', 'u1@example.test', NULL, NULL, '2030-01-01T00:00:00Z')",
    ).run();
    const tenant = await port.create(
      { id: 't1', name: 'T', plan: 'free', status: 'active', createdAt: '2030-01-01T00:00:00Z' },
      { userId: 'u1', isDefault: true, createdAt: '2030-01-01T00:00:00Z' },
    );
    expect((await two.get(tenant.id))?.status).toBe('active');
    // Changed behind the cache's back (no signal): the remembered record is served.
    db.prepare("UPDATE tenants SET status = 'suspended' WHERE id = 't1'").run();
    expect((await two.get(tenant.id))?.status).toBe('active');
    db.prepare("UPDATE tenants SET status = 'active' WHERE id = 't1'").run();
    // Through the port's setStatus in the other process: the signal empties every cache.
    await one.setStatus(tenant.id, 'suspended');
    expect((await two.get(tenant.id))?.status).toBe('suspended');
    expect((await one.get(tenant.id))?.status).toBe('suspended');
    expect(await two.get('unknown')).toBeNull();
  });
});
