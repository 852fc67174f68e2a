import { createHash, randomUUID } from 'node:crypto';
import type Database from 'libsql';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TenantStore } from '../../server/ports/tenants.js';
import type { ApiKeyStore, ApiKeyUsage } from '../../server/ports/api-keys.js';
import { requireScope } from '../../server/procedures.js';
import { assertNamespaceAllowed } from '../../server/namespace-access.js';
import { apiKeyAuditSink, createApiKeyService, type ApiKeyAuditEvent, type ApiKeyService } from '../../server/services/api-keys.js';
import { createCallerFactory, router } from '../../server/trpc.js';
import { openApiKeyStore } from '../support/api-key-store.js';
import { createInnerContext } from '../support/context.js';
import { z } from 'zod';
import { appError } from '../support/app-error.js';

const SECRET = /^tmk_[a-z2-7]{52}$/;

/** The real store, counting usage writes. */
function counting(store: ApiKeyStore) {
  const writes: ApiKeyUsage[][] = [];
  return {
    writes,
    store: {
      ...store,
      recordUsage: async (uses: readonly ApiKeyUsage[]) => (writes.push([...uses]), store.recordUsage(uses)),
    } satisfies ApiKeyStore,
  };
}

let clock: Date;
let audit: ApiKeyAuditEvent[];
let warnings: string[];
let db: InstanceType<typeof Database>;
let store: ApiKeyStore;
let writes: ApiKeyUsage[][];
let service: ApiKeyService;
let tenants: TenantStore;
const tenant = randomUUID();
const user = randomUUID();
const actor = () => ({ tenantId: tenant, userId: user, role: 'owner' as const, ip: '127.0.0.1', requestId: 'req-1' });

function makeService(s: ApiKeyStore = store) {
  return createApiKeyService({
    store: s,
    tenants,
    audit: async (e) => void audit.push(e),
    logger: { warn: (_o, msg) => void warnings.push(msg) },
    clock: () => clock.getTime(),
    usageFlushMs: 5,
  });
}

beforeEach(() => {
  clock = new Date('2030-03-01T12:00:00.000Z');
  audit = [];
  warnings = [];
  const opened = openApiKeyStore(tenant);
  db = opened.db;
  tenants = opened.tenants;
  const c = counting(opened.store);
  store = c.store;
  writes = c.writes;
  service = makeService();
});

