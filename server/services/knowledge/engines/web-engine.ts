import type { EngineFailure, EnrichmentEngine, EnrichmentRequest } from '../../../ports/enrichment-engine.js';
import type { KnowledgeSettingsStore } from '../../../ports/knowledge-settings.js';
import type { WebPageFetcher, WebPageRefusal } from '../../../ports/web-pages.js';
import { readWebMetadata, websiteUrl } from './web-metadata.js';

/**
 * The web engine (`WEB_INFERENCE`, issue #23 §4): fetches the object's own website (its `website` field)
 * through the SSRF-safe fetcher port and reads schema.org JSON-LD and OpenGraph data (web-metadata.ts).
 * Off unless the tenant turned `web_enrichment` on: for other tenants it is never tried and logs nothing.
 *
 * What leaves the deployment is the website URL alone, so a structure that marks `website` as `high`
 * sensitivity stops the fetch (`policy_denied`). Fields marked `high`, or whose structure does not allow
 * `WEB_INFERENCE`, are not worked on at all: when no field is left, nothing is fetched.
 */
export interface WebEngineDeps {
  pages: WebPageFetcher;
  settings: Pick<KnowledgeSettingsStore, 'get'>;
}

/** The strategies web-metadata.ts has per type and field; any other field is not this engine's. */
export const WEB_FIELD_STRATEGIES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  organization: {
    name: ['jsonld', 'opengraph'],
    website: ['jsonld', 'opengraph'],
    domain: ['jsonld', 'opengraph'],
    industry: ['jsonld'],
    headquarters: ['jsonld'],
  },
  person: { job_title: ['jsonld'], employer: ['jsonld'], email: ['jsonld'], phone: ['jsonld'], location: ['jsonld'] },
};

/** A refusal of the address policy or of the URL's form is the SSRF guard at work; the rest are failures. */
export function refusalOutcome(reason: WebPageRefusal): EngineFailure['outcome'] {
  return reason === 'blocked_address' || reason === 'bad_url' ? 'policy_denied' : 'error';
}

export function createWebEngine(deps: WebEngineDeps): EnrichmentEngine {
  return {
    name: 'web',
    provenance: 'WEB_INFERENCE',
    enabledFor: async (tenantId) => (await deps.settings.get(tenantId)).webEnrichment,
    async propose(request) {
      const workable = workableFields(request);
      const tried: Record<string, string[]> = Object.fromEntries(request.openFields.map((f) => [f, []]));
      const website = request.object.fields.website?.value;
      if (workable.size === 0 || typeof website !== 'string' || website.trim() === '') return { candidates: [], tried };

      const failed = (strategy: string, outcome: EngineFailure['outcome'], sourceRefs: string[]) => ({
        candidates: [],
        tried,
        failures: [...workable.keys()].map((field) => ({ field, strategy, outcome, sourceRefs })),
      });
      if (request.definition.fields.website?.annotation.sensitivity === 'high')
        return failed('fetch:high_sensitivity', 'policy_denied', []);

      // A website that is no http(s) URL goes to the fetcher as written, which refuses it as `bad_url`.
      const url = websiteUrl(website)?.href ?? website.trim();
      const page = await deps.pages.fetchPage(url);
      if (!page.ok) return failed(`fetch:${page.reason}`, refusalOutcome(page.reason), [url]);

      const name = request.object.fields[request.definition.identityFields[0] ?? 'name']?.value;
      const subject = { type: request.object.type, name: typeof name === 'string' ? name : '', website };
      const candidates = readWebMetadata(page.body, page.finalUrl, subject, page.contentType).filter((c) => workable.has(c.field));
      for (const [field, strategies] of workable) tried[field] = [...strategies];
      return { candidates, tried };
    },
  };
}

/** The open fields this engine may work on, with their strategies. */
function workableFields({ object, definition, openFields }: EnrichmentRequest): Map<string, readonly string[]> {
  // Own keys only: a type or field named like an Object.prototype member must not find one.
  const byField = Object.hasOwn(WEB_FIELD_STRATEGIES, object.type) ? WEB_FIELD_STRATEGIES[object.type]! : {};
  const workable = new Map<string, readonly string[]>();
  for (const field of openFields) {
    const strategies = Object.hasOwn(byField, field) ? byField[field] : undefined;
    const annotation = Object.hasOwn(definition.fields, field) ? definition.fields[field]?.annotation : undefined;
    if (!strategies || !annotation) continue;
    if (annotation.sensitivity === 'high' || !annotation.provenance.includes('WEB_INFERENCE')) continue;
    workable.set(field, strategies);
  }
  return workable;
}
