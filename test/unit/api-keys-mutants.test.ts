import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import { createApiKeyService, type ApiKeyAuditEvent, type ApiKeyService, type CreateApiKeyInput } from '../../server/services/api-keys.js';
import { compileAllowlist, normaliseAllowlistEntry } from '../../server/services/ip-allowlist.js';
import { openApiKeyStore } from '../support/api-key-store.js';
import { appError } from '../support/app-error.js';

// The API key service over the real embedded store: what mutation testing found unguarded (see
// docs/mutation-testing.md) — the exact audit record of each management action, input checks at
// their boundaries, checkScope/describe, and which IPv6 addresses count as IPv4-mapped.

let audit: ApiKeyAuditEvent[];
let service: ApiKeyService;
const tenant = randomUUID();
const user = randomUUID();
const actor = { tenantId: tenant, userId: user, role: 'owner' as const, ip: '198.51.100.4', userAgent: 'mutants/1', requestId: 'req-7' };

beforeEach(() => {
  const { store, tenants } = openApiKeyStore(tenant);
  audit = [];
  service = createApiKeyService({
    store,
    tenants,
    audit: async (e) => void audit.push(e),
    logger: { warn: () => {} },
    clock: () => Date.parse('2030-03-01T12:00:00.000Z'),
    usageFlushMs: 5,
  });
});

const base: CreateApiKeyInput = { name: 'k', scopes: ['memories:read'] };

describe('audit records of key management carry the actor, the request and the facts', () => {
  it('create', async () => {
    const { key } = await service.create(actor, {
      name: 'ingest',
      scopes: ['memories:write'],
      namespaceRestrictions: ['ns'],
      ipAllowlist: ['10.0.0.0/8'],
    });
    expect(audit).toEqual([
      {
        tenantId: tenant,
        action: 'api_key.create',
        actorUserId: user,
        keyId: key.keyId,
        ip: actor.ip,
        userAgent: actor.userAgent,
        requestId: actor.requestId,
        details: {
          name: 'ingest',
          scopes: ['memories:write'],
          namespace_restrictions: ['ns'],
          ip_allowlist: ['10.0.0.0/8'],
          prefix: key.prefix,
        },
      },
    ]);
  });

  it('rotate', async () => {
    const { key } = await service.create(actor, base);
    const rotated = await service.rotate(actor, key.keyId);
    expect(audit[1]).toEqual({
      tenantId: tenant,
      action: 'api_key.rotate',
      actorUserId: user,
      keyId: key.keyId,
      ip: actor.ip,
      userAgent: actor.userAgent,
      requestId: actor.requestId,
      details: { prefix: rotated.key.prefix },
    });
  });

  it('revoke', async () => {
    const { key } = await service.create(actor, { ...base, name: 'old' });
    await service.revoke(actor, key.keyId);
    expect(audit[1]).toEqual({
      tenantId: tenant,
      action: 'api_key.revoke',
      actorUserId: user,
      keyId: key.keyId,
      ip: actor.ip,
      userAgent: actor.userAgent,
      requestId: actor.requestId,
      details: { name: 'old', prefix: key.prefix },
    });
  });

  it('an actor without request facts is recorded with nulls, not undefined', async () => {
    const bare = { tenantId: tenant, userId: user, role: 'owner' as const };
    const { key } = await service.create(bare, base);
    await service.rotate(bare, key.keyId);
    await service.revoke(bare, key.keyId);
    for (const e of audit)
      expect({ ip: e.ip, userAgent: e.userAgent, requestId: e.requestId }).toEqual({ ip: null, userAgent: null, requestId: null });
  });
});

