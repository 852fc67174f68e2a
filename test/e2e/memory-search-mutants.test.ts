import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../support/auth.js';
import { tenantWithKey, waitConsolidated, withKey } from '../support/memory-api.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

// Memory and search service rules that survived mutation testing (docs/mutation-testing.md, group
// `memory-search`): each case here failed with the mutant applied and no other test noticed.

let server: TestServer;
let tenant: Awaited<ReturnType<typeof tenantWithKey>>;
let api: ReturnType<typeof withKey>;
beforeAll(async () => {
  server = await startTestServer();
  tenant = await tenantWithKey(server.url);
  api = withKey(server.url, tenant.key);
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const fieldsOf = (body: { fields?: Array<{ field: string }> }) => (body.fields ?? []).map((f) => f.field);

describe('memory writes at their edges', () => {
  it('refuses content that is only whitespace, naming content', async () => {
    const res = await api('POST', '/memories', { body: { content: ' \n\t ' } });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['content']);
  });

  it('stores a memory written without tags with no tags', async () => {
    const created = await api('POST', '/memories', { body: { content: 'written without any tags' } });
    expect((await api('GET', `/memories/${created.body.memory_id}`)).body.tags).toEqual([]);
  });

  it('refuses moving a memory to another namespace, naming namespace', async () => {
    const created = await api('POST', '/memories', { body: { content: 'stays in its namespace', namespace: 'alpha' } });
    const moved = await api('PUT', `/memories/${created.body.memory_id}`, {
      body: { content: 'stays in its namespace', namespace: 'beta' },
    });
    expect(moved.status).toBe(400);
    expect(fieldsOf(moved.body)).toEqual(['namespace']);
  });

  it('binds an Idempotency-Key to the update it came with: the same update replays, another one is refused', async () => {
    const id = (await api('POST', '/memories', { body: { content: 'first text' } })).body.memory_id;
    const update = (content: string) => api('PUT', `/memories/${id}`, { body: { content }, headers: { 'idempotency-key': `upd-${id}` } });
    const first = await update('second text');
    expect(first.status).toBe(202);
    const replay = await update('second text');
    expect(replay.body).toEqual(first.body);
    expect((await update('a different update')).status).toBe(409);
  });

  it('binds an Idempotency-Key to the rollback it came with', async () => {
    const id = (await api('POST', '/memories', { body: { content: 'version one' } })).body.memory_id;
    await api('PUT', `/memories/${id}`, { body: { content: 'version two' } });
    await api('PUT', `/memories/${id}`, { body: { content: 'version three' } });
    await waitConsolidated(server.url, tenant.key);
    const rollback = (target: number) =>
      api('POST', `/memories/${id}/rollback`, { body: { target_version: target }, headers: { 'idempotency-key': `rb-${id}` } });
    const first = await rollback(1);
    expect(first.status).toBe(200);
    expect((await rollback(1)).body).toEqual(first.body);
    expect((await rollback(2)).status).toBe(409);
  });

  it('keeps an Idempotency-Key for longer than a moment by default (24 hours)', async () => {
    const write = () =>
      api('POST', '/memories', { body: { content: 'retried after a pause' }, headers: { 'idempotency-key': 'pause-retry' } });
    const first = await write();
    await new Promise((r) => setTimeout(r, 300));
    expect((await write()).body.memory_id).toBe(first.body.memory_id);
  });

  it('audits a delete with the memory’s namespace and version, never its content', async () => {
    const id = (await api('POST', '/memories', { body: { content: 'to be deleted', namespace: 'scratch' } })).body.memory_id;
    await api('PUT', `/memories/${id}`, { body: { content: 'to be deleted, second version', namespace: 'scratch' } });
    expect((await api('DELETE', `/memories/${id}`)).status).toBe(200);
    const events = (await http(server.url, 'GET', '/auth/audit?limit=50', { headers: bearer(tenant.user.accessToken) })).body.events;
    const deleted = events.filter(
      (e: { type: string; target: { id: string } | null }) => e.type === 'memory.delete' && e.target?.id === id,
    );
    expect(deleted).toHaveLength(1);
    expect(deleted[0].details).toEqual({ namespace: 'scratch', version: 2 });
  });
});

describe('listing and searching at their edges', () => {
  it('refuses a time range whose start is after its end, naming from; an equal start and end is fine', async () => {
    const at = '2030-01-01T00:00:00.000Z';
    const reversed = await api('GET', `/memories?from=2030-01-02T00:00:00.000Z&to=${at}`);
    expect(reversed.status).toBe(400);
    expect(fieldsOf(reversed.body)).toEqual(['from']);
    expect((await api('GET', `/memories?from=${at}&to=${at}`)).status).toBe(200);
  });

  it('offers no next page when the page ends exactly at the last match', async () => {
    const own = await tenantWithKey(server.url);
    const call = withKey(server.url, own.key);
    for (const content of ['quokka sighting at dawn', 'quokka sighting at dusk'])
      expect((await call('POST', '/memories', { body: { content } })).status).toBe(202);
    await waitConsolidated(server.url, own.key);
    const first = await call('GET', '/memories/search?q=quokka&k=1&mode=hybrid');
    expect(first.body.total).toBe(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await call('GET', `/memories/search?q=quokka&k=1&mode=hybrid&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.results).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
  });
});
