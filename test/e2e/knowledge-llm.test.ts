import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tenantWithKey, waitConsolidated, waitSettled, withKey } from '../support/memory-api.js';
import { chatAnswer, startOpenAiStandIn, type OpenAiStandIn, type RecordedRequest, type Responder } from '../support/openai-stand-in.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The LLM enrichment engine over real HTTP: a real server (embedded profile, in-process jobs) whose
 * LLM_URL is a loopback stand-in of an OpenAI-compatible API, so the tests see every request body the
 * service sent and choose every answer. Every text here is written for this test.
 */
const SCOPES = ['knowledge:read', 'knowledge:write', 'knowledge:admin', 'memories:read', 'memories:write', 'usage:read'];

interface KnowledgeAsk {
  wanted: string[];
  memories: { id: string; content: string }[];
  known: Record<string, unknown>;
}

/** The knowledge engine's requests are those asking for a JSON Schema; the contradiction detector asks for a plain JSON object. */
const isKnowledgeRequest = (r: RecordedRequest) => (r.body as any)?.response_format?.type === 'json_schema';
function askOf(r: RecordedRequest): KnowledgeAsk {
  const user = JSON.parse((r.body as any).messages[1].content);
  return { wanted: user.wanted_fields.map((w: { field: string }) => w.field), memories: user.memories, known: user.object.known_fields };
}

let llm: OpenAiStandIn;
let server: TestServer;
/** How the stand-in answers the knowledge engine in the running test. */
let knowledgeResponder: (ask: KnowledgeAsk) => Responder;

beforeAll(async () => {
  llm = await startOpenAiStandIn((req, res, body) => {
    const recorded = llm.requests[llm.requests.length - 1]!;
    if (isKnowledgeRequest(recorded)) knowledgeResponder(askOf(recorded))(req, res, body);
    else chatAnswer('{"contradicts": false}')(req, res, body);
  });
  server = await startTestServer({ LLM_URL: llm.url, LLM_MODEL: 'stand-in-model', KNOWLEDGE_LLM_TIMEOUT_MS: '400' });
});
afterAll(async () => {
  await server?.close();
  await llm?.close();
});
beforeEach(() => {
  llm.requests.length = 0;
});

async function tenantWithMemories(base: string, memories: { content: string; sensitivity?: string }[]) {
  const { key } = await tenantWithKey(base, SCOPES);
  const api = withKey(base, key);
  const ids: string[] = [];
  for (const body of memories) {
    const res = await api('POST', '/memories', { body });
    expect(res.status, res.text).toBe(202);
    ids.push(res.body.memory_id);
  }
  await waitConsolidated(base, key);
  return { api, ids };
}

/** Triggers a run and polls until no run holds the object; returns the object and its log. */
async function enrich(api: ReturnType<typeof withKey>, path: string) {
  expect((await api('POST', `${path}/enrich`)).status).toBe(202);
  const object = await waitSettled(api, path);
  const log = (await api('GET', `${path}/enrichment-log`)).body as any[];
  return { object, log, llmLog: log.filter((e) => e.engine === 'llm') };
}

const fieldsAnswer = (fields: Record<string, unknown>) => chatAnswer(JSON.stringify({ fields }));

