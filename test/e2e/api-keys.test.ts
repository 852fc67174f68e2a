import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantMemoryClient } from '../../client/index.js';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

const SECRET = /^tmk_[a-z2-7]{52}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let nowMs = Date.now();
let server: TestServer;
/** Tenant A: owner, a member and a viewer. Tenant B: its owner. */
let owner: SignedUpUser, member: SignedUpUser, viewer: SignedUpUser, ownerB: SignedUpUser;
let tenantA: string;
/** Every secret any response handed out, to prove none of them is ever shown again or logged. */
const secrets: string[] = [];

const asA = (u: SignedUpUser) => bearer(u.accessToken, tenantA);
const key = (secret: string, extra: Record<string, string> = {}) => ({ 'x-api-key': secret, ...extra });

async function create(u: SignedUpUser, body: Record<string, unknown>, base = server.url, headers = asA(u)) {
  const res = await http(base, 'POST', '/api-keys', { headers, body });
  if (res.status === 201) secrets.push(res.body.secret);
  return res;
}

async function createOk(u: SignedUpUser, body: Record<string, unknown>, base = server.url, headers = asA(u)) {
  const res = await create(u, body, base, headers);
  expect(res.status, res.text).toBe(201);
  return res.body as { key_id: string; secret: string; tenant_id: string };
}

beforeAll(async () => {
  server = await startTestServer({ ACCESS_TOKEN_TTL_SECONDS: '86400' }, { clock: () => nowMs });
  [owner, member, viewer, ownerB] = await Promise.all([signUp(server.url), signUp(server.url), signUp(server.url), signUp(server.url)]);
  tenantA = owner.tenantId;
  for (const [u, role] of [
    [member, 'member'],
    [viewer, 'viewer'],
  ] as const) {
    await addToTenant(server.url, owner, u, role);
  }
});
afterAll(async () => {
  await server?.close();
});

