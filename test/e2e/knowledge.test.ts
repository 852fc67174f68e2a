import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantWithKey, withKey } from '../support/memory-api.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** The Knowledge API's object and structure routes over real HTTP, on the embedded profile. */
const ALL = ['knowledge:read', 'knowledge:write', 'knowledge:admin', 'usage:read'];

let server: TestServer;
let api: ReturnType<typeof withKey>;
let other: ReturnType<typeof withKey>;
beforeAll(async () => {
  server = await startTestServer();
  api = withKey(server.url, (await tenantWithKey(server.url, ALL)).key);
  other = withKey(server.url, (await tenantWithKey(server.url, ALL)).key);
});
afterAll(async () => {
  await server?.close();
});

async function createPerson(fields: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await api('POST', '/v1/knowledge/person', { body: { fields, ...extra } });
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, any>;
}

describe('knowledge objects', () => {
  it('creates a partial person (201) bound to the built-in structure, every value AGENT_INPUT with confidence 1', async () => {
    const res = await api('POST', '/v1/knowledge/person', { body: { fields: { name: 'Dana Whitfield', employer: 'Northwind' } } });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/knowledge/person/${res.body.id}`);
    expect(res.body).toMatchObject({
      id: expect.any(String),
      tenant_id: expect.any(String),
      ks_id: expect.any(String),
      ks_type: 'person',
      schema_version: '1.0.0',
      status: 'INCOMPLETE',
      do_not_enrich: false,
      fields: {
        name: { value: 'Dana Whitfield', confidence: 1, provenance: 'AGENT_INPUT', updated_at: expect.any(String) },
        employer: { value: 'Northwind', confidence: 1, provenance: 'AGENT_INPUT' },
      },
    });
    expect(res.body.completeness_score).toBeGreaterThan(0);
    expect(res.body.completeness_score).toBeLessThan(1);
    expect(res.body.missing_fields.map((m: { field: string }) => m.field)).toEqual(expect.arrayContaining(['email', 'job_title']));
    const got = await api('GET', `/v1/knowledge/person/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('PATCH keeps omitted fields, clears null ones, recomputes completeness, and known-none fields count as filled', async () => {
    const p = await createPerson({ name: 'Sam Okafor', employer: 'Globex', location: 'Porto' });
    const res = await api('PATCH', `/v1/knowledge/person/${p.id}`, {
      body: { fields: { location: null, job_title: 'Staff engineer' }, known_none: ['phone'] },
    });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body.fields).sort()).toEqual(['employer', 'job_title', 'name', 'phone']);
    expect(res.body.fields.phone).toMatchObject({ value: null, known_none: true, provenance: 'AGENT_INPUT' });
    expect(res.body.missing_fields.map((m: { field: string }) => m.field)).not.toContain('phone');
    expect(res.body.missing_fields.map((m: { field: string }) => m.field)).toContain('location');
    const full = await api('PATCH', `/v1/knowledge/person/${p.id}`, {
      body: { fields: { location: 'Porto', email: 'sam@globex.example', manager: 'Dana Whitfield' } },
    });
    expect(full.body).toMatchObject({ completeness_score: 1, status: 'COMPLETE', missing_fields: [] });
  });

  it('answers 400 naming every field that does not fit, and writes nothing', async () => {
    const res = await api('POST', '/v1/knowledge/person', {
      body: { fields: { name: 'Ana', email: 'not an address', shoe_size: 42 }, known_none: ['name'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.fields.map((f: { field: string }) => f.field).sort()).toEqual(['fields.email', 'fields.shoe_size', 'known_none.name']);
    const missingName = await api('POST', '/v1/knowledge/person', { body: { fields: { employer: 'Initech' } } });
    expect(missingName.status).toBe(400);
    expect((await api('GET', '/v1/knowledge/person?limit=100')).body.objects.map((o: any) => o.fields.name?.value)).not.toContain('Ana');
  });

  it('404 for an unknown type, another type, and another tenant; 403 without the scope', async () => {
    const p = await createPerson({ name: 'Lee Park' });
    expect((await api('GET', '/v1/knowledge/spaceship')).status).toBe(404);
    expect((await api('POST', '/v1/knowledge/spaceship', { body: { fields: { name: 'x' } } })).status).toBe(404);
    expect((await api('GET', `/v1/knowledge/organization/${p.id}`)).status).toBe(404);
    expect((await other('GET', `/v1/knowledge/person/${p.id}`)).status).toBe(404);
    expect((await other('PATCH', `/v1/knowledge/person/${p.id}`, { body: { fields: { location: 'Oslo' } } })).status).toBe(404);
    expect((await other('DELETE', `/v1/knowledge/person/${p.id}`)).status).toBe(404);
    const readOnly = withKey(server.url, (await tenantWithKey(server.url, ['knowledge:read'])).key);
    const denied = await readOnly('POST', '/v1/knowledge/person', { body: { fields: { name: 'x' } } });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('SCOPE_MISSING');
    expect((await withKey(server.url, '')('GET', '/v1/knowledge/person')).status).toBe(401);
  });

  it('lists in stable pages (limit, cursor), filters by completeness_lt (least complete first) and status, and validates the query', async () => {
    const t = withKey(server.url, (await tenantWithKey(server.url, ALL)).key);
    for (let i = 0; i < 7; i++) {
      const fields: Record<string, unknown> = { name: `Org ${i}` };
      if (i % 2 === 0) fields.website = `https://org${i}.example`;
      if (i % 3 === 0) fields.industry = 'logistics';
      expect((await t('POST', '/v1/knowledge/organization', { body: { fields } })).status).toBe(201);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t('GET', `/v1/knowledge/organization?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status, page.text).toBe(200);
      expect(page.body.total).toBe(7);
      seen.push(...page.body.objects.map((o: any) => o.fields.name.value));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['Org 0', 'Org 1', 'Org 2', 'Org 3', 'Org 4', 'Org 5', 'Org 6']);
    const low = await t('GET', '/v1/knowledge/organization?completeness_lt=0.5&limit=100');
    const scores = low.body.objects.map((o: any) => o.completeness_score);
    expect(scores.length).toBe(low.body.total);
    expect(scores.every((s: number) => s < 0.5)).toBe(true);
    expect([...scores].sort((a: number, b: number) => a - b)).toEqual(scores);
    expect((await t('GET', '/v1/knowledge/organization?status=COMPLETE')).body.total).toBe(0);
    for (const q of ['limit=0', 'limit=101', 'completeness_lt=1.5', 'completeness_lt=-0.1', 'status=DONE', 'cursor=%%%']) {
      const bad = await t('GET', `/v1/knowledge/organization?${q}`);
      expect(bad.status, q).toBe(400);
    }
  });

  it('DELETE removes the object (200 {id, deleted}) and its log; then 404', async () => {
    const p = await createPerson({ name: 'To Go' });
    const res = await api('DELETE', `/v1/knowledge/person/${p.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: p.id, deleted: true });
    expect((await api('GET', `/v1/knowledge/person/${p.id}`)).status).toBe(404);
    expect((await api('GET', `/v1/knowledge/person/${p.id}/enrichment-log`)).status).toBe(404);
  });

  it('counts toward the tenant storage usage', async () => {
    const t = withKey(server.url, (await tenantWithKey(server.url, ALL)).key);
    const before = (await t('GET', '/usage')).body;
    await t('POST', '/v1/knowledge/person', { body: { fields: { name: 'Big Bytes', location: 'x'.repeat(300) } } });
    const after = (await t('GET', '/usage')).body;
    expect(after.storage_used_bytes - before.storage_used_bytes).toBeGreaterThan(300);
  });
});

describe('knowledge structures', () => {
  it('lists the built-in version, publishes a DRAFT (201), and activation moves objects to it keeping their values', async () => {
    const t = withKey(server.url, (await tenantWithKey(server.url, ALL)).key);
    const listed = await t('GET', '/v1/knowledge/project/structures');
    expect(listed.status).toBe(200);
    expect(listed.body.structures).toEqual([
      expect.objectContaining({ ks_type: 'project', schema_version: '1.0.0', status: 'ACTIVE', builtin: true }),
    ]);
    const old = await t('POST', '/v1/knowledge/project', { body: { fields: { name: 'Falcon', status: 'active', owner: 'Dana' } } });
    const schema = structuredClone(listed.body.structures[0].schema);
    schema.properties.budget = { type: 'number', minimum: 0, 'x-knowledge': { weight: 1 } };
    const draft = await t('POST', '/v1/knowledge/project/structures', { body: { schema_version: '1.1.0', schema } });
    expect(draft.status, draft.text).toBe(201);
    expect(draft.body).toMatchObject({ ks_type: 'project', schema_version: '1.1.0', status: 'DRAFT', builtin: false });
    const active = await t('POST', '/v1/knowledge/project/structures/1.1.0/activate', { body: {} });
    expect(active.status, active.text).toBe(200);
    expect(active.body.status).toBe('ACTIVE');
    const moved = await t('GET', `/v1/knowledge/project/${old.body.id}`);
    expect(moved.body).toMatchObject({ schema_version: '1.1.0', ks_id: draft.body.ks_id });
    expect(moved.body.fields).toEqual(old.body.fields);
    const versions = (await t('GET', '/v1/knowledge/project/structures')).body.structures.map((s: any) => [s.schema_version, s.status]);
    expect(versions).toEqual([
      ['1.0.0', 'DEPRECATED'],
      ['1.1.0', 'ACTIVE'],
    ]);
    // A version objects use never changes.
    const change = await t('POST', '/v1/knowledge/project/structures', { body: { schema_version: '1.1.0', schema } });
    expect(change.status).toBe(409);
  });

  it('refuses an incompatible version without a migration plan (409 INCOMPATIBLE_SCHEMA) and applies one with it', async () => {
    const t = withKey(server.url, (await tenantWithKey(server.url, ALL)).key);
    const base = (await t('GET', '/v1/knowledge/organization/structures')).body.structures[0].schema;
    const org = await t('POST', '/v1/knowledge/organization', { body: { fields: { name: 'Acme', industry: 'rockets' } } });
    const schema = structuredClone(base);
    schema.properties.sector = schema.properties.industry;
    delete schema.properties.industry;
    expect((await t('POST', '/v1/knowledge/organization/structures', { body: { schema_version: '2.0.0', schema } })).status).toBe(201);
    const refused = await t('POST', '/v1/knowledge/organization/structures/2.0.0/activate', { body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('INCOMPATIBLE_SCHEMA');
    const ok = await t('POST', '/v1/knowledge/organization/structures/2.0.0/activate', {
      body: { migration: { rename: [{ from: 'industry', to: 'sector' }] } },
    });
    expect(ok.status, ok.text).toBe(200);
    const moved = await t('GET', `/v1/knowledge/organization/${org.body.id}`);
    expect(moved.body.fields.sector).toEqual(org.body.fields.industry);
    expect(moved.body.fields.industry).toBeUndefined();
    const log = await t('GET', `/v1/knowledge/organization/${org.body.id}/enrichment-log`);
    expect(log.body).toEqual([
      expect.objectContaining({ engine: 'migration', field: 'sector', strategy: 'renamed_from:industry', outcome: 'committed' }),
    ]);
  });

  it('refuses a migration default larger than a client value may be (413), writing nothing', async () => {
    const t = withKey(server.url, (await tenantWithKey(server.url, ALL)).key);
    const base = (await t('GET', '/v1/knowledge/project/structures')).body.structures[0].schema;
    const p = await t('POST', '/v1/knowledge/project', { body: { fields: { name: 'Heron' } } });
    const schema = structuredClone(base);
    schema.properties.charter = { type: 'string', 'x-knowledge': { weight: 1 } };
    schema.required = [...schema.required, 'charter'];
    expect((await t('POST', '/v1/knowledge/project/structures', { body: { schema_version: '1.2.0', schema } })).status).toBe(201);
    const res = await t('POST', '/v1/knowledge/project/structures/1.2.0/activate', {
      body: { migration: { default: [{ field: 'charter', value: 'c'.repeat(5000) }] } },
    });
    expect(res.status).toBe(413);
    expect((await t('GET', `/v1/knowledge/project/${p.body.id}`)).body.schema_version).toBe('1.0.0');
    const ok = await t('POST', '/v1/knowledge/project/structures/1.2.0/activate', {
      body: { migration: { default: [{ field: 'charter', value: 'to be written' }] } },
    });
    expect(ok.status, ok.text).toBe(200);
    expect((await t('GET', `/v1/knowledge/project/${p.body.id}`)).body.fields.charter).toMatchObject({
      value: 'to be written',
      provenance: 'AGENT_INPUT',
    });
  });

  it('serves a tenant type named like an Object.prototype member, enrichment included', async () => {
    const t = withKey(server.url, (await tenantWithKey(server.url, ALL)).key);
    const schema = {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', 'x-knowledge': { identity: true } }, note: { type: 'string' } },
    };
    expect((await t('POST', '/v1/knowledge/constructor/structures', { body: { schema_version: '1.0.0', schema } })).status).toBe(201);
    expect((await t('POST', '/v1/knowledge/constructor/structures/1.0.0/activate', { body: {} })).status).toBe(200);
    const o = await t('POST', '/v1/knowledge/constructor', { body: { fields: { name: 'Odd One' } } });
    expect(o.status, o.text).toBe(201);
    expect((await t('POST', `/v1/knowledge/constructor/${o.body.id}/enrich`)).status).toBe(202);
    for (let i = 0; i < 200 && (await t('GET', `/v1/knowledge/constructor/${o.body.id}`)).body.status === 'ENRICHING'; i++)
      await new Promise((r) => setTimeout(r, 50));
    const log = (await t('GET', `/v1/knowledge/constructor/${o.body.id}/enrichment-log`)).body as { outcome: string }[];
    expect(log.filter((e) => e.outcome === 'error')).toEqual([]);
  });

  it('answers 400 listing every problem of a malformed structure, and 403 without knowledge:admin', async () => {
    const res = await api('POST', '/v1/knowledge/gadget/structures', {
      body: {
        schema_version: '1.0',
        schema: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', 'x-knowledge': { identity: true, weight: -1 } },
            id: { type: 'string' },
            size: { type: 'number', 'x-knowledge': { commit_at: 0.4, propose_at: 0.6, colour: 'red' } },
          },
        },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.fields.length).toBeGreaterThanOrEqual(4);
    const writer = withKey(server.url, (await tenantWithKey(server.url, ['knowledge:read', 'knowledge:write'])).key);
    const denied = await writer('POST', '/v1/knowledge/gadget/structures', { body: { schema_version: '1.0.0', schema: {} } });
    expect(denied.status).toBe(403);
  });
});