describe('create', () => {
  it('returns a tmk_ secret with 256 random bits once, and stores only its SHA-256', async () => {
    const { key, secret } = await service.create(actor(), {
      name: '  ingest  ',
      scopes: ['memories:write', 'memories:read', 'memories:read'],
    });
    expect(secret).toMatch(SECRET);
    expect(key).toMatchObject({
      tenantId: tenant,
      name: 'ingest',
      scopes: ['memories:read', 'memories:write'],
      status: 'active',
      createdBy: user,
      namespaceRestrictions: null,
      ipAllowlist: null,
      lastUsedAt: null,
    });
    expect(key.prefix).toBe(secret.slice(0, 12));
    const row = db.prepare('SELECT * FROM api_keys WHERE id = ?').get([key.keyId]) as Record<string, unknown>;
    expect(row.secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(secret.slice(12));
    expect(JSON.stringify(key)).not.toContain(secret.slice(12));
    const second = await service.create(actor(), { name: 'other', scopes: ['usage:read'] });
    expect(second.secret).not.toBe(secret);
  });

  it('normalises and de-duplicates restrictions', async () => {
    const { key } = await service.create(actor(), {
      name: 'k',
      scopes: ['knowledge:read'],
      namespaceRestrictions: ['default', 'team-a', 'default'],
      ipAllowlist: ['::ffff:10.0.0.0/104', '10.0.0.0/8', '2001:DB8::/32'],
    });
    expect(key.namespaceRestrictions).toEqual(['default', 'team-a']);
    expect(key.ipAllowlist).toEqual(['10.0.0.0/8', '2001:db8::/32']);
  });

  it('records an audit event without the secret', async () => {
    const { key, secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'api_key.create',
        tenantId: tenant,
        actorUserId: user,
        keyId: key.keyId,
        ip: '127.0.0.1',
        requestId: 'req-1',
      }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(secret.slice(12));
  });

  it.each([
    [{ name: '', scopes: ['usage:read'] }, 'name', 'name: must not be empty'],
    [{ name: '   ', scopes: ['usage:read'] }, 'name', 'name: must not be empty'],
    [{ name: 'x'.repeat(201), scopes: ['usage:read'] }, 'name', 'at most 200'],
    [{ name: 'a\u0000b', scopes: ['usage:read'] }, 'name', 'control characters'],
    [{ name: 'k', scopes: [] }, 'scopes', 'at least one scope'],
    [{ name: 'k', scopes: ['memories:read', 'memories:delete'] }, 'scopes.1', "unknown scope 'memories:delete'"],
    [{ name: 'k', scopes: ['usage:read'], namespaceRestrictions: [] }, 'namespace_restrictions', 'must not be empty'],
    [
      { name: 'k', scopes: ['usage:read'], namespaceRestrictions: ['ok', 'not ok'] },
      'namespace_restrictions.1',
      "'not ok' is not a valid namespace",
    ],
    [{ name: 'k', scopes: ['usage:read'], namespaceRestrictions: ['x'.repeat(65)] }, 'namespace_restrictions.0', 'not a valid namespace'],
    [{ name: 'k', scopes: ['usage:read'], ipAllowlist: [] }, 'ip_allowlist', 'must not be empty'],
    [{ name: 'k', scopes: ['usage:read'], ipAllowlist: ['10.0.0.1', '10.0.0.0/40'] }, 'ip_allowlist.1', "'10.0.0.0/40'"],
    [{ name: 'k', scopes: ['usage:read'], ipAllowlist: ['example.com'] }, 'ip_allowlist.0', "'example.com' is not a valid IP address"],
    [
      { name: 'k', scopes: ['usage:read'], ipAllowlist: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) },
      'ip_allowlist',
      'at most 100',
    ],
  ])('rejects %j with 400 naming %s', async (input, field, message) => {
    const err = await appError(service.create(actor(), input));
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.message).toContain(message);
    expect(err.details?.fields?.[0]?.field).toBe(field);
    expect(await store.list(tenant)).toEqual([]);
  });
});