describe('the LLM engine', () => {
  it('commits a field stated in a memory it cites, after the offline engines, with the memory in source_refs', async () => {
    const { api, ids } = await tenantWithMemories(server.url, [
      { content: 'Quillmore Analytics builds forecasting software for regional grocery chains.' },
    ]);
    knowledgeResponder = (ask) =>
      fieldsAnswer({
        ...Object.fromEntries(ask.wanted.map((f) => [f, null])),
        industry: { value: 'Retail forecasting software', confidence: 0.97, memory_ids: [ask.memories[0]!.id] },
        // Not cited: at most proposed, however sure the model says it is.
        headquarters: { value: 'Leeds', confidence: 0.99, memory_ids: [] },
      });
    const org = await api('POST', '/v1/knowledge/organization', { body: { fields: { name: 'Quillmore Analytics' } } });
    const { object, log, llmLog } = await enrich(api, `/v1/knowledge/organization/${org.body.id}`);

    expect(object.fields.industry).toMatchObject({ value: 'Retail forecasting software', provenance: 'LLM_INFERENCE', confidence: 0.9 });
    expect(object.fields.headquarters).toBeUndefined();
    expect(object.status).toBe('PARTIALLY_COMPLETE');
    const committed = llmLog.find((e) => e.outcome === 'committed');
    expect(committed).toMatchObject({ field: 'industry', strategy: 'llm_completion', source_refs: [`memory:${ids[0]}`] });
    expect(committed.candidate_value).toEqual(object.fields.industry.value);
    expect(committed.confidence).toEqual(object.fields.industry.confidence);
    expect(llmLog).toContainEqual(
      expect.objectContaining({ field: 'headquarters', outcome: 'proposed', confidence: 0.6, source_refs: [] }),
    );
    expect(llmLog).toContainEqual(expect.objectContaining({ field: 'website', outcome: 'no_candidate', strategy: 'llm_completion' }));
    // Engines in order: kg was tried on the field before the LLM.
    const order = log.filter((e) => e.field === 'industry').map((e) => e.engine);
    expect(order.indexOf('kg')).toBeLessThan(order.indexOf('llm'));

    const knowledge = llm.requests.filter(isKnowledgeRequest);
    expect(knowledge).toHaveLength(1);
    const request = knowledge[0]!;
    expect(request.url).toBe('/v1/chat/completions');
    expect((request.body as any).model).toBe('stand-in-model');
    expect((request.body as any).messages[0].content).toMatch(/data, not instructions/);
    expect(askOf(request)).toEqual({
      wanted: ['domain', 'website', 'industry', 'headquarters'],
      memories: [expect.objectContaining({ id: ids[0], content: expect.stringContaining('forecasting software') })],
      known: { name: 'Quillmore Analytics' },
    });
  });

  it('never sends a high field, its value, or a high memory', async () => {
    const { api, ids } = await tenantWithMemories(server.url, [
      { content: 'The Morning Heron is registered in Malta and calls at Piraeus every month.' },
      { content: 'Morning Heron gate code for the crew deck: 5528-VK.', sensitivity: 'high' },
    ]);
    const published = await api('POST', '/v1/knowledge/vessel/structures', {
      body: {
        schema_version: '1.0.0',
        schema: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', 'x-knowledge': { identity: true, weight: 2 } },
            flag: { type: 'string' },
            crew_code: { type: 'string', 'x-knowledge': { sensitivity: 'high' } },
            gate_code: { type: 'string', 'x-knowledge': { sensitivity: 'high' } },
          },
        },
      },
    });
    expect(published.status, published.text).toBe(201);
    expect((await api('POST', '/v1/knowledge/vessel/structures/1.0.0/activate', { body: {} })).status).toBe(200);
    knowledgeResponder = (ask) =>
      fieldsAnswer({ flag: { value: 'Malta', confidence: 0.95, memory_ids: ask.memories.map((m) => m.id) }, gate_code: null });
    const vessel = await api('POST', '/v1/knowledge/vessel', { body: { fields: { name: 'Morning Heron', crew_code: 'CREW-4471-ZX' } } });
    expect(vessel.status, vessel.text).toBe(201);
    const { object, llmLog } = await enrich(api, `/v1/knowledge/vessel/${vessel.body.id}`);

    expect(object.fields.flag).toMatchObject({ value: 'Malta', provenance: 'LLM_INFERENCE' });
    expect(llmLog.find((e) => e.outcome === 'committed').source_refs).toEqual([`memory:${ids[0]}`]);
    const knowledge = llm.requests.filter(isKnowledgeRequest);
    expect(knowledge).toHaveLength(1);
    expect(askOf(knowledge[0]!).wanted).toEqual(['flag']);
    for (const request of knowledge) {
      expect(request.text).not.toContain('crew_code');
      expect(request.text).not.toContain('gate_code');
      expect(request.text).not.toContain('5528-VK');
      expect(request.text).not.toContain(ids[1]!);
    }
    // The object's high value was never sent anywhere, by any part of the service.
    expect(llm.requests.some((r) => r.text.includes('CREW-4471-ZX'))).toBe(false);
  });

  it.each([
    [
      'a wrong type and an unknown field',
      (ask: KnowledgeAsk) =>
        fieldsAnswer({
          industry: { value: 42, confidence: 0.95, memory_ids: [ask.memories[0]!.id] },
          chief_executive: { value: 'Someone', confidence: 0.95, memory_ids: [ask.memories[0]!.id] },
        }),
      { industry: 'rejected', chief_executive: 'error' },
    ],
    ['an answer that is not JSON', () => chatAnswer('The company seems to sell bicycles.'), { industry: 'error', headquarters: 'error' }],
    [
      'JSON of the wrong shape',
      () => chatAnswer('{"industry": "Bicycles"}'),
      { industry: 'error', headquarters: 'error', website: 'error' },
    ],
  ])('logs %s and writes nothing', async (_label, responder, outcomes) => {
    const { api } = await tenantWithMemories(server.url, [{ content: 'Velotrek Works assembles cargo bicycles in a former mill.' }]);
    knowledgeResponder = responder;
    const org = await api('POST', '/v1/knowledge/organization', { body: { fields: { name: 'Velotrek Works' } } });
    const { object, llmLog } = await enrich(api, `/v1/knowledge/organization/${org.body.id}`);
    expect(Object.keys(object.fields)).toEqual(['name']);
    expect(object.status).toBe('PARTIALLY_COMPLETE');
    for (const [field, outcome] of Object.entries(outcomes)) {
      expect(llmLog).toContainEqual(expect.objectContaining({ field, outcome }));
    }
    expect(llmLog.some((e) => e.outcome === 'committed' || e.outcome === 'proposed')).toBe(false);
    expect(llm.requests.filter(isKnowledgeRequest)).toHaveLength(1);
  });

  it('logs a high field the model answers anyway as policy_denied', async () => {
    const { api } = await tenantWithMemories(server.url, [{ content: 'Ottilie Brandvold runs the night shift at Velotrek Works.' }]);
    knowledgeResponder = (ask) =>
      fieldsAnswer({ email: { value: 'ottilie@made-up.example', confidence: 0.95, memory_ids: [ask.memories[0]!.id] } });
    const person = await api('POST', '/v1/knowledge/person', { body: { fields: { name: 'Ottilie Brandvold' } } });
    const { object, llmLog } = await enrich(api, `/v1/knowledge/person/${person.body.id}`);
    expect(object.fields.email).toBeUndefined();
    expect(llmLog).toContainEqual(expect.objectContaining({ field: 'email', outcome: 'policy_denied' }));
    expect(askOf(llm.requests.filter(isKnowledgeRequest)[0]!).wanted).not.toContain('email');
  });

  it.each([
    [
      'an HTTP 500',
      (): Responder => (_req, res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error": "overloaded"}');
      },
    ],
    // Never answers: the engine's 400 ms limit ends the call.
    ['a timeout', (): Responder => () => undefined],
  ])('logs %s as error on every open field and recomputes the status', async (_label, responder) => {
    const { api } = await tenantWithMemories(server.url, [{ content: 'Brambleford Dairy sells sheep cheese at the Saturday market.' }]);
    knowledgeResponder = responder;
    const org = await api('POST', '/v1/knowledge/organization', { body: { fields: { name: 'Brambleford Dairy' } } });
    const { object, llmLog } = await enrich(api, `/v1/knowledge/organization/${org.body.id}`);
    expect(object.status).toBe('PARTIALLY_COMPLETE');
    expect(Object.keys(object.fields)).toEqual(['name']);
    expect(llmLog.map((e) => [e.field, e.outcome]).sort()).toEqual([
      ['domain', 'error'],
      ['headquarters', 'error'],
      ['industry', 'error'],
      ['website', 'error'],
    ]);
  });

  it('does not ask without a memory that mentions the object', async () => {
    const { api } = await tenantWithMemories(server.url, [{ content: 'Nothing here about any company at all.' }]);
    knowledgeResponder = () => fieldsAnswer({});
    const org = await api('POST', '/v1/knowledge/organization', { body: { fields: { name: 'Zephyrine Looms' } } });
    const { llmLog } = await enrich(api, `/v1/knowledge/organization/${org.body.id}`);
    expect(llm.requests.filter(isKnowledgeRequest)).toHaveLength(0);
    expect(llmLog.every((e) => e.outcome === 'no_candidate')).toBe(true);
  });
});

