import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import { bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

let nowMs = Date.now();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ STEP_UP_TTL_SECONDS: '120' }, { clock: () => nowMs });
});
afterAll(async () => {
  await server?.close();
});

const stepUp = (u: { accessToken: string }, body: Record<string, unknown>, tenantId?: string) =>
  http(server.url, 'POST', '/auth/step-up', { headers: bearer(u.accessToken, tenantId), body });

/** Resolves to 'ok' or the AppError code verifyStepUp threw. */
async function verify(
  token: string | undefined,
  expected: { userId: string; tenantId: string; action: 'data.export' | 'data.delete' | 'retention.override' },
) {
  try {
    await server.services.auth.verifyStepUp(token, expected);
    return 'ok';
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
}

describe('POST /auth/step-up for a user with a password', () => {
  let u: SignedUpUser;
  beforeAll(async () => {
    u = await signUp(server.url);
  });

  it('issues a short-lived token bound to the action after re-entering the password', async () => {
    const res = await stepUp(u, { action: 'data.export', password: u.password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      step_up_token: expect.stringMatching(/^tms_[a-z2-7]{16}\.[a-z2-7]{39}$/),
      expires_in: 120,
      action: 'data.export',
    });
    expect(await verify(res.body.step_up_token, { userId: u.userId, tenantId: u.tenantId, action: 'data.export' })).toBe('ok');
    const audit = await server.services.audit.list(u.tenantId, { limit: 5, offset: 0 });
    expect(audit.events[0]).toMatchObject({ type: 'auth.step_up', details: { action: 'data.export', method: 'password' } });
  });

  it('answers 400 without the password and 401 with a wrong one', async () => {
    const missing = await stepUp(u, { action: 'data.delete' });
    expect(missing.status).toBe(400);
    expect(missing.body.fields).toEqual([{ field: 'password', message: expect.any(String) }]);
    const wrong = await stepUp(u, { action: 'data.delete', password: 'not the password' });
    expect(wrong.status).toBe(401);
    const audit = await server.services.audit.list(u.tenantId, { limit: 5, offset: 0 });
    expect(audit.events[0]).toMatchObject({ type: 'auth.step_up_failed', details: { action: 'data.delete', reason: 'wrong_password' } });
  });

  it('answers 400 for an unknown or missing action and 401 without a bearer token', async () => {
    expect((await stepUp(u, { action: 'data.exfiltrate', password: u.password })).status).toBe(400);
    expect((await stepUp(u, { password: u.password })).status).toBe(400);
    expect((await http(server.url, 'POST', '/auth/step-up', { body: { action: 'data.export', password: u.password } })).status).toBe(401);
  });

  it('binds the token to its action, user and tenant, and to a live session', async () => {
    const token = (await stepUp(u, { action: 'data.delete', password: u.password })).body.step_up_token as string;
    const other = await signUp(server.url);
    const expected = { userId: u.userId, tenantId: u.tenantId, action: 'data.delete' as const };
    expect(await verify(token, expected)).toBe('ok');
    expect(await verify(token, { ...expected, action: 'data.export' })).toBe('STEP_UP_REQUIRED');
    expect(await verify(token, { ...expected, userId: other.userId })).toBe('STEP_UP_REQUIRED');
    expect(await verify(token, { ...expected, tenantId: other.tenantId })).toBe('STEP_UP_REQUIRED');
    expect(await verify(undefined, expected)).toBe('STEP_UP_REQUIRED');
    expect(await verify('tms_garbage', expected)).toBe('STEP_UP_REQUIRED');
    const [id] = token.slice(4).split('.');
    expect(await verify(`tms_${id}.${'a'.repeat(39)}`, expected)).toBe('STEP_UP_REQUIRED');
  });

  it('expires after STEP_UP_TTL_SECONDS', async () => {
    const token = (await stepUp(u, { action: 'retention.override', password: u.password })).body.step_up_token as string;
    const expected = { userId: u.userId, tenantId: u.tenantId, action: 'retention.override' as const };
    nowMs += 119_000;
    expect(await verify(token, expected)).toBe('ok');
    nowMs += 2_000;
    expect(await verify(token, expected)).toBe('STEP_UP_REQUIRED');
  });

  it('dies with its session', async () => {
    const fresh = await signUp(server.url);
    const token = (await stepUp(fresh, { action: 'data.export', password: fresh.password })).body.step_up_token as string;
    await http(server.url, 'POST', '/auth/revoke', { headers: bearer(fresh.accessToken) });
    expect(await verify(token, { userId: fresh.userId, tenantId: fresh.tenantId, action: 'data.export' })).toBe('STEP_UP_REQUIRED');
  });

  it('is issued for the tenant named by X-Tenant-ID', async () => {
    const second = await http(server.url, 'POST', '/auth/tenants', { headers: bearer(u.accessToken), body: { name: 'Second' } });
    const token = (await stepUp(u, { action: 'data.export', password: u.password }, second.body.tenant_id)).body.step_up_token as string;
    expect(await verify(token, { userId: u.userId, tenantId: second.body.tenant_id, action: 'data.export' })).toBe('ok');
    expect(await verify(token, { userId: u.userId, tenantId: u.tenantId, action: 'data.export' })).toBe('STEP_UP_REQUIRED');
  });
});

describe('POST /auth/step-up for an SSO-only user (no password)', () => {
  it('accepts a sign-in from the last 5 minutes and refuses an older one', async () => {
    const meta = { ip: '127.0.0.1', userAgent: 'test' };
    const { user, tenant } = await server.services.auth.provisionUser(
      { email: `sso-${Date.now()}@example.com`, name: 'Sso', passwordHash: null },
      meta,
    );
    const tokens = await server.services.auth.issueSession(user.id, tenant.id, { ...meta, method: 'sso' });
    const sso = { accessToken: tokens.accessToken };
    const fresh = await stepUp(sso, { action: 'data.export' });
    expect(fresh.status).toBe(200);
    expect(await verify(fresh.body.step_up_token, { userId: user.id, tenantId: tenant.id, action: 'data.export' })).toBe('ok');
    // A password is pointless for this user; the recent sign-in is what counts.
    nowMs += 5 * 60_000 + 1_000;
    const refreshed = await http(server.url, 'POST', '/auth/refresh', { headers: bearer(tokens.refreshToken) });
    expect(refreshed.status).toBe(200);
    const stale = await stepUp({ accessToken: refreshed.body.access_token }, { action: 'data.export' });
    expect(stale.status).toBe(401);
    expect(stale.body.message).toMatch(/sign in again/);
  });
});
