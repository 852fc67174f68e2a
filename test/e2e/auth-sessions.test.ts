import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, signUp } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/** The server's clock: tests move it instead of sleeping. */
let nowMs = Date.now();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ SESSION_TTL_SECONDS: '600', ACCESS_TOKEN_TTL_SECONDS: '120' }, { clock: () => nowMs });
});
afterAll(async () => {
  await server?.close();
});

const tenantsWith = (token: string) => http(server.url, 'GET', '/auth/tenants', { headers: bearer(token) });
const refreshWith = (token: string) => http(server.url, 'POST', '/auth/refresh', { headers: bearer(token) });
const revokeWith = (token: string) => http(server.url, 'POST', '/auth/revoke', { headers: bearer(token) });

describe('POST /auth/refresh', () => {
  it('rotates: returns a new token pair for the same user and tenant, and the old refresh token stops working', async () => {
    const u = await signUp(server.url);
    const r1 = await refreshWith(u.refreshToken);
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ token_type: 'Bearer', expires_in: 120, user_id: u.userId, tenant_id: u.tenantId });
    expect(r1.body.refresh_token).not.toBe(u.refreshToken);
    expect(r1.body.access_token).not.toBe(u.accessToken);
    expect((await tenantsWith(r1.body.access_token)).status).toBe(200);
    const r2 = await refreshWith(r1.body.refresh_token);
    expect(r2.status).toBe(200);
  });

  it('treats reuse of a rotated refresh token as theft: 401, and the whole session is revoked', async () => {
    const u = await signUp(server.url);
    const rotated = await refreshWith(u.refreshToken);
    expect(rotated.status).toBe(200);
    const reuse = await refreshWith(u.refreshToken);
    expect(reuse.status).toBe(401);
    expect(reuse.body.code).toBe('UNAUTHENTICATED');
    // Every token of the session is dead now, including the ones the legitimate rotation produced.
    expect((await refreshWith(rotated.body.refresh_token)).status).toBe(401);
    expect((await tenantsWith(rotated.body.access_token)).status).toBe(401);
    expect((await tenantsWith(u.accessToken)).status).toBe(401);
    const events = await server.services.audit.list(u.tenantId, { limit: 50, offset: 0 });
    expect(events.events.map((e) => e.type)).toContain('auth.refresh_reuse');
  });

  it('answers 401 without a token, with an access token, with a forged or malformed refresh token', async () => {
    const u = await signUp(server.url);
    expect((await http(server.url, 'POST', '/auth/refresh')).status).toBe(401);
    expect((await refreshWith(u.accessToken)).status).toBe(401);
    expect((await refreshWith('tmr_garbage')).status).toBe(401);
    // Right id, wrong secret: the secret is compared against its stored hash.
    const [id] = u.refreshToken.slice(4).split('.');
    expect((await refreshWith(`tmr_${id}.${'a'.repeat(39)}`)).status).toBe(401);
    // The genuine token still works after those attempts.
    expect((await refreshWith(u.refreshToken)).status).toBe(200);
  });

  it('slides the session expiry forward on every refresh, and an idle session ends after SESSION_TTL_SECONDS', async () => {
    const u = await signUp(server.url);
    let refresh = u.refreshToken;
    for (let i = 0; i < 3; i++) {
      nowMs += 400_000; // each step is within the 600 s TTL, the total is well beyond it
      const r = await refreshWith(refresh);
      expect(r.status, `step ${i}`).toBe(200);
      refresh = r.body.refresh_token;
    }
    nowMs += 601_000;
    expect((await refreshWith(refresh)).status).toBe(401);
  });
});

describe('access tokens', () => {
  it('expire after ACCESS_TOKEN_TTL_SECONDS; a refresh gives a working one', async () => {
    const u = await signUp(server.url);
    nowMs += 121_000;
    const expired = await tenantsWith(u.accessToken);
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/expired/);
    const r = await refreshWith(u.refreshToken);
    expect((await tenantsWith(r.body.access_token)).status).toBe(200);
  });

  it('are rejected when signed with another key, tampered with, or not a JWT at all', async () => {
    const u = await signUp(server.url);
    const [header, payload, signature] = u.accessToken.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .sign(new TextEncoder().encode('x'.repeat(48)));
    expect((await tenantsWith(forged)).status).toBe(401);
    const otherUser = Buffer.from(JSON.stringify({ ...claims, sub: '00000000-0000-4000-8000-000000000000' })).toString('base64url');
    expect((await tenantsWith(`${header}.${otherUser}.${signature}`)).status).toBe(401);
    expect((await tenantsWith('not-a-jwt')).status).toBe(401);
    expect((await http(server.url, 'GET', '/auth/tenants')).status).toBe(401);
  });

  it('are rejected when signed with the real secret but missing any required claim (exp, iat, sub, tid, sid)', async () => {
    const u = await signUp(server.url);
    const claims = JSON.parse(Buffer.from(u.accessToken.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    const key = new TextEncoder().encode(server.services.config.jwtSecret);
    const sign = (payload: Record<string, unknown>) => new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(key);
    // The control: the same claims, re-signed, are accepted, so each refusal below is the missing claim's.
    expect((await tenantsWith(await sign(claims))).status).toBe(200);
    for (const claim of ['exp', 'iat', 'sub', 'tid', 'sid']) {
      const { [claim]: _dropped, ...rest } = claims;
      const res = await tenantsWith(await sign(rest));
      expect(res.status, `without ${claim}`).toBe(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHENTICATED', request_id: expect.any(String) });
    }
  });
});

describe('POST /auth/revoke', () => {
  it('with the access token ends the session: both tokens stop working at once', async () => {
    const u = await signUp(server.url);
    const res = await revokeWith(u.accessToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: true });
    expect((await tenantsWith(u.accessToken)).status).toBe(401);
    expect((await refreshWith(u.refreshToken)).status).toBe(401);
  });

  it('with the refresh token ends the session too', async () => {
    const u = await signUp(server.url);
    expect((await revokeWith(u.refreshToken)).body).toEqual({ revoked: true });
    expect((await tenantsWith(u.accessToken)).status).toBe(401);
    expect((await refreshWith(u.refreshToken)).status).toBe(401);
  });

  it('leaves the user’s other sessions alone', async () => {
    const u = await signUp(server.url);
    const second = await http(server.url, 'POST', '/auth/login', { body: { email: u.email, password: u.password } });
    await revokeWith(u.accessToken);
    expect((await tenantsWith(second.body.access_token)).status).toBe(200);
  });

  it('answers 401 without a token, for an unknown token and for an already revoked session; records auth.revoke', async () => {
    const u = await signUp(server.url);
    expect((await http(server.url, 'POST', '/auth/revoke')).status).toBe(401);
    expect((await revokeWith('tmr_aaaaaaaaaaaaaaaa.' + 'b'.repeat(39))).status).toBe(401);
    expect((await revokeWith(u.accessToken)).status).toBe(200);
    expect((await revokeWith(u.accessToken)).status).toBe(401);
    expect((await revokeWith(u.refreshToken)).status).toBe(401);
    const types = (await server.services.audit.list(u.tenantId, { limit: 50, offset: 0 })).events.map((e) => e.type);
    expect(types.filter((t) => t === 'auth.revoke')).toHaveLength(1);
  });
});
