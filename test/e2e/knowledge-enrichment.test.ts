import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase } from '../../adapters/embedded/database.js';
import type { EnrichmentEngine } from '../../server/ports/enrichment-engine.js';
import { createApiKey, tenantWithKey, waitConsolidated, waitSettled, withKey } from '../support/memory-api.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Enrichment over real HTTP with in-process workers: the trigger (202), the `knowledge.enrich` job on
 * the embedded profile's Agenda, the offline engines (rules, and facts from the tenant's own memories),
 * and the log. Every text here is written for this test.
 */
const SCOPES = ['knowledge:read', 'knowledge:write', 'memories:read', 'memories:write', 'usage:read'];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function tenant() {
  const { key } = await tenantWithKey(server.url, SCOPES);
  return { key, api: withKey(server.url, key) };
}

const settled = waitSettled;

describe('enrichment', () => {
  it("derives an organisation's domain from its website (rule engine), and the log's committed entry equals the field", async () => {
    const { api } = await tenant();
    const org = await api('POST', '/v1/knowledge/organization', {
      body: { fields: { name: 'Northwind', website: 'https://www.northwind-trading.co.uk/about' } },
    });
    expect(org.body.status).toBe('INCOMPLETE');
    const started = await api('POST', `/v1/knowledge/organization/${org.body.id}/enrich`);
    expect(started.status, started.text).toBe(202);
    expect(started.body).toEqual({ id: org.body.id, status: 'ENRICHING' });
    const done = await settled(api, `/v1/knowledge/organization/${org.body.id}`);
    expect(done.fields.domain).toMatchObject({ value: 'northwind-trading.co.uk', provenance: 'KG_INFERENCE' });
    expect(done.status).toBe('PARTIALLY_COMPLETE');
    const log = (await api('GET', `/v1/knowledge/organization/${org.body.id}/enrichment-log`)).body as any[];
    const committed = log.filter((e) => e.outcome === 'committed');
    expect(committed).toEqual([
      expect.objectContaining({ engine: 'rule', field: 'domain', strategy: 'derive:domain_from_url', source_refs: ['field:website'] }),
    ]);
    expect(committed[0].candidate_value).toEqual(done.fields.domain.value);
    expect(committed[0].confidence).toEqual(done.fields.domain.confidence);
    // Misses are logged too: the kg engine found nothing for the headquarters.
    expect(log).toContainEqual(expect.objectContaining({ engine: 'kg', field: 'headquarters', outcome: 'no_candidate' }));
    expect(new Set(log.map((e) => e.run_id)).size).toBe(1);
  });

  it("fills a person's fields from facts stated in the tenant's own memories, naming them in source_refs", async () => {
    const { key, api } = await tenant();
    const memories: string[] = [];
    for (const content of [
      'Marisol Quintero works at Halvorsen Biotech as a lab manager.',
      'Marisol Quintero lives in Tromsø with her two cats.',
      'Lunch with Marisol Quintero: she still loves working at Halvorsen Biotech.',
    ]) {
      const res = await api('POST', '/memories', { body: { content } });
      expect(res.status).toBe(202);
      memories.push(res.body.memory_id);
    }
    await waitConsolidated(server.url, key);
    const p = await api('POST', '/v1/knowledge/person', { body: { fields: { name: 'Marisol Quintero' } } });
    expect((await api('POST', `/v1/knowledge/person/${p.body.id}/enrich`)).status).toBe(202);
    const done = await settled(api, `/v1/knowledge/person/${p.body.id}`);
    expect(done.fields.employer).toMatchObject({ value: 'Halvorsen Biotech', provenance: 'KG_INFERENCE' });
    expect(done.fields.location).toMatchObject({ value: 'Tromsø', provenance: 'KG_INFERENCE' });
    expect(done.fields.name).toMatchObject({ value: 'Marisol Quintero', provenance: 'AGENT_INPUT' });
    const log = (await api('GET', `/v1/knowledge/person/${p.body.id}/enrichment-log`)).body as any[];
    const employer = log.find((e) => e.field === 'employer' && e.outcome === 'committed');
    expect(employer.engine).toBe('kg');
    expect(employer.source_refs).toContain(`memory:${memories[0]}`);
    expect(log.find((e) => e.field === 'location' && e.outcome === 'committed').source_refs).toEqual([`memory:${memories[1]}`]);
    // Another tenant's memories never count.
    const other = await tenant();
    const q = await other.api('POST', '/v1/knowledge/person', { body: { fields: { name: 'Marisol Quintero' } } });
    await other.api('POST', `/v1/knowledge/person/${q.body.id}/enrich`);
    const theirs = await settled(other.api, `/v1/knowledge/person/${q.body.id}`);
    expect(theirs.fields.employer).toBeUndefined();
  });

  it('reads only the memory namespaces of the key that triggered the run', async () => {
    const { user, key } = await tenantWithKey(server.url, SCOPES);
    const api = withKey(server.url, key);
    expect((await api('POST', '/memories', { body: { content: 'Ilse Varga lives in Szeged.', namespace: 'hr-private' } })).status).toBe(
      202,
    );
    expect(
      (await api('POST', '/memories', { body: { content: 'Ilse Varga works at Tiszavolgy Mills.', namespace: 'public' } })).status,
    ).toBe(202);
    await waitConsolidated(server.url, key);
    const restricted = withKey(server.url, await createApiKey(server.url, user, SCOPES, ['public']));
    const p = await restricted('POST', '/v1/knowledge/person', { body: { fields: { name: 'Ilse Varga' } } });
    expect((await restricted('POST', `/v1/knowledge/person/${p.body.id}/enrich`)).status).toBe(202);
    const done = await settled(restricted, `/v1/knowledge/person/${p.body.id}`);
    expect(done.fields.employer).toMatchObject({ value: 'Tiszavolgy Mills' });
    expect(done.fields.location).toBeUndefined();
    // The same object enriched by a key for every namespace reads both.
    expect((await api('POST', `/v1/knowledge/person/${p.body.id}/enrich`)).status).toBe(202);
    expect((await settled(api, `/v1/knowledge/person/${p.body.id}`)).fields.location).toMatchObject({ value: 'Szeged' });
  });

  it("proposes a person's location from their employer's headquarters (relation_traversal) without committing it", async () => {
    const { api } = await tenant();
    await api('POST', '/v1/knowledge/organization', { body: { fields: { name: 'Brightwater Labs', headquarters: 'Ghent' } } });
    const p = await api('POST', '/v1/knowledge/person', { body: { fields: { name: 'Oskar Lindqvist', employer: 'Brightwater Labs' } } });
    await api('POST', `/v1/knowledge/person/${p.body.id}/enrich`);
    const done = await settled(api, `/v1/knowledge/person/${p.body.id}`);
    expect(done.fields.location).toBeUndefined();
    const log = (await api('GET', `/v1/knowledge/person/${p.body.id}/enrichment-log`)).body as any[];
    expect(log).toContainEqual(
      expect.objectContaining({ field: 'location', strategy: 'relation_traversal', outcome: 'proposed', candidate_value: 'Ghent' }),
    );
  });

  it('answers 409 ENRICHMENT_DISABLED for do_not_enrich and 404 for another tenant', async () => {
    const { api } = await tenant();
    const quiet = await api('POST', '/v1/knowledge/organization', {
      body: { fields: { name: 'Quiet Co', website: 'https://quiet.example' }, do_not_enrich: true },
    });
    const refused = await api('POST', `/v1/knowledge/organization/${quiet.body.id}/enrich`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('ENRICHMENT_DISABLED');
    const other = await tenant();
    expect((await other.api('POST', `/v1/knowledge/organization/${quiet.body.id}/enrich`)).status).toBe(404);
  });
});

describe('a trigger while a run holds the object', () => {
  it('starts nothing new: one queued job, the object ENRICHING (no worker runs in this server)', async () => {
    const queued = await startTestServer({ WORKER_MODE: 'external' });
    try {
      const { key } = await tenantWithKey(queued.url, SCOPES);
      const api = withKey(queued.url, key);
      const org = await api('POST', '/v1/knowledge/organization', {
        body: { fields: { name: 'Twice Ltd', website: 'https://twice.example' } },
      });
      for (let i = 0; i < 3; i++) {
        const res = await api('POST', `/v1/knowledge/organization/${org.body.id}/enrich`);
        expect(res.status).toBe(202);
        expect(res.body).toEqual({ id: org.body.id, status: 'ENRICHING' });
      }
      expect((await api('GET', `/v1/knowledge/organization/${org.body.id}`)).body.status).toBe('ENRICHING');
      const db = openEmbeddedDatabase(queued.dataDir);
      try {
        const jobs = db.prepare("SELECT data FROM agenda_jobs WHERE name = 'knowledge.enrich'").all([]) as { data: string }[];
        expect(jobs).toHaveLength(1);
        expect(JSON.parse(jobs[0]!.data)).toMatchObject({ objectId: org.body.id });
      } finally {
        db.close();
      }
    } finally {
      await queued.close();
    }
  });
});

describe('a client PATCH during a run, and an engine that fails', () => {
  it("keeps the client's value (the run's committed entry turns stale), logs the failing engine as error, and settles the status", async () => {
    let client: ReturnType<typeof withKey> | null = null;
    // Stand-ins of outside engines (the LLM and web engines are outside services): the first answers
    // after a client's PATCH has landed, the second fails.
    const racing: EnrichmentEngine = {
      name: 'llm',
      provenance: 'LLM_INFERENCE',
      enabledFor: async () => true,
      async propose({ object }) {
        const res = await client!('PATCH', `/v1/knowledge/organization/${object.id}`, {
          body: { fields: { domain: 'client-says.example' } },
        });
        expect(res.status).toBe(200);
        return { candidates: [], tried: {} };
      },
    };
    const failing: EnrichmentEngine = {
      name: 'web',
      provenance: 'WEB_INFERENCE',
      enabledFor: async () => true,
      propose: async () => {
        throw new Error('connection refused');
      },
    };
    const raced = await startTestServer({}, { enrichmentEngines: (configured) => [...configured, racing, failing] });
    try {
      const { key } = await tenantWithKey(raced.url, SCOPES);
      client = withKey(raced.url, key);
      const org = await client('POST', '/v1/knowledge/organization', {
        body: { fields: { name: 'Raced Inc', website: 'https://raced-inc.com' } },
      });
      expect((await client('POST', `/v1/knowledge/organization/${org.body.id}/enrich`)).status).toBe(202);
      const done = await settled(client, `/v1/knowledge/organization/${org.body.id}`);
      expect(done.fields.domain).toMatchObject({ value: 'client-says.example', provenance: 'AGENT_INPUT' });
      expect(done.status).toBe('PARTIALLY_COMPLETE');
      const log = (await client('GET', `/v1/knowledge/organization/${org.body.id}/enrichment-log`)).body as any[];
      expect(log).toContainEqual(
        expect.objectContaining({ engine: 'rule', field: 'domain', outcome: 'stale', candidate_value: 'raced-inc.com' }),
      );
      expect(log.filter((e) => e.engine === 'web').every((e) => e.outcome === 'error')).toBe(true);
      expect(log.filter((e) => e.engine === 'web').map((e) => e.field)).toEqual(expect.arrayContaining(['industry', 'headquarters']));
    } finally {
      await raced.close();
    }
  });
});
