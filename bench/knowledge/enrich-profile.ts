/**
 * Where an enrichment run's time goes, measured in this process over the enrich part's data directory
 * with the same modules the job runs: per object, the store read, the rule engine, and the kg engine's
 * steps (the search-index look-up of the name, reading the memories, extracting facts, the employer's
 * organisation look-up), and the whole kg `propose`. The tenant's search cache is loaded first, untimed.
 */
import { createKgEngine, KG_MEMORY_LIMIT } from '../../server/services/knowledge/engines/kg-engine.js';
import { MENTION_SEARCH_MODE as KG_SEARCH_MODE } from '../../server/services/knowledge/engines/memory-mentions.js';
import { factCandidates } from '../../server/services/knowledge/engines/kg-facts.js';
import { createRuleEngine } from '../../server/services/knowledge/engines/rule-engine.js';
import { normaliseName } from '../../server/text/fact-vocabulary.js';
import { latencyStats } from '../support/stats.js';
import { openServices, round2 } from './setup.js';

export interface StepRow {
  step: string;
  n: number;
  p50_ms: number;
  p95_ms: number;
  mean_ms: number;
}

export interface EngineProfile {
  cacheLoadMs: number;
  meanMemoriesRead: number;
  steps: StepRow[];
}

export async function profileEngines(
  dataDir: string,
  tenantId: string,
  objects: readonly { type: string; id: string }[],
): Promise<EngineProfile> {
  const services = await openServices(dataDir);
  try {
    const { searchIndex: index, memories, knowledgeObjects: store } = services.ports;
    const kg = createKgEngine({ index, memories, objects: store });
    const rule = createRuleEngine();
    const samples = new Map<string, number[]>();
    const time = async <T>(step: string, work: () => Promise<T>): Promise<T> => {
      const t = performance.now();
      const out = await work();
      samples.set(step, [...(samples.get(step) ?? []), performance.now() - t]);
      return out;
    };
    const search = (name: string, mode: 'hybrid+graph' | 'hybrid') =>
      index.search(tenantId, { text: name, vector: null, mode, limit: KG_MEMORY_LIMIT, filters: { namespaces: null } });

    const t0 = performance.now();
    await search('warm up', KG_SEARCH_MODE);
    const cacheLoadMs = performance.now() - t0;
    let memoriesRead = 0;
    for (const o of objects) {
      const record = await time('store: read the object', () => store.get(tenantId, o.id));
      if (!record) throw new Error(`${o.id} is gone`);
      const definition = (await services.knowledge.catalog.version(tenantId, record.type, record.schemaVersion))!.definition;
      const openFields = Object.keys(definition.fields).filter((f) => !definition.identityFields.includes(f));
      const request = { tenantId, object: record, definition, openFields, namespaces: null };
      await time('rule engine: propose', () => rule.propose(request));
      const name = String(record.fields.name?.value ?? '');
      const found = await time(`kg: search index, ${KG_SEARCH_MODE} (as served)`, () => search(name, KG_SEARCH_MODE));
      await time('kg: search index, hybrid+graph, for comparison', () => search(name, 'hybrid+graph'));
      const read = await time('kg: read the memories found (getMany)', () =>
        memories.getMany(
          tenantId,
          found.hits.map((h) => h.memoryId),
        ),
      );
      memoriesRead += read.length;
      const texts = read.map((m) => ({ id: m.id, content: m.content, createdAt: m.createdAt }));
      await time('kg: extract facts from them', async () => factCandidates(record.type, name, texts));
      if (record.type === 'person')
        await time('kg: employer look-up (persons)', () => store.findByIdentity(tenantId, 'organization', normaliseName('Acme'), 5));
      await time('kg engine: whole propose', () => kg.propose(request));
    }
    const steps = [...samples.entries()].map(([step, ms]) => {
      const s = latencyStats(ms);
      return { step, n: ms.length, p50_ms: round2(s.p50), p95_ms: round2(s.p95), mean_ms: round2(s.mean) };
    });
    return { cacheLoadMs: Math.round(cacheLoadMs), meanMemoriesRead: Math.round(memoriesRead / Math.max(1, objects.length)), steps };
  } finally {
    await services.close();
  }
}
