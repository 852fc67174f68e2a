import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantWithKey, waitConsolidated, waitSettled, withKey } from '../support/memory-api.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The kg engine remembers each memory's facts by (id, version) in the process: an edited memory must
 * be read again, not answered from the memo of its earlier text. Texts written for this test.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const settled = waitSettled;

describe('kg engine facts memo', () => {
  it('reads an edited memory again: a fact its new version states is found on the next run', async () => {
    const { key } = await tenantWithKey(server.url, ['knowledge:read', 'knowledge:write', 'memories:read', 'memories:write', 'usage:read']);
    const api = withKey(server.url, key);
    const memory = await api('POST', '/memories', { body: { content: 'Ottilie Brandvold had lunch by the fjord on Friday.' } });
    expect(memory.status).toBe(202);
    await waitConsolidated(server.url, key);

    const person = await api('POST', '/v1/knowledge/person', { body: { fields: { name: 'Ottilie Brandvold' } } });
    const path = `/v1/knowledge/person/${person.body.id}`;
    expect((await api('POST', `${path}/enrich`)).status).toBe(202);
    expect((await settled(api, path)).fields.employer).toBeUndefined();

    const edited = await api('PUT', `/memories/${memory.body.memory_id}`, {
      body: { content: 'Ottilie Brandvold works at Skarvik Ferries as a harbour pilot.' },
    });
    expect(edited.status, edited.text).toBe(202);
    await waitConsolidated(server.url, key);

    expect((await api('POST', `${path}/enrich`)).status).toBe(202);
    const done = await settled(api, path);
    expect(done.fields.employer).toMatchObject({ value: 'Skarvik Ferries', provenance: 'KG_INFERENCE' });
    const log = (await api('GET', `${path}/enrichment-log`)).body as { field: string; outcome: string; source_refs: string[] }[];
    expect(log).toContainEqual(
      expect.objectContaining({ field: 'employer', outcome: 'committed', source_refs: [`memory:${memory.body.memory_id}`] }),
    );
  });
});
