import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedKnowledgeSettingsStore } from '../../adapters/embedded/knowledge-settings-store.js';
import { createPageFetcher, type PageFetcher } from '../../adapters/web/page-fetcher.js';
import type { EnrichmentRequest } from '../../server/ports/enrichment-engine.js';
import type { KnowledgeObjectRecord } from '../../server/ports/knowledge.js';
import { WEB_PAGE_REFUSALS } from '../../server/ports/web-pages.js';
import { BUILTIN_STRUCTURES } from '../../server/services/knowledge/builtin-structures.js';
import { createWebEngine, refusalOutcome } from '../../server/services/knowledge/engines/web-engine.js';
import { openFields, planEngineStep, startRun } from '../../server/services/knowledge/enrichment-plan.js';
import type { StructureDefinition } from '../../server/services/knowledge/structure-definition.js';
import { knowledgeObject } from '../contract/knowledge-records.js';
import { html, startLoopbackSite, type LoopbackSite } from '../support/loopback-site.js';
import { body, define } from '../support/knowledge-structures.js';

/**
 * The web engine with the real fetcher (private addresses allowed, a loopback site) and the embedded
 * settings store: what it fetches, which fields it works on, and how a refused fetch is reported.
 */
const TENANT = 'tenant-web-engine';
const NAME = 'Larkspur Tidewater';

const page = (origin: string) =>
  `<html><head><script type="application/ld+json">${JSON.stringify({
    '@type': 'Organization',
    name: NAME,
    url: `${origin}/`,
    industry: 'Tidal energy',
    address: { '@type': 'PostalAddress', addressLocality: 'Cherbourg', addressCountry: 'FR' },
  })}</script></head></html>`;

const agentValue = (value: string) => ({ value, confidence: 1, provenance: 'AGENT_INPUT' as const, updatedAt: '2031-01-01T00:00:00.000Z' });

function request(definition: StructureDefinition, fields: Record<string, string>, type = 'organization'): EnrichmentRequest {
  const object: KnowledgeObjectRecord = knowledgeObject(TENANT, type, {
    fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, agentValue(v)])),
  });
  const plan = startRun('run', '2031-01-01T00:00:00.000Z', { fields: definition.fields, values: object.fields, doNotEnrich: false });
  return { tenantId: TENANT, object, definition, openFields: openFields(plan), namespaces: null };
}

let site: LoopbackSite;
let fetcher: PageFetcher;
const db = openInMemoryDatabase();
const settings = createEmbeddedKnowledgeSettingsStore(db);
beforeAll(async () => {
  site = await startLoopbackSite((_req, res) => html(res, page(site.origin)));
  fetcher = createPageFetcher({ allowPrivateAddresses: true, timeoutMs: 2000 });
});
afterAll(async () => {
  await fetcher?.close();
  await site?.close();
  db.close();
});

describe('refusal outcomes', () => {
  const expected: Record<string, string> = { blocked_address: 'policy_denied', bad_url: 'policy_denied' };
  it.each(WEB_PAGE_REFUSALS.map((r) => [r, expected[r] ?? 'error']))('%s → %s', (reason, outcome) => {
    expect(refusalOutcome(reason as (typeof WEB_PAGE_REFUSALS)[number])).toBe(outcome);
  });
});

