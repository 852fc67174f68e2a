import path from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_AGENT_MAX } from '../../server/context.js';
import { bearer } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Issue 20, finding 8: the User-Agent was stored unbounded in sessions and audit events. A client
 * can send up to Node's header limit (16 KB; beyond it the request is refused with 431), so a
 * 15,000-character User-Agent is the largest that reaches the service.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('a huge User-Agent', () => {
  it('is accepted, and sessions and audit events store at most USER_AGENT_MAX characters of it', async () => {
    const userAgent = `agent/1.0 ${'x'.repeat(15_000)}`;
    const email = `ua-${Date.now()}@example.test`;
    const signup = await http(server.url, 'POST', '/auth/signup', {
      headers: { 'user-agent': userAgent },
      body: { email, password: 'correct horse battery' },
    });
    expect(signup.status).toBe(201);
    const login = await http(server.url, 'POST', '/auth/login', {
      headers: { 'user-agent': userAgent },
      body: { email, password: 'correct horse battery' },
    });
    expect(login.status).toBe(200);

    const audit = await http(server.url, 'GET', '/auth/audit', { headers: bearer(login.body.access_token) });
    expect(audit.status).toBe(200);
    const stored = audit.body.events.map((e: { user_agent: string | null }) => e.user_agent);
    expect(stored.length).toBeGreaterThanOrEqual(2);
    for (const ua of stored) expect(ua).toBe(userAgent.slice(0, USER_AGENT_MAX));

    const db = new Database(path.join(server.dataDir, 'tenant-memory.db'), { readonly: true });
    try {
      const row = db
        .prepare('SELECT count(*) AS n, max(length(user_agent)) AS longest FROM sessions WHERE user_id = ?')
        .get(login.body.user_id) as { n: number; longest: number };
      expect(row).toMatchObject({ n: 2, longest: USER_AGENT_MAX });
    } finally {
      db.close();
    }
  });
});

describe('an X-Forwarded-For entry that is not an address', () => {
  it('is not taken as the client address, even from a trusted proxy: sessions and audit events record the nearest real hop', async () => {
    const trusting = await startTestServer({ TRUST_PROXY: 'true' });
    try {
      const headers = { 'x-forwarded-for': `${'<not an address>'.repeat(600)}, 198.51.100.7, garbage` };
      const email = `xff-${Date.now()}@example.test`;
      const signup = await http(trusting.url, 'POST', '/auth/signup', { headers, body: { email, password: 'correct horse battery' } });
      expect(signup.status).toBe(201);
      const audit = await http(trusting.url, 'GET', '/auth/audit', { headers: bearer(signup.body.access_token) });
      expect([...new Set(audit.body.events.map((e: { ip: string }) => e.ip))]).toEqual(['127.0.0.1']);
      const plain = await http(trusting.url, 'POST', '/auth/login', {
        headers: { 'x-forwarded-for': '198.51.100.7' },
        body: { email, password: 'correct horse battery' },
      });
      expect(plain.status).toBe(200);
      const after = await http(trusting.url, 'GET', '/auth/audit', { headers: bearer(plain.body.access_token) });
      expect(after.body.events[0]).toMatchObject({ type: 'auth.login', ip: '198.51.100.7' });
    } finally {
      await trusting.close();
    }
  });
});