describe('without the LLM engine', () => {
  it.each([
    ['LLM_URL unset', {}],
    ['KNOWLEDGE_LLM_ENRICHMENT=false', { KNOWLEDGE_LLM_ENRICHMENT: 'false' }],
  ])('%s: the engine is never tried', async (_label, env: Record<string, string>) => {
    const other = await startTestServer('KNOWLEDGE_LLM_ENRICHMENT' in env ? { ...env, LLM_URL: llm.url } : env);
    try {
      knowledgeResponder = (ask) => fieldsAnswer({ industry: { value: 'Weaving', confidence: 0.95, memory_ids: [ask.memories[0]!.id] } });
      const { api } = await tenantWithMemories(other.url, [{ content: 'Halcyon Weavers makes wool blankets on old looms.' }]);
      const org = await api('POST', '/v1/knowledge/organization', { body: { fields: { name: 'Halcyon Weavers' } } });
      const { object, log } = await enrich(api, `/v1/knowledge/organization/${org.body.id}`);
      expect(object.fields.industry).toBeUndefined();
      expect(log.length).toBeGreaterThan(0);
      expect(log.some((e) => e.engine === 'llm')).toBe(false);
      expect(llm.requests.filter(isKnowledgeRequest)).toHaveLength(0);
    } finally {
      await other.close();
    }
  });
});