describe('input checks at their boundaries', () => {
  it.each([
    ['a name that is not a string', { ...base, name: undefined as unknown as string }, 'name'],
    ['scopes that are not an array', { ...base, scopes: 'memories:read' as unknown as string[] }, 'scopes'],
    ['a scope that is not a string', { ...base, scopes: [7 as unknown as string] }, 'scopes.0'],
    ['namespaces that are not an array', { ...base, namespaceRestrictions: 'ns' as unknown as string[] }, 'namespace_restrictions'],
    ['a namespace that is not a string', { ...base, namespaceRestrictions: [7 as unknown as string] }, 'namespace_restrictions.0'],
    ['101 namespaces', { ...base, namespaceRestrictions: Array.from({ length: 101 }, (_, i) => `ns${i}`) }, 'namespace_restrictions'],
    ['an allowlist entry that is not a string', { ...base, ipAllowlist: [7 as unknown as string] }, 'ip_allowlist.0'],
  ])('refuses %s with 400 naming the field', async (_what, input, field) => {
    const err = await appError(service.create(actor, input));
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.details?.fields?.[0]?.field).toBe(field);
    expect(await service.list(tenant)).toEqual([]);
  });

  it('null restrictions mean none, as omitting them does', async () => {
    const { key } = await service.create(actor, { ...base, namespaceRestrictions: null, ipAllowlist: null });
    expect(key).toMatchObject({ namespaceRestrictions: null, ipAllowlist: null });
  });

  it('accepts a 200-character name and 100-entry lists, the limits', async () => {
    const { key } = await service.create(actor, {
      name: 'n'.repeat(200),
      scopes: ['memories:read'],
      namespaceRestrictions: Array.from({ length: 100 }, (_, i) => `ns${i}`),
      ipAllowlist: Array.from({ length: 100 }, (_, i) => `10.0.0.${i}`),
    });
    expect(key.name).toHaveLength(200);
    expect(key.namespaceRestrictions).toHaveLength(100);
    expect(key.ipAllowlist).toHaveLength(100);
  });
});

describe('checkScope and describe', () => {
  it('checkScope admits a scope the key has and refuses one it lacks with 403 SCOPE_MISSING', async () => {
    const { secret } = await service.create(actor, { ...base, scopes: ['memories:read'] });
    const principal = await service.authenticate(secret, '127.0.0.1');
    expect(() => service.checkScope(principal, 'memories:read')).not.toThrow();
    let thrown: unknown;
    try {
      service.checkScope(principal, 'memories:write');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('SCOPE_MISSING');
  });

  it('describe answers the key behind a principal, and 404 once it is gone from its tenant', async () => {
    const { key, secret } = await service.create(actor, base);
    const principal = await service.authenticate(secret, '127.0.0.1');
    expect(await service.describe(principal)).toEqual(key);
    expect((await appError(service.describe({ ...principal, tenantId: randomUUID() }))).code).toBe('NOT_FOUND');
  });
});

describe('compiled allowlists are shared only by keys with the same list', () => {
  it('two lists whose entries run together into the same text do not share a matcher', async () => {
    // '1.2.3.41' + '2.3.4.5' and '1.2.3.4' + '12.3.4.5' spell the same characters without a separator.
    const first = await service.create(actor, { ...base, ipAllowlist: ['1.2.3.41', '2.3.4.5'] });
    const second = await service.create(actor, { ...base, ipAllowlist: ['1.2.3.4', '12.3.4.5'] });
    expect((await service.authenticate(first.secret, '1.2.3.41')).keyId).toBe(first.key.keyId);
    expect((await appError(service.authenticate(second.secret, '1.2.3.41'))).code).toBe('IP_NOT_ALLOWED');
  });
});

describe('IPv4-mapped IPv6 client addresses', () => {
  const only = compileAllowlist([normaliseAllowlistEntry('203.0.113.7')]);

  it.each(['::ffff:203.0.113.7', '::ffff:cb00:7107', '[::ffff:203.0.113.7]', '0:0:0:0:0:ffff:cb00:7107'])(
    '%s is the IPv4 address 203.0.113.7',
    (ip) => {
      expect(only(ip)).toBe(true);
    },
  );

  // Each differs from ::ffff:203.0.113.7 in one of the six leading groups, so none is IPv4-mapped.
  it.each([
    '1::ffff:cb00:7107',
    '0:1::ffff:cb00:7107',
    '0:0:1::ffff:cb00:7107',
    '0:0:0:1:0:ffff:cb00:7107',
    '::1:ffff:cb00:7107',
    '::fffe:cb00:7107',
    '64:ff9b::203.0.113.7',
  ])('%s is not', (ip) => {
    expect(only(ip)).toBe(false);
  });

  it('an IPv4-mapped range of exactly /96 is all of IPv4', () => {
    expect(normaliseAllowlistEntry('::ffff:0.0.0.0/96')).toBe('0.0.0.0/0');
  });
});
