import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { createApiKey, withKey } from '../support/memory-api.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Finding 6 of issue 20: a NUL byte used to be accepted (201/202) and then cut the stored text short
 * on read, while the index, the injection screen and dedupe had seen all of it. Every free-text field
 * now refuses invisible control characters with 400 naming the field, and stores nothing; ordinary
 * text with tabs, line breaks and non-ASCII characters comes back byte for byte.
 */

let server: TestServer;
let owner: SignedUpUser;
let api: ReturnType<typeof withKey>;

/** Tabs, CR LF, accents, CJK, right-to-left, an emoji with a joiner: everything a human may write. */
const RICH = 'line one\n\tindented\r\nGrüße aus Zürich — 東京 — שלום — 👩\u200D💻 ✓';

const BAD = [
  ['NUL', 'before\u0000after'],
  ['ESC', 'before\u001B[2Jafter'],
  // No UTF-8 form: storage used to turn it into U+FFFD.
  ['a lone surrogate', 'before\uD800after'],
] as const;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url, { name: 'Owner' });
  api = withKey(server.url, await createApiKey(server.url, owner));
});
afterAll(async () => {
  await server?.close();
});

const base = { content: 'a plain memory', title: 'plain' };

describe.each(BAD)('a memory write carrying %s', (_name, bad) => {
  it.each([
    ['content', { ...base, content: bad }, 'content'],
    ['title', { ...base, title: bad }, 'title'],
    ['agent_id', { ...base, agent_id: bad }, 'agent_id'],
    ['a tag', { ...base, tags: ['ok', bad] }, 'tags.1'],
    ['namespace', { ...base, namespace: bad }, 'namespace'],
    ['a metadata value', { ...base, metadata: { source: bad } }, 'metadata.source'],
    ['a metadata key', { ...base, metadata: { [bad]: 'x' } }, `metadata.${bad}`],
  ])('in %s → 400 naming the field, nothing stored', async (_field, body, field) => {
    const before = (await api('GET', '/memories')).body.total;
    const res = await api('POST', '/memories', { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', request_id: expect.any(String) });
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    expect((await api('GET', '/memories')).body.total).toBe(before);
  });
});

describe('an update carrying a control character', () => {
  it('→ 400 and the memory keeps its version and text', async () => {
    const created = await api('POST', '/memories', { body: { content: 'update target', namespace: 'upd' } });
    expect(created.status).toBe(202);
    const id = created.body.memory_id as string;
    const res = await api('PUT', `/memories/${id}`, { body: { content: 'new\u0000hidden tail', namespace: 'upd' } });
    expect(res.status).toBe(400);
    expect(res.body.fields[0].field).toBe('content');
    const read = await api('GET', `/memories/${id}`);
    expect(read.body).toMatchObject({ content: 'update target', version: 1 });
    expect((await api('DELETE', `/memories/${id}`)).status).toBe(200);
  });
});

describe.each(BAD)('an account or tenant field carrying %s', (_name, bad) => {
  it('user name at sign-up → 400, no account made', async () => {
    const email = `nul-${Math.random().toString(36).slice(2)}@example.test`;
    const res = await http(server.url, 'POST', '/auth/signup', { body: { email, password: 'correct horse battery', name: bad } });
    expect(res.status).toBe(400);
    expect(res.body.fields[0].field).toBe('name');
    const login = await http(server.url, 'POST', '/auth/login', { body: { email, password: 'correct horse battery' } });
    expect(login.status).toBe(401);
  });

  it('tenant name → 400, no tenant made', async () => {
    const before = await http(server.url, 'GET', '/auth/tenants', { headers: bearer(owner.accessToken) });
    const res = await http(server.url, 'POST', '/auth/tenants', { headers: bearer(owner.accessToken), body: { name: bad } });
    expect(res.status).toBe(400);
    expect(res.body.fields[0].field).toBe('name');
    const after = await http(server.url, 'GET', '/auth/tenants', { headers: bearer(owner.accessToken) });
    expect(after.body.tenants).toEqual(before.body.tenants);
  });

  it('break-glass reason → 400, no request recorded (an approver can never read a shorter reason than the audited one)', async () => {
    const res = await http(server.url, 'POST', '/auth/break-glass/request', {
      headers: bearer(owner.accessToken),
      body: { reason: `restore ${bad}`, duration_minutes: 5 },
    });
    expect(res.status).toBe(400);
    expect(res.body.fields[0].field).toBe('reason');
    const list = await http(server.url, 'GET', '/auth/break-glass', { headers: bearer(owner.accessToken) });
    expect(list.body.requests.filter((r: { reason: string }) => r.reason.startsWith('restore'))).toEqual([]);
  });

  it('API key name → 400, no key made', async () => {
    const before = await http(server.url, 'GET', '/api-keys', { headers: bearer(owner.accessToken) });
    const res = await http(server.url, 'POST', '/api-keys', {
      headers: bearer(owner.accessToken),
      body: { name: bad, scopes: ['memories:read'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.fields[0].field).toBe('name');
    const after = await http(server.url, 'GET', '/api-keys', { headers: bearer(owner.accessToken) });
    expect(after.body.keys.length).toBe(before.body.keys.length);
  });
});

describe('legitimate text', () => {
  it('tabs, line breaks and non-ASCII text in every memory field are stored and read back byte for byte', async () => {
    const body = {
      content: RICH,
      title: `title ${RICH}`,
      tags: ['tag\tone', 'Zürich 東京'],
      agent_id: 'agent Zürich',
      namespace: 'rich',
      metadata: { 'clé\tkey': RICH, n: 1 },
    };
    const created = await api('POST', '/memories', { body });
    expect(created.status).toBe(202);
    const read = await api('GET', `/memories/${created.body.memory_id}`);
    expect(read.body).toMatchObject({
      content: RICH,
      title: `title ${RICH}`,
      tags: body.tags,
      agent_id: body.agent_id,
      metadata: body.metadata,
    });
    expect(Buffer.from(read.body.content, 'utf8').equals(Buffer.from(RICH, 'utf8'))).toBe(true);
    expect((await api('DELETE', `/memories/${created.body.memory_id}`)).status).toBe(200);
  });

  it('a user name, tenant name and break-glass reason come back intact', async () => {
    const user = await signUp(server.url, { name: `Zoë\t${RICH}` });
    const members = await http(server.url, 'GET', '/auth/members', { headers: bearer(user.accessToken) });
    expect(members.body.members[0].name).toBe(`Zoë\t${RICH}`);

    const tenant = await http(server.url, 'POST', '/auth/tenants', { headers: bearer(user.accessToken), body: { name: `Team ${RICH}` } });
    expect(tenant.status).toBe(201);
    const tenants = await http(server.url, 'GET', '/auth/tenants', { headers: bearer(user.accessToken) });
    expect(tenants.body.tenants.map((t: { name: string }) => t.name)).toContain(`Team ${RICH}`);

    const reason = `incident: ${RICH}`;
    const requested = await http(server.url, 'POST', '/auth/break-glass/request', {
      headers: bearer(user.accessToken),
      body: { reason, duration_minutes: 5 },
    });
    expect(requested.status).toBe(201);
    const list = await http(server.url, 'GET', '/auth/break-glass', { headers: bearer(user.accessToken) });
    expect(list.body.requests.map((r: { reason: string }) => r.reason)).toContain(reason);
  });
});
