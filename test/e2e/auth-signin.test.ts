import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, logIn, signUp } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /auth/signup', () => {
  it('creates the user and an owned default tenant (plan free, status active) and answers 201 with the token response', async () => {
    const res = await http(server.url, 'POST', '/auth/signup', {
      body: { email: 'Ada@Example.com', password: 'correct horse battery', name: 'Ada' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.stringMatching(/^tmr_/),
      token_type: 'Bearer',
      expires_in: 900,
      user_id: expect.stringMatching(uuid),
      tenant_id: expect.stringMatching(uuid),
    });
    const tenant = await server.services.ports.tenants.get(res.body.tenant_id);
    expect(tenant).toMatchObject({ plan: 'free', status: 'active' });
    const membership = await server.services.ports.tenants.membership(res.body.tenant_id, res.body.user_id);
    expect(membership).toMatchObject({ role: 'owner', isDefault: true });
    const user = await server.services.ports.users.findById(res.body.user_id);
    expect(user?.email).toBe('ada@example.com');
    expect(user?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('answers 409 for an email that is taken, whatever its case', async () => {
    await signUp(server.url, { email: 'taken@example.com' });
    const res = await http(server.url, 'POST', '/auth/signup', { body: { email: 'TAKEN@example.com', password: 'another long password' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
  });

  it('answers 400 for a short password, a bad email or a missing field', async () => {
    for (const body of [
      { email: 'short@example.com', password: 'short' },
      { email: 'not-an-email', password: 'long enough password' },
      { password: 'long enough password' },
      { email: 'x@example.com', password: 'x'.repeat(257) },
    ]) {
      const res = await http(server.url, 'POST', '/auth/signup', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('answers 403 when SIGNUP_ENABLED=false', async () => {
    const closed = await startTestServer({ SIGNUP_ENABLED: 'false' });
    try {
      const res = await http(closed.url, 'POST', '/auth/signup', { body: { email: 'no@example.com', password: 'long enough password' } });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    } finally {
      await closed.close();
    }
  });
});

describe('POST /auth/login', () => {
  it('signs in with the right password, in any email case', async () => {
    const u = await signUp(server.url);
    const body = await logIn(server.url, u.email.toUpperCase(), u.password);
    expect(body).toMatchObject({ token_type: 'Bearer', user_id: u.userId, tenant_id: u.tenantId, expires_in: 900 });
    expect(body.refresh_token).not.toBe(u.refreshToken);
    const tenants = await http(server.url, 'GET', '/auth/tenants', { headers: bearer(body.access_token) });
    expect(tenants.status).toBe(200);
  });

  it('gives the same 401 for a wrong password and an unknown email', async () => {
    const u = await signUp(server.url);
    const wrong = await http(server.url, 'POST', '/auth/login', { body: { email: u.email, password: 'wrong password!' } });
    const unknown = await http(server.url, 'POST', '/auth/login', { body: { email: 'nobody@example.com', password: 'wrong password!' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect({ ...wrong.body, request_id: '' }).toEqual({ ...unknown.body, request_id: '' });
    expect(wrong.body).toEqual({ code: 'UNAUTHENTICATED', message: 'invalid email or password', request_id: expect.any(String) });
  });

  it('answers 400 for a malformed body', async () => {
    const res = await http(server.url, 'POST', '/auth/login', { body: { email: 'x@example.com' } });
    expect(res.status).toBe(400);
  });
});