describe('the web engine', () => {
  const engine = () => createWebEngine({ pages: fetcher, settings });

  it("runs only for a tenant whose setting is on, and reads the store's current value", async () => {
    expect(await engine().enabledFor(TENANT)).toBe(false);
    await settings.put(TENANT, { webEnrichment: true }, '2031-01-01T00:00:00.000Z');
    expect(await engine().enabledFor(TENANT)).toBe(true);
    expect(await engine().enabledFor('another-tenant')).toBe(false);
  });

  it('proposes the open fields it has strategies for from the JSON-LD of the website, naming the page', async () => {
    const proposal = await engine().propose(request(BUILTIN_STRUCTURES.organization, { name: NAME, website: `${site.origin}/` }));
    expect(proposal.failures).toBeUndefined();
    expect(proposal.candidates).toContainEqual({
      field: 'industry',
      value: 'Tidal energy',
      confidence: 0.9,
      strategy: 'jsonld',
      sourceRefs: [`${site.origin}/`],
    });
    expect(proposal.candidates.find((c) => c.field === 'headquarters')?.value).toBe('Cherbourg, France');
    // Fields the client wrote are not open; `website` and `name` get no candidate and no strategy.
    expect(proposal.candidates.map((c) => c.field)).not.toContain('website');
    expect(proposal.tried).toMatchObject({ industry: ['jsonld'], headquarters: ['jsonld'], domain: ['jsonld', 'opengraph'] });
  });

  it('fetches nothing when the object has no website or its type has no field the engine fills', async () => {
    const before = site.hits.length;
    const none = await engine().propose(request(BUILTIN_STRUCTURES.organization, { name: NAME }));
    expect(none).toEqual({ candidates: [], tried: { domain: [], website: [], industry: [], headquarters: [] } });
    const project = define('project', body({ website: { type: 'string' }, budget: { type: 'string' } }));
    expect((await engine().propose(request(project, { name: NAME, website: `${site.origin}/` }, 'project'))).candidates).toEqual([]);
    expect(site.hits.length).toBe(before);
  });

  it('never works on a field marked high or closed to WEB_INFERENCE, and fetches nothing when no field is left', async () => {
    const closed = define(
      'organization',
      body({
        website: { type: 'string' },
        industry: { type: 'string', 'x-knowledge': { sensitivity: 'high' } },
        headquarters: { type: 'string', 'x-knowledge': { provenance: ['AGENT_INPUT', 'KG_INFERENCE'] } },
      }),
    );
    const before = site.hits.length;
    const proposal = await engine().propose(request(closed, { name: NAME, website: `${site.origin}/` }));
    expect(proposal).toEqual({ candidates: [], tried: { industry: [], headquarters: [] } });
    expect(site.hits.length).toBe(before);
  });

  it('does not send a website marked high sensitivity: each field it would work on is policy_denied, nothing fetched', async () => {
    const secretSite = define(
      'organization',
      body({ website: { type: 'string', 'x-knowledge': { sensitivity: 'high' } }, industry: { type: 'string' } }),
    );
    const before = site.hits.length;
    const proposal = await engine().propose(request(secretSite, { name: NAME, website: `${site.origin}/` }));
    expect(proposal.failures).toEqual([
      { field: 'industry', strategy: 'fetch:high_sensitivity', outcome: 'policy_denied', sourceRefs: [] },
    ]);
    expect(site.hits.length).toBe(before);
  });

  it('hands a website that is no http(s) URL to the fetcher as written: bad_url, policy_denied', async () => {
    const website = `ftp://${new URL(site.origin).host}/`;
    const proposal = await engine().propose(request(BUILTIN_STRUCTURES.organization, { name: NAME, website }));
    expect(proposal.failures?.map((f) => [f.field, f.strategy, f.outcome, f.sourceRefs])).toEqual(
      ['domain', 'industry', 'headquarters'].map((f) => [f, 'fetch:bad_url', 'policy_denied', [website]]),
    );
  });

  it("reports a refused fetch per field with the fetcher's reason, and the run logs it as given", async () => {
    const guarded = createPageFetcher({ timeoutMs: 2000 });
    try {
      const req = request(BUILTIN_STRUCTURES.organization, { name: NAME, website: `${site.origin}/` });
      const proposal = await createWebEngine({ pages: guarded, settings }).propose(req);
      const expected = { strategy: 'fetch:blocked_address', outcome: 'policy_denied', sourceRefs: [`${site.origin}/`] };
      expect(proposal.failures).toEqual(['domain', 'industry', 'headquarters'].map((field) => ({ field, ...expected })));
      const plan = planEngineStep(
        startRun('run', '2031-01-01T00:00:00.000Z', { fields: req.definition.fields, values: req.object.fields, doNotEnrich: false }),
        {
          engine: 'web',
          provenance: 'WEB_INFERENCE',
          candidates: proposal.candidates,
          tried: proposal.tried!,
          failures: proposal.failures!,
        },
      );
      expect(plan.entries.map((e) => [e.field, e.strategy, e.outcome, e.sourceRefs])).toEqual(
        ['domain', 'industry', 'headquarters'].map((f) => [f, expected.strategy, expected.outcome, expected.sourceRefs]),
      );
      expect(plan.updates).toEqual([]);
    } finally {
      await guarded.close();
    }
  });
});