describe('POST /api-keys', () => {
  it('creates a key (201) and returns the one-time secret with the key’s settings', async () => {
    const res = await create(owner, {
      name: 'ingest worker',
      scopes: ['memories:write', 'memories:read'],
      namespace_restrictions: ['default', 'team-a'],
      ip_allowlist: ['127.0.0.1', '10.0.0.0/8', '2001:DB8::/32'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      key_id: expect.stringMatching(UUID),
      secret: expect.stringMatching(SECRET),
      tenant_id: tenantA,
      name: 'ingest worker',
      scopes: ['memories:read', 'memories:write'],
      namespace_restrictions: ['default', 'team-a'],
      ip_allowlist: ['127.0.0.1', '10.0.0.0/8', '2001:db8::/32'],
      prefix: res.body.secret.slice(0, 12),
      created_at: new Date(nowMs).toISOString(),
    });
  });

  it('lets a member create keys (api_keys:manage) and defaults restrictions to null', async () => {
    const res = await create(member, { name: 'member key', scopes: ['usage:read'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ tenant_id: tenantA, namespace_restrictions: null, ip_allowlist: null });
  });

  it.each([
    ['missing name', { scopes: ['memories:read'] }, 'name'],
    ['empty name', { name: '   ', scopes: ['memories:read'] }, 'name'],
    ['name over 200 characters', { name: 'x'.repeat(201), scopes: ['memories:read'] }, 'name'],
    ['missing scopes', { name: 'k' }, 'scopes'],
    ['empty scopes', { name: 'k', scopes: [] }, 'scopes'],
    ['an unknown scope', { name: 'k', scopes: ['memories:read', 'memories:destroy'] }, "unknown scope 'memories:destroy'"],
    ['a bad CIDR', { name: 'k', scopes: ['memories:read'], ip_allowlist: ['10.0.0.0/8', '10.0.0.0/33'] }, "'10.0.0.0/33'"],
    ['a host name in the allowlist', { name: 'k', scopes: ['memories:read'], ip_allowlist: ['example.com'] }, "'example.com'"],
    ['host bits in a range', { name: 'k', scopes: ['memories:read'], ip_allowlist: ['10.1.2.3/8'] }, 'did you mean 10.0.0.0/8'],
    ['an empty allowlist', { name: 'k', scopes: ['memories:read'], ip_allowlist: [] }, 'ip_allowlist'],
    ['a bad namespace', { name: 'k', scopes: ['memories:read'], namespace_restrictions: ['has space'] }, 'namespace'],
    ['an unknown field (a misspelt restriction)', { name: 'k', scopes: ['memories:read'], ip_allow_list: ['10.0.0.1'] }, 'ip_allow_list'],
  ])('answers 400 for %s, naming it', async (_what, body, mention) => {
    const res = await create(owner, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', request_id: expect.any(String) });
    expect(`${res.body.message} ${JSON.stringify(res.body.fields ?? [])}`).toContain(mention);
  });

  it('answers 401 without or with an invalid bearer token, and 403 for a viewer', async () => {
    const body = { name: 'k', scopes: ['memories:read'] };
    expect((await http(server.url, 'POST', '/api-keys', { body })).status).toBe(401);
    expect((await http(server.url, 'POST', '/api-keys', { body, headers: { authorization: 'Bearer not-a-token' } })).status).toBe(401);
    const res = await create(viewer, body);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});

describe('GET /api-keys', () => {
  it('lists the tenant’s keys with status, prefix and restrictions but never a secret; viewers may list', async () => {
    const made = await createOk(owner, { name: 'listed', scopes: ['knowledge:read'], ip_allowlist: ['::1'] });
    for (const u of [owner, viewer, member]) {
      const res = await http(server.url, 'GET', '/api-keys', { headers: asA(u) });
      expect(res.status).toBe(200);
      const listed = res.body.keys.find((k: { key_id: string }) => k.key_id === made.key_id);
      expect(listed).toEqual({
        key_id: made.key_id,
        name: 'listed',
        scopes: ['knowledge:read'],
        created_at: expect.any(String),
        last_used_at: null,
        status: 'active',
        namespace_restrictions: null,
        ip_allowlist: ['::1'],
        prefix: made.secret.slice(0, 12),
        rotated_at: null,
        revoked_at: null,
      });
      expect(res.body.keys.every((k: Record<string, unknown>) => !('secret' in k))).toBe(true);
    }
  });

  it('answers 401 without a bearer token, and an API key is not a bearer credential', async () => {
    const { secret } = await createOk(owner, { name: 'not bearer', scopes: ['memories:read'] });
    expect((await http(server.url, 'GET', '/api-keys')).status).toBe(401);
    expect((await http(server.url, 'GET', '/api-keys', { headers: key(secret) })).status).toBe(401);
    expect((await http(server.url, 'GET', '/api-keys', { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
  });

  it('shows last_used_at after a use, moving at most once a minute', async () => {
    const { key_id, secret } = await createOk(owner, { name: 'usage', scopes: ['memories:read'] });
    const lastUsed = async () =>
      (
        (await http(server.url, 'GET', '/api-keys', { headers: asA(owner) })).body.keys as { key_id: string; last_used_at: string | null }[]
      ).find((k) => k.key_id === key_id)!.last_used_at;
    expect(await lastUsed()).toBeNull();
    const first = nowMs;
    expect((await http(server.url, 'GET', '/api-keys/current', { headers: key(secret) })).status).toBe(200);
    expect(await lastUsed()).toBe(new Date(first).toISOString());
    nowMs += 30_000;
    await http(server.url, 'GET', '/api-keys/current', { headers: key(secret) });
    expect(await lastUsed()).toBe(new Date(first).toISOString());
    nowMs += 31_000;
    await http(server.url, 'GET', '/api-keys/current', { headers: key(secret) });
    expect(await lastUsed()).toBe(new Date(nowMs).toISOString());
  });
});

describe('GET /api-keys/current and /api-keys/current/check (X-API-Key)', () => {
  it('describes the calling key', async () => {
    const made = await createOk(owner, { name: 'probe', scopes: ['memories:read', 'usage:read'], namespace_restrictions: ['default'] });
    const res = await http(server.url, 'GET', '/api-keys/current', { headers: key(made.secret) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      key_id: made.key_id,
      tenant_id: tenantA,
      name: 'probe',
      scopes: ['memories:read', 'usage:read'],
      namespace_restrictions: ['default'],
    });
  });

  it('answers 401 without a key, with a malformed or an unknown key, and does not take a bearer token instead', async () => {
    for (const headers of [{}, key('nope'), key(`tmk_${'a'.repeat(52)}`), bearer(owner.accessToken)]) {
      const res = await http(server.url, 'GET', '/api-keys/current', { headers });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHENTICATED');
    }
  });

  it('proves scopes: 200 with the scope, 403 SCOPE_MISSING without it, 400 for an unknown scope', async () => {
    const { key_id, secret } = await createOk(owner, { name: 'reader', scopes: ['memories:read'] });
    const check = (scope: string) =>
      http(server.url, 'GET', `/api-keys/current/check?scope=${encodeURIComponent(scope)}`, { headers: key(secret) });
    const ok = await check('memories:read');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ key_id, scope: 'memories:read', granted: true });
    for (const scope of ['memories:write', 'knowledge:read', 'knowledge:write', 'usage:read']) {
      const denied = await check(scope);
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('SCOPE_MISSING');
    }
    const unknown = await check('memories:admin');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain("unknown scope 'memories:admin'");
  });

  it('works through the typed tRPC client as well', async () => {
    const admin = createTenantMemoryClient({ url: server.url, accessToken: owner.accessToken, batch: false });
    const made = await admin.apiKeys.create.mutate({ name: 'typed', scopes: ['usage:read'] });
    secrets.push(made.secret);
    expect(made.secret).toMatch(SECRET);
    const agent = createTenantMemoryClient({ url: server.url, apiKey: made.secret });
    await expect(agent.apiKeys.current.query()).resolves.toMatchObject({ key_id: made.key_id, tenant_id: tenantA, scopes: ['usage:read'] });
    await expect(agent.apiKeys.checkScope.query({ scope: 'memories:write' })).rejects.toMatchObject({
      data: { app: { code: 'SCOPE_MISSING' } },
    });
    const listed = await admin.apiKeys.list.query();
    expect(listed.keys.some((k) => k.key_id === made.key_id)).toBe(true);
  });
});

describe('POST /api-keys/{id}/rotate', () => {
  it('returns a new secret; the old one answers 401 at once and the new one works', async () => {
    const made = await createOk(owner, { name: 'rotating', scopes: ['memories:read'] });
    expect((await http(server.url, 'GET', '/api-keys/current', { headers: key(made.secret) })).status).toBe(200);
    const res = await http(server.url, 'POST', `/api-keys/${made.key_id}/rotate`, { headers: asA(owner) });
    expect(res.status).toBe(200);
    secrets.push(res.body.secret);
    expect(res.body).toEqual({
      key_id: made.key_id,
      secret: expect.stringMatching(SECRET),
      prefix: res.body.secret.slice(0, 12),
      rotated_at: expect.any(String),
    });
    expect(res.body.secret).not.toBe(made.secret);
    expect((await http(server.url, 'GET', '/api-keys/current', { headers: key(made.secret) })).status).toBe(401);
    const current = await http(server.url, 'GET', '/api-keys/current', { headers: key(res.body.secret) });
    expect(current.status).toBe(200);
    expect(current.body.key_id).toBe(made.key_id);
  });

  it('answers 404 for an unknown id, 401 without a token, 403 for a viewer and 409 for a revoked key', async () => {
    const made = await createOk(owner, { name: 'r', scopes: ['memories:read'] });
    expect((await http(server.url, 'POST', '/api-keys/00000000-0000-4000-8000-000000000000/rotate', { headers: asA(owner) })).status).toBe(
      404,
    );
    expect((await http(server.url, 'POST', '/api-keys/not-a-uuid/rotate', { headers: asA(owner) })).status).toBe(404);
    expect((await http(server.url, 'POST', `/api-keys/${made.key_id}/rotate`)).status).toBe(401);
    expect((await http(server.url, 'POST', `/api-keys/${made.key_id}/rotate`, { headers: asA(viewer) })).status).toBe(403);
    expect((await http(server.url, 'DELETE', `/api-keys/${made.key_id}`, { headers: asA(owner) })).status).toBe(200);
    const conflict = await http(server.url, 'POST', `/api-keys/${made.key_id}/rotate`, { headers: asA(owner) });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('CONFLICT');
  });
});

describe('DELETE /api-keys/{id}', () => {
  it('revokes: {status: "revoked"}; the key answers 401 at once; revoking again is an idempotent 200', async () => {
    const made = await createOk(owner, { name: 'doomed', scopes: ['memories:read'] });
    expect((await http(server.url, 'GET', '/api-keys/current', { headers: key(made.secret) })).status).toBe(200);
    const res = await http(server.url, 'DELETE', `/api-keys/${made.key_id}`, { headers: asA(owner) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ key_id: made.key_id, status: 'revoked', revoked_at: new Date(nowMs).toISOString() });
    const after = await http(server.url, 'GET', '/api-keys/current', { headers: key(made.secret) });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'UNAUTHENTICATED', message: 'API key revoked' });
    nowMs += 1000;
    const again = await http(server.url, 'DELETE', `/api-keys/${made.key_id}`, { headers: asA(owner) });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body); // the first revocation time stands
    const listed = (await http(server.url, 'GET', '/api-keys', { headers: asA(owner) })).body.keys.find(
      (k: { key_id: string }) => k.key_id === made.key_id,
    );
    expect(listed).toMatchObject({ status: 'revoked', revoked_at: res.body.revoked_at });
  });

  it('answers 404 for an unknown id, 401 without a token and 403 for a viewer', async () => {
    const made = await createOk(owner, { name: 'kept', scopes: ['memories:read'] });
    expect((await http(server.url, 'DELETE', '/api-keys/00000000-0000-4000-8000-000000000000', { headers: asA(owner) })).status).toBe(404);
    expect((await http(server.url, 'DELETE', `/api-keys/${made.key_id}`)).status).toBe(401);
    expect((await http(server.url, 'DELETE', `/api-keys/${made.key_id}`, { headers: asA(viewer) })).status).toBe(403);
    expect((await http(server.url, 'GET', '/api-keys/current', { headers: key(made.secret) })).status).toBe(200);
  });
});

describe('tenant isolation', () => {
  it('tenant A can neither see, rotate nor revoke B’s keys (404), and A’s key acts only for A', async () => {
    const keyA = await createOk(owner, { name: 'A key', scopes: ['memories:read'] });
    const keyB = await createOk(ownerB, { name: 'B key', scopes: ['memories:read'] }, server.url, bearer(ownerB.accessToken));
    expect(keyB.tenant_id).toBe(ownerB.tenantId);

    const listA = (await http(server.url, 'GET', '/api-keys', { headers: bearer(owner.accessToken) })).body.keys.map(
      (k: { key_id: string }) => k.key_id,
    );
    expect(listA).toContain(keyA.key_id);
    expect(listA).not.toContain(keyB.key_id);
    const listB = (await http(server.url, 'GET', '/api-keys', { headers: bearer(ownerB.accessToken) })).body.keys.map(
      (k: { key_id: string }) => k.key_id,
    );
    expect(listB).toEqual([keyB.key_id]);

    // Naming B's tenant is refused outright (not a member); naming B's key from A is a 404.
    expect((await http(server.url, 'GET', '/api-keys', { headers: bearer(owner.accessToken, ownerB.tenantId) })).status).toBe(403);
    expect(
      (
        await http(server.url, 'POST', '/api-keys', {
          headers: bearer(owner.accessToken, ownerB.tenantId),
          body: { name: 'x', scopes: ['memories:read'] },
        })
      ).status,
    ).toBe(403);
    expect((await http(server.url, 'POST', `/api-keys/${keyB.key_id}/rotate`, { headers: bearer(owner.accessToken) })).status).toBe(404);
    expect((await http(server.url, 'DELETE', `/api-keys/${keyB.key_id}`, { headers: bearer(owner.accessToken) })).status).toBe(404);

    // B's key is untouched and still B's; A's key cannot claim B's tenant.
    expect((await http(server.url, 'GET', '/api-keys/current', { headers: key(keyB.secret) })).body).toMatchObject({
      key_id: keyB.key_id,
      tenant_id: ownerB.tenantId,
    });
    const asB = await http(server.url, 'GET', '/api-keys/current', { headers: key(keyA.secret, { 'x-tenant-id': ownerB.tenantId }) });
    expect(asB.body).toMatchObject({ key_id: keyA.key_id, tenant_id: tenantA });
  });
});

describe('IP allowlists over HTTP', () => {
  it('admits listed IPv4 addresses and CIDR ranges, and answers 403 IP_NOT_ALLOWED elsewhere (client here: 127.0.0.1)', async () => {
    const cases: [string[], number][] = [
      [['127.0.0.1'], 200],
      [['127.0.0.0/8'], 200],
      [['10.0.0.0/8', '127.0.0.1/32'], 200],
      [['::ffff:127.0.0.1'], 200],
      [['10.0.0.0/8'], 403],
      [['127.0.0.2'], 403],
      [['::1'], 403],
    ];
    for (const [ip_allowlist, status] of cases) {
      const { secret } = await createOk(owner, { name: 'ip', scopes: ['memories:read'], ip_allowlist });
      const res = await http(server.url, 'GET', '/api-keys/current', { headers: key(secret) });
      expect(res.status, JSON.stringify(ip_allowlist)).toBe(status);
      if (status === 403) expect(res.body.code).toBe('IP_NOT_ALLOWED');
    }
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY is set', async () => {
    const { secret } = await createOk(owner, { name: 'proxied', scopes: ['memories:read'], ip_allowlist: ['203.0.113.5'] });
    const res = await http(server.url, 'GET', '/api-keys/current', { headers: key(secret, { 'x-forwarded-for': '203.0.113.5' }) });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('IP_NOT_ALLOWED');
  });

  it('logs a denied address with the key id but never the secret', async () => {
    const { key_id, secret } = await createOk(owner, { name: 'denied', scopes: ['memories:read'], ip_allowlist: ['192.0.2.1'] });
    expect((await http(server.url, 'GET', '/api-keys/current', { headers: key(secret) })).status).toBe(403);
    const line = server.logs.find((l) => l.includes(key_id) && l.includes('outside its allowlist'));
    expect(line).toBeDefined();
    expect(line).toContain('127.0.0.1');
    expect(line).not.toContain(secret.slice(4));
    // …and lands in the tenant's audit log, the key as actor, the chain intact.
    const audit = await http(server.url, 'GET', '/auth/audit?limit=200', { headers: bearer(owner.accessToken) });
    expect(
      audit.body.events.filter(
        (e: { type: string; target: { id: string } | null }) => e.type === 'api_key.denied_ip' && e.target?.id === key_id,
      ),
    ).toEqual([expect.objectContaining({ actor: { user_id: null, key_id }, ip: '127.0.0.1', target: { type: 'api_key', id: key_id } })]);
    expect(audit.text).not.toContain(secret.slice(4));
    expect((await http(server.url, 'GET', '/auth/audit/verify', { headers: bearer(owner.accessToken) })).body).toMatchObject({ ok: true });
  });

  describe('behind a trusted proxy (TRUST_PROXY=loopback)', () => {
    let proxied: TestServer;
    let user: SignedUpUser;
    beforeAll(async () => {
      proxied = await startTestServer({ TRUST_PROXY: 'loopback' });
      user = await signUp(proxied.url);
    });
    afterAll(async () => {
      await proxied?.close();
    });

    it('matches the forwarded client address, not the proxy’s, and ignores spoofed addresses further left', async () => {
      const { secret } = await createOk(
        user,
        { name: 'behind proxy', scopes: ['memories:read'], ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'] },
        proxied.url,
        bearer(user.accessToken),
      );
      const get = (xff?: string) =>
        http(proxied.url, 'GET', '/api-keys/current', { headers: key(secret, xff ? { 'x-forwarded-for': xff } : {}) });
      expect((await get('203.0.113.5')).status).toBe(200);
      expect((await get('2001:db8::7')).status).toBe(200);
      expect((await get('198.51.100.1')).status).toBe(403);
      expect((await get('203.0.113.5, 198.51.100.1')).status).toBe(403); // the nearest untrusted hop counts
      expect((await get('198.51.100.1, 203.0.113.5')).status).toBe(200);
      expect((await get()).status).toBe(403); // the proxy itself (127.0.0.1) is not listed
    });
  });

  describe('over IPv6 and dual-stack sockets', () => {
    let v6: TestServer;
    let dual: TestServer;
    beforeAll(async () => {
      [v6, dual] = await Promise.all([startTestServer({ HOST: '::1' }), startTestServer({ HOST: '::' })]);
    });
    afterAll(async () => {
      await Promise.all([v6?.close(), dual?.close()]);
    });

    it('matches an IPv6 client against IPv6 addresses and ranges', async () => {
      expect(v6.url).toContain('[::1]');
      const user = await signUp(v6.url);
      for (const [ip_allowlist, status] of [
        [['::1'], 200],
        [['::/127'], 200],
        [['0:0:0:0:0:0:0:1/128'], 200],
        [['127.0.0.1'], 403],
        [['2001:db8::/32'], 403],
        [['::/0'], 200],
      ] as [string[], number][]) {
        const { secret } = await createOk(user, { name: 'v6', scopes: ['memories:read'], ip_allowlist }, v6.url, bearer(user.accessToken));
        expect((await http(v6.url, 'GET', '/api-keys/current', { headers: key(secret) })).status, JSON.stringify(ip_allowlist)).toBe(
          status,
        );
      }
    });

    it('treats an IPv4 client on a dual-stack socket (::ffff:127.0.0.1) as 127.0.0.1', async () => {
      const user = await signUp(dual.url);
      for (const [ip_allowlist, status] of [
        [['127.0.0.1'], 200],
        [['::ffff:127.0.0.1'], 200],
        [['::ffff:127.0.0.0/104'], 200],
        [['::1'], 403],
        [['::/0'], 403],
      ] as [string[], number][]) {
        const { secret } = await createOk(
          user,
          { name: 'dual', scopes: ['memories:read'], ip_allowlist },
          dual.url,
          bearer(user.accessToken),
        );
        expect((await http(dual.url, 'GET', '/api-keys/current', { headers: key(secret) })).status, JSON.stringify(ip_allowlist)).toBe(
          status,
        );
      }
    });
  });
});

describe('audit and secrecy', () => {
  it('records create, rotate and revoke in the tenant audit log without any secret', async () => {
    const made = await createOk(owner, { name: 'audited', scopes: ['memories:read'] });
    const rotated = await http(server.url, 'POST', `/api-keys/${made.key_id}/rotate`, { headers: asA(owner) });
    secrets.push(rotated.body.secret);
    await http(server.url, 'DELETE', `/api-keys/${made.key_id}`, { headers: asA(owner) });
    const res = await http(server.url, 'GET', '/auth/audit?limit=100', { headers: bearer(owner.accessToken) });
    expect(res.status).toBe(200);
    const events = (res.body.events as { type: string; target?: { id: string } | null; target_id?: string }[]).filter((e) =>
      JSON.stringify(e).includes(made.key_id),
    );
    expect(events.map((e) => e.type).sort()).toEqual(['api_key.create', 'api_key.revoke', 'api_key.rotate']);
    for (const s of secrets) expect(res.text).not.toContain(s.slice(4));
  });

  it('never shows a secret again in any later response, nor in the logs', async () => {
    // Every secret handed out so far in this file, topped up by keys of its own when this test runs
    // early in the shuffled order, so the sweep always covers more than twenty.
    while (secrets.length <= 20) await createOk(owner, { name: 'swept', scopes: ['memories:read'] });
    expect(secrets.length).toBeGreaterThan(20);
    const later = [
      await http(server.url, 'GET', '/api-keys', { headers: asA(owner) }),
      await http(server.url, 'GET', '/api-keys', { headers: bearer(ownerB.accessToken) }),
      await http(server.url, 'GET', '/auth/audit?limit=100', { headers: bearer(owner.accessToken) }),
      await http(server.url, 'GET', '/openapi.json'),
    ];
    for (const s of secrets) {
      later.push(await http(server.url, 'GET', '/api-keys/current', { headers: key(s) }));
    }
    const logs = server.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const s of secrets) {
      const randomPart = s.slice(12); // beyond the displayed prefix
      for (const res of later) expect(res.text).not.toContain(randomPart);
      expect(logs).not.toContain(randomPart);
    }
  });

  it('documents the routes with the right credential in the OpenAPI document', async () => {
    const doc = (await http(server.url, 'GET', '/openapi.json')).body;
    expect(doc.paths['/api-keys'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api-keys'].post.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api-keys/{id}/rotate'].post.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api-keys/{id}'].delete.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api-keys/current'].get.security).toEqual([{ apiKeyAuth: [] }]);
    expect(doc.paths['/api-keys/current/check'].get.security).toEqual([{ apiKeyAuth: [] }]);
  });
});