describe('authenticate', () => {
  it('turns a valid secret into the key’s principal', async () => {
    const { key, secret } = await service.create(actor(), {
      name: 'k',
      scopes: ['memories:read', 'usage:read'],
      namespaceRestrictions: ['team'],
    });
    const principal = await service.authenticate(secret, '203.0.113.9');
    expect(principal).toEqual({
      kind: 'apiKey',
      keyId: key.keyId,
      tenantId: tenant,
      scopes: new Set(['memories:read', 'usage:read']),
      namespaces: ['team'],
    });
    expect(() => assertNamespaceAllowed(principal.namespaces, 'team')).not.toThrow();
    expect(() => assertNamespaceAllowed(principal.namespaces, 'other')).toThrow(expect.objectContaining({ code: 'NAMESPACE_FORBIDDEN' }));
  });

  it('refuses every key of a suspended tenant (403 TENANT_SUSPENDED) until it is resumed; the allowlist is checked first', async () => {
    const { secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    const fenced = await service.create(actor(), { name: 'f', scopes: ['usage:read'], ipAllowlist: ['10.0.0.0/8'] });
    await tenants.setStatus(tenant, 'suspended');
    expect((await appError(service.authenticate(secret, '127.0.0.1'))).code).toBe('TENANT_SUSPENDED');
    expect((await appError(service.authenticate(fenced.secret, '127.0.0.1'))).code).toBe('IP_NOT_ALLOWED');
    expect((await appError(service.authenticate(fenced.secret, '10.1.2.3'))).code).toBe('TENANT_SUSPENDED');
    await tenants.setStatus(tenant, 'active');
    expect((await service.authenticate(secret, '127.0.0.1')).tenantId).toBe(tenant);
  });

  it('answers 401 for malformed, unknown and tampered secrets', async () => {
    const { secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    for (const bad of [
      '',
      'tmk_',
      'secret',
      secret.toUpperCase(),
      `${secret}a`,
      secret.slice(0, -1),
      `${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`,
    ]) {
      const err = await appError(service.authenticate(bad, '127.0.0.1'));
      expect(err.code).toBe('UNAUTHENTICATED');
      expect(err.message).not.toContain(bad.slice(4) || '\u0000');
    }
  });

  it('stops accepting the old secret at once on rotate and accepts the new one', async () => {
    const { key, secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    await service.authenticate(secret, '127.0.0.1');
    const rotated = await service.rotate(actor(), key.keyId);
    expect(rotated.secret).toMatch(SECRET);
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.key.prefix).toBe(rotated.secret.slice(0, 12));
    expect(rotated.key.rotatedAt).toBe(clock.toISOString());
    expect((await appError(service.authenticate(secret, '127.0.0.1'))).code).toBe('UNAUTHENTICATED');
    expect((await service.authenticate(rotated.secret, '127.0.0.1')).keyId).toBe(key.keyId);
    expect(audit.map((e) => e.action)).toEqual(['api_key.create', 'api_key.rotate']);
  });

  it('answers 401 once revoked; revoke is idempotent and audited once; a revoked key cannot be rotated', async () => {
    const { key, secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    const first = await service.revoke(actor(), key.keyId);
    expect(first).toMatchObject({ status: 'revoked', alreadyRevoked: false, key: { status: 'revoked', revokedAt: clock.toISOString() } });
    const err = await appError(service.authenticate(secret, '127.0.0.1'));
    expect(err.code).toBe('UNAUTHENTICATED');
    expect(err.message).toBe('API key revoked');
    const second = await service.revoke(actor(), key.keyId);
    expect(second).toMatchObject({ status: 'revoked', alreadyRevoked: true });
    expect(audit.map((e) => e.action)).toEqual(['api_key.create', 'api_key.revoke']);
    expect((await appError(service.rotate(actor(), key.keyId))).code).toBe('CONFLICT');
  });

  it('sees a revocation made by another process on the very next request (no validity cache)', async () => {
    const other = makeService(store); // a second instance over the same database
    const { key, secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    await service.authenticate(secret, '127.0.0.1');
    await other.revoke(actor(), key.keyId);
    expect((await appError(service.authenticate(secret, '127.0.0.1'))).code).toBe('UNAUTHENTICATED');
    const k2 = await service.create(actor(), { name: 'k2', scopes: ['usage:read'] });
    await service.authenticate(k2.secret, '127.0.0.1');
    const rotated = await other.rotate(actor(), k2.key.keyId);
    expect((await appError(service.authenticate(k2.secret, '127.0.0.1'))).code).toBe('UNAUTHENTICATED');
    expect((await service.authenticate(rotated.secret, '127.0.0.1')).keyId).toBe(k2.key.keyId);
  });

  it('enforces the IP allowlist (IPv4, CIDR, IPv6, IPv4-mapped) with 403 IP_NOT_ALLOWED, audited at most once a minute per address', async () => {
    const { key, secret } = await service.create(actor(), {
      name: 'k',
      scopes: ['usage:read'],
      ipAllowlist: ['198.51.100.7', '10.0.0.0/8', '2001:db8::/32'],
    });
    for (const ok of ['198.51.100.7', '::ffff:198.51.100.7', '10.200.3.4', '2001:db8:5::1']) {
      expect((await service.authenticate(secret, ok)).keyId).toBe(key.keyId);
    }
    for (const denied of ['198.51.100.8', '11.0.0.1', '2001:db9::1', '::1', '']) {
      const err = await appError(service.authenticate(secret, denied));
      expect(err.code).toBe('IP_NOT_ALLOWED');
      expect(err.status).toBe(403);
    }
    await appError(service.authenticate(secret, '198.51.100.8'));
    const denials = audit.filter((e) => e.action === 'api_key.denied_ip');
    expect(denials.map((e) => e.ip)).toEqual(['198.51.100.8', '11.0.0.1', '2001:db9::1', '::1', '']);
    expect(denials[0]).toMatchObject({ tenantId: tenant, keyId: key.keyId, actorUserId: null });
    clock = new Date(clock.getTime() + 60_000);
    await appError(service.authenticate(secret, '198.51.100.8'));
    expect(audit.filter((e) => e.action === 'api_key.denied_ip')).toHaveLength(6);
  });

  it('checks status before the allowlist: a revoked key answers 401 from anywhere', async () => {
    const { key, secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'], ipAllowlist: ['10.0.0.1'] });
    await service.revoke(actor(), key.keyId);
    expect((await appError(service.authenticate(secret, '192.0.2.1'))).code).toBe('UNAUTHENTICATED');
  });
});

describe('last_used_at', () => {
  it('is written in the background at most once per minute per key, and list shows it at once', async () => {
    const { key, secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    expect((await service.list(tenant))[0]!.lastUsedAt).toBeNull();
    const t0 = clock.toISOString();
    for (let i = 0; i < 50; i++) await service.authenticate(secret, '127.0.0.1');
    expect(writes).toHaveLength(0); // nothing written on the request path
    expect((await service.list(tenant))[0]!.lastUsedAt).toBe(t0); // list flushes pending uses first
    expect(writes).toEqual([[{ tenantId: tenant, keyId: key.keyId, usedAt: t0 }]]);

    clock = new Date(clock.getTime() + 59_000);
    for (let i = 0; i < 50; i++) await service.authenticate(secret, '127.0.0.1');
    await service.flushUsage();
    expect(writes).toHaveLength(1);

    clock = new Date(clock.getTime() + 1_000);
    await service.authenticate(secret, '127.0.0.1');
    // The background flush (usageFlushMs = 5), waited for by its effect.
    await vi.waitFor(
      () => {
        if (writes.length < 2) throw new Error('no background flush yet');
      },
      { timeout: 5_000, interval: 5 },
    );
    expect(writes).toHaveLength(2);
    expect((await service.get(tenant, key.keyId)).lastUsedAt).toBe(clock.toISOString());
  });

  it('skips the write when another process recorded a use within the minute', async () => {
    const { secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    await service.authenticate(secret, '127.0.0.1');
    await service.flushUsage();
    const other = makeService(store);
    clock = new Date(clock.getTime() + 30_000);
    await other.authenticate(secret, '127.0.0.1');
    await other.flushUsage();
    expect(writes).toHaveLength(1);
  });

  it('does not record failed authentications', async () => {
    const { secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'], ipAllowlist: ['10.0.0.1'] });
    await appError(service.authenticate(secret, '10.0.0.2'));
    await service.flushUsage();
    expect(writes).toHaveLength(0);
  });

  it('flushes on close', async () => {
    const { secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    await service.authenticate(secret, '127.0.0.1');
    await service.close();
    expect(writes).toHaveLength(1);
  });
});

describe('who may rotate and revoke', () => {
  it('lets the creator and a manageAll actor act, and refuses (403) anyone else, leaving the key untouched', async () => {
    const { key, secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    const colleague = { tenantId: tenant, userId: randomUUID(), role: 'member' as const };
    expect((await appError(service.rotate(colleague, key.keyId))).code).toBe('FORBIDDEN');
    expect((await appError(service.revoke(colleague, key.keyId))).code).toBe('FORBIDDEN');
    expect((await service.authenticate(secret, '127.0.0.1')).keyId).toBe(key.keyId);
    expect((await service.rotate({ ...colleague, manageAll: true }, key.keyId)).key.keyId).toBe(key.keyId);
    const system = await service.create({ tenantId: tenant, userId: null, role: null }, { name: 'system', scopes: ['usage:read'] });
    expect((await appError(service.revoke(actor(), system.key.keyId))).code).toBe('FORBIDDEN');
    expect((await service.revoke({ ...actor(), manageAll: true }, system.key.keyId)).status).toBe('revoked');
  });
});

describe('a key’s scopes stay within its issuer’s own role', () => {
  it('refuses (403 FORBIDDEN, naming them) scopes the creator’s base role lacks, and stores nothing', async () => {
    const viewer = { tenantId: tenant, userId: randomUUID(), role: 'viewer' as const };
    const err = await appError(service.create(viewer, { name: 'k', scopes: ['memories:read', 'memories:write', 'knowledge:write'] }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toContain('memories:write, knowledge:write');
    expect(err.details?.fields).toEqual([
      { field: 'scopes.1', message: "role 'viewer' lacks permission 'memories:write'" },
      { field: 'scopes.2', message: "role 'viewer' lacks permission 'knowledge:write'" },
    ]);
    expect(await service.list(tenant)).toEqual([]);
    expect(audit).toEqual([]);
    const { key } = await service.create(viewer, { name: 'reader', scopes: ['usage:read', 'knowledge:read', 'memories:read'] });
    expect(key.scopes).toEqual(['memories:read', 'knowledge:read', 'usage:read']);
  });

  it('refuses to hand a key’s new secret to a rotator whose own role lacks one of its scopes, leaving it untouched', async () => {
    const { key, secret } = await service.create(actor(), { name: 'k', scopes: ['memories:read', 'memories:write'] });
    const err = await appError(service.rotate({ tenantId: tenant, userId: randomUUID(), role: 'viewer', manageAll: true }, key.keyId));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toContain('memories:write');
    expect((await service.authenticate(secret, '127.0.0.1')).keyId).toBe(key.keyId);
    expect(audit.map((e) => e.action)).toEqual(['api_key.create']);
  });
});

describe('revoking the keys of a removed user (revokeHeldBy)', () => {
  it('revokes every active key whose current secret that user received: created and not rotated since by another, or rotated by them', async () => {
    const admin = { tenantId: tenant, userId: randomUUID(), role: 'admin' as const, manageAll: true };
    const leaver = { tenantId: tenant, userId: randomUUID(), role: 'member' as const };
    const created = await service.create(leaver, { name: 'created, kept', scopes: ['usage:read'] });
    const takenOver = await service.create(leaver, { name: 'created, rotated by the admin', scopes: ['usage:read'] });
    const adminRotated = await service.rotate(admin, takenOver.key.keyId);
    const othersKey = await service.create(admin, { name: 'the admin’s', scopes: ['usage:read'] });
    const rotatedByLeaver = await service.create(admin, { name: 'the admin’s, rotated by the leaver', scopes: ['usage:read'] });
    const leaverRotated = await service.rotate({ ...leaver, role: 'admin', manageAll: true }, rotatedByLeaver.key.keyId);

    const revoked = await service.revokeHeldBy(admin, leaver.userId);
    expect(revoked.sort()).toEqual([created.key.keyId, rotatedByLeaver.key.keyId].sort());
    for (const s of [created.secret, leaverRotated.secret])
      expect((await appError(service.authenticate(s, '127.0.0.1'))).code).toBe('UNAUTHENTICATED');
    for (const s of [adminRotated.secret, othersKey.secret]) expect((await service.authenticate(s, '127.0.0.1')).tenantId).toBe(tenant);
    expect(audit.filter((e) => e.action === 'api_key.revoke').map((e) => [e.keyId, e.actorUserId, e.details.reason])).toEqual(
      revoked.map((id) => [id, admin.userId, 'secret_holder_removed']),
    );

    // The admin now holds the secrets of the key they rotated and of their own key.
    expect((await service.revokeHeldBy(leaver, admin.userId)).sort()).toEqual([takenOver.key.keyId, othersKey.key.keyId].sort());
  });
});

describe('tenant scoping', () => {
  it('answers 404 for another tenant’s key on get, rotate and revoke, leaving it untouched', async () => {
    const { key, secret } = await service.create(actor(), { name: 'k', scopes: ['usage:read'] });
    const intruder = { tenantId: randomUUID(), userId: randomUUID(), role: 'owner' as const };
    expect((await appError(service.get(intruder.tenantId, key.keyId))).code).toBe('NOT_FOUND');
    expect((await appError(service.rotate(intruder, key.keyId))).code).toBe('NOT_FOUND');
    expect((await appError(service.revoke(intruder, key.keyId))).code).toBe('NOT_FOUND');
    expect(await service.list(intruder.tenantId)).toEqual([]);
    expect((await service.authenticate(secret, '127.0.0.1')).tenantId).toBe(tenant);
  });
});

describe('requireScope over the real authenticator', () => {
  const probe = router({
    write: requireScope('memories:write')
      .input(z.object({ namespace: z.string() }))
      .query(({ ctx, input }) => {
        assertNamespaceAllowed(ctx.principal.namespaces, input.namespace);
        return ctx.principal.keyId;
      }),
  });
  const caller = (key: string | undefined) =>
    createCallerFactory(probe)(createInnerContext({ headers: { 'x-api-key': key }, services: { apiKeyAuth: service } }));

  it('admits a key with the scope and refuses one without it (403 SCOPE_MISSING), or without a key (401)', async () => {
    const writer = await service.create(actor(), { name: 'w', scopes: ['memories:write'], namespaceRestrictions: ['a'] });
    const reader = await service.create(actor(), { name: 'r', scopes: ['memories:read'] });
    await expect(caller(writer.secret).write({ namespace: 'a' })).resolves.toBe(writer.key.keyId);
    await expect(caller(writer.secret).write({ namespace: 'b' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      cause: { code: 'NAMESPACE_FORBIDDEN' },
    });
    await expect(caller(reader.secret).write({ namespace: 'a' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      cause: { code: 'SCOPE_MISSING' },
    });
    await expect(caller(undefined).write({ namespace: 'a' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('apiKeyAuditSink', () => {
  const event: ApiKeyAuditEvent = {
    tenantId: 't1',
    action: 'api_key.rotate',
    actorUserId: 'u1',
    keyId: 'k1',
    ip: '127.0.0.1',
    userAgent: 'test',
    requestId: 'req-9',
    details: { prefix: 'tmk_abcdefgh' },
  };

  it('records registered event types in the audit log, targeting the key', async () => {
    const recorded: unknown[] = [];
    const sink = apiKeyAuditSink({ record: async (input) => void recorded.push(input) as never }, { warn: () => {} });
    await sink(event);
    expect(recorded).toEqual([
      {
        tenantId: 't1',
        type: 'api_key.rotate',
        actor: { userId: 'u1' },
        ip: '127.0.0.1',
        userAgent: 'test',
        target: { type: 'api_key', id: 'k1' },
        details: { prefix: 'tmk_abcdefgh', request_id: 'req-9' },
      },
    ]);
  });

  it('makes the key the actor when no user acted, and logs (instead of dropping) unregistered types', async () => {
    const recorded: { actor?: unknown }[] = [];
    const warned: object[] = [];
    const sink = apiKeyAuditSink({ record: async (input) => void recorded.push(input) as never }, { warn: (o) => void warned.push(o) }, [
      'api_key.create',
    ]);
    await sink({ ...event, action: 'api_key.create', actorUserId: null });
    expect(recorded[0]!.actor).toEqual({ keyId: 'k1' });
    await sink({ ...event, action: 'api_key.denied_ip', actorUserId: null });
    expect(recorded).toHaveLength(1);
    expect(warned).toEqual([expect.objectContaining({ audit: 'api_key.denied_ip', tenantId: 't1', keyId: 'k1', ip: '127.0.0.1' })]);
  });
});
