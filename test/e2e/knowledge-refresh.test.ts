import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrichmentEngine } from '../../server/ports/enrichment-engine.js';
import { tenantWithKey, waitConsolidated, withKey } from '../support/memory-api.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Objects stay fresh (issue #23 §4) over real HTTP with in-process workers: consolidating a memory
 * that names a knowledge object queues a debounced `knowledge.refresh`, which starts an ordinary run
 * — without any trigger call. Every name and text here is made up for this test.
 */
const SCOPES = ['knowledge:read', 'knowledge:write', 'memories:read', 'memories:write', 'usage:read'];
/** Short, so the suite is quick, and long enough that a burst of writes lands inside one quiet period. */
const DELAY_MS = 700;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ KNOWLEDGE_REFRESH_DELAY_MS: String(DELAY_MS), KNOWLEDGE_REFRESH_MAX_WAIT_MS: '30000' });
});
afterAll(async () => {
  await server?.close();
});

type Api = ReturnType<typeof withKey>;

async function tenant() {
  const { key } = await tenantWithKey(server.url, SCOPES);
  return { key, api: withKey(server.url, key) };
}

async function person(api: Api, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api('POST', '/v1/knowledge/person', { body: { fields: { name }, ...extra } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

async function remember(api: Api, content: string): Promise<void> {
  const res = await api('POST', '/memories', { body: { content } });
  expect(res.status, res.text).toBe(202);
}

const logOf = async (api: Api, id: string) => (await api('GET', `/v1/knowledge/person/${id}/enrichment-log`)).body as any[];

/** Polls until the object has a log and no run holds it: the refresh ran. */
async function refreshed(api: Api, id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // The log first: a run writes it with the values, so an object read after a non-empty log has them.
    const log = await logOf(api, id);
    const object = (await api('GET', `/v1/knowledge/person/${id}`)).body;
    if (log.length > 0 && object.status !== 'ENRICHING') return { object, log };
    if (Date.now() > deadline) throw new Error(`no refresh of ${id} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('re-enrichment after consolidation', () => {
  it("re-enriches a person named in a new memory without a trigger call, and leaves another tenant's namesake alone", async () => {
    const { key, api } = await tenant();
    const other = await tenant();
    const id = await person(api, 'Tamsin Achterberg');
    const theirs = await person(other.api, 'Tamsin Achterberg');
    await remember(api, 'Tamsin Achterberg works at Pellucid Robotics as a firmware engineer.');
    await waitConsolidated(server.url, key);
    const { object, log } = await refreshed(api, id);
    expect(object.fields.employer).toMatchObject({ value: 'Pellucid Robotics', provenance: 'KG_INFERENCE' });
    expect(object.status).toBe('PARTIALLY_COMPLETE');
    const committed = log.find((e) => e.field === 'employer' && e.outcome === 'committed');
    expect(committed).toMatchObject({ engine: 'kg', candidate_value: 'Pellucid Robotics' });
    expect(new Set(log.map((e) => e.run_id)).size).toBe(1);
    // The other tenant's object of the same name is never looked at: no run, no value.
    await new Promise((r) => setTimeout(r, DELAY_MS));
    expect(await logOf(other.api, theirs)).toEqual([]);
    const untouched = (await other.api('GET', `/v1/knowledge/person/${theirs}`)).body;
    expect(untouched.fields.employer).toBeUndefined();
    expect(untouched.status).toBe('INCOMPLETE');
  });

  it('matches names whatever their case and inside longer capitalised phrases', async () => {
    const { key, api } = await tenant();
    const id = await person(api, 'Odalys Featherstone-Kim');
    await remember(api, 'Update From The Lab: ODALYS FEATHERSTONE-KIM works at Brindlewood Instruments as a metrologist.');
    await waitConsolidated(server.url, key);
    const { log } = await refreshed(api, id);
    expect(log.length).toBeGreaterThan(0);
  });

  it('gives one run, after the quiet period, for a burst of memories naming the object', async () => {
    const { key, api } = await tenant();
    const id = await person(api, 'Ferdinand Oyelaran');
    const facts = [
      'Ferdinand Oyelaran works at Quarrystone Analytics as a data steward.',
      'Ferdinand Oyelaran lives in Aarhus.',
      'Met Ferdinand Oyelaran for coffee near the harbour.',
      'Ferdinand Oyelaran prefers tea to coffee.',
      'Reminder: send Ferdinand Oyelaran the workshop notes.',
    ];
    let lastWriteAt = 0;
    for (const content of facts) {
      lastWriteAt = Date.now();
      await remember(api, content);
    }
    await waitConsolidated(server.url, key);
    const { object, log } = await refreshed(api, id);
    expect(new Set(log.map((e) => e.run_id)).size).toBe(1);
    expect(object.fields.employer).toMatchObject({ value: 'Quarrystone Analytics' });
    expect(object.fields.location).toMatchObject({ value: 'Aarhus' });
    // The run waited a quiet period after the last mention (committed after its write was sent).
    expect(Date.parse(log[0].created_at) - lastWriteAt).toBeGreaterThanOrEqual(DELAY_MS - 50);
    // And no second run follows the first.
    await new Promise((r) => setTimeout(r, DELAY_MS * 2));
    expect(new Set((await logOf(api, id)).map((e) => e.run_id)).size).toBe(1);
  });

  it('never touches an object marked do_not_enrich', async () => {
    const { key, api } = await tenant();
    const quiet = await person(api, 'Leontyne Brisbois', { do_not_enrich: true });
    const witness = await person(api, 'Casimir Vandermeulen');
    await remember(api, 'Leontyne Brisbois works at Gossamer Freight as a dispatcher.');
    await remember(api, 'Casimir Vandermeulen works at Gossamer Freight as a planner.');
    await waitConsolidated(server.url, key);
    // The witness named in the same burst was refreshed: the opted-out object had its chance too.
    await refreshed(api, witness);
    expect(await logOf(api, quiet)).toEqual([]);
    const object = (await api('GET', `/v1/knowledge/person/${quiet}`)).body;
    expect(object.fields.employer).toBeUndefined();
    expect(object.status).toBe('INCOMPLETE');
  });
});

describe('a mention while a run holds the object', () => {
  it('leaves the run alone, then re-enriches once it has ended', async () => {
    // A stand-in of an outside engine (the LLM engine is an outside service) that holds the first run
    // open until the test lets it finish.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let calls = 0;
    const slow: EnrichmentEngine = {
      name: 'llm',
      provenance: 'LLM_INFERENCE',
      enabledFor: async () => true,
      async propose() {
        if (calls++ === 0) {
          entered();
          await gate;
        }
        return { candidates: [] };
      },
    };
    const held = await startTestServer(
      { KNOWLEDGE_REFRESH_DELAY_MS: '300', KNOWLEDGE_REFRESH_MAX_WAIT_MS: '30000' },
      { enrichmentEngines: (configured) => [...configured, slow] },
    );
    try {
      const { key } = await tenantWithKey(held.url, SCOPES);
      const api = withKey(held.url, key);
      const id = await person(api, 'Wendeline Marchbanks');
      expect((await api('POST', `/v1/knowledge/person/${id}/enrich`)).status).toBe(202);
      await inside;
      // The run read the memories before this one existed.
      await remember(api, 'Wendeline Marchbanks works at Lanternfish Optics as a buyer.');
      await waitConsolidated(held.url, key);
      await new Promise((r) => setTimeout(r, 1_200));
      // Several quiet periods later the run still holds the object, undisturbed, and nothing else ran.
      expect((await api('GET', `/v1/knowledge/person/${id}`)).body.status).toBe('ENRICHING');
      expect(await logOf(api, id)).toEqual([]);
      open();
      const deadline = Date.now() + 20_000;
      let log = await logOf(api, id);
      while (new Set(log.map((e) => e.run_id)).size < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        log = await logOf(api, id);
      }
      const runs = [...new Set(log.map((e) => e.run_id))];
      expect(runs).toHaveLength(2);
      // The first run found no employer; the refresh after it did, from the memory committed meanwhile.
      expect(log.filter((e) => e.run_id === runs[0] && e.engine === 'kg' && e.field === 'employer').map((e) => e.outcome)).toEqual([
        'no_candidate',
      ]);
      const { object } = await refreshed(api, id);
      expect(object.fields.employer).toMatchObject({ value: 'Lanternfish Optics', provenance: 'KG_INFERENCE' });
    } finally {
      open();
      await held.close();
    }
  });
});

describe('an object mentioned without pause', () => {
  it('is still re-enriched within the longest wait, while the mentions go on', async () => {
    // A quiet period longer than the gaps between mentions: only the longest wait lets a run start.
    const busy = await startTestServer({ KNOWLEDGE_REFRESH_DELAY_MS: '2000', KNOWLEDGE_REFRESH_MAX_WAIT_MS: '2000' });
    try {
      const { key } = await tenantWithKey(busy.url, SCOPES);
      const api = withKey(busy.url, key);
      const id = await person(api, 'Isidora Pennywhistle');
      await remember(api, 'Isidora Pennywhistle works at Corbel Tidewater as a hydrologist.');
      await waitConsolidated(busy.url, key);
      const started = Date.now();
      let lastWriteAt = started;
      let log = await logOf(api, id);
      for (let i = 0; log.length === 0 && Date.now() - started < 8_000; i++) {
        lastWriteAt = Date.now();
        await remember(api, `Isidora Pennywhistle sent field note ${i} from the estuary.`);
        await new Promise((r) => setTimeout(r, 400));
        log = await logOf(api, id);
      }
      expect(log.length).toBeGreaterThan(0);
      // The run came while mentions were still arriving less than a quiet period apart.
      expect(Date.parse(log[0].created_at)).toBeLessThan(lastWriteAt + 2_000);
      expect(Date.parse(log[0].created_at) - started).toBeLessThan(6_000);
    } finally {
      await busy.close();
    }
  });
});
