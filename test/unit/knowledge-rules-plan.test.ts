import { describe, expect, it } from 'vitest';
import { applyRunToCurrent, isStale } from '../../server/services/knowledge/enrichment-apply.js';
import { noCandidateEntry } from '../../server/services/knowledge/enrichment-log-entry.js';
import {
  openFields,
  planEngineStep,
  planRun,
  startRun,
  type EngineOutput,
  type RunSnapshot,
} from '../../server/services/knowledge/enrichment-plan.js';
import type { Candidate, JsonValue } from '../../server/services/knowledge/model.js';
import { agent, field, inferred, knownNone } from '../support/knowledge-fields.js';

const AT = '2025-03-03T12:00:00.000Z';
const RUN = 'run-1';

// An organisation: name (agent), domain, website, industry (multi), headquarters, secret (high sensitivity).
const snapshot: RunSnapshot = {
  fields: {
    name: field(3, true),
    domain: field(2),
    website: field(1),
    industry: field(1, false, { cardinality: 'multi' }),
    headquarters: field(1),
    secret: field(0, false, { sensitivity: 'high' }),
  },
  values: { name: agent('Acme'), website: agent('https://acme.example'), headquarters: inferred('Paris', 0.8) },
  doNotEnrich: false,
};

function c(field: string, value: JsonValue, confidence: number, strategy: string, sourceRefs: string[] = []): Candidate {
  return { field, value, confidence, strategy, sourceRefs };
}

const ruleOut: EngineOutput = {
  engine: 'rule',
  provenance: 'KG_INFERENCE',
  candidates: [c('domain', 'acme.example', 1, 'domain_from_url')],
  tried: { domain: ['domain_from_url', 'domain_from_email'], industry: [], headquarters: [], secret: [] },
};
const kgOut: EngineOutput = {
  engine: 'kg',
  provenance: 'KG_INFERENCE',
  candidates: [
    c('domain', 'other.example', 0.9, 'fact_extraction', ['memory:m9']),
    c('headquarters', 'Lyon', 0.9, 'fact_extraction', ['memory:m1']),
    c('headquarters', 'Berlin', 0.85, 'relation_traversal', ['knowledge:k2']),
    c('industry', 'chemicals', 0.7, 'fact_extraction', ['memory:m3']),
    c('name', 'Acme Corp', 0.99, 'fact_extraction', ['memory:m4']),
  ],
};
const llmOut: EngineOutput = {
  engine: 'llm',
  provenance: 'LLM_INFERENCE',
  candidates: [
    c('headquarters', 'Madrid', 0.99, 'llm_json'),
    c('industry', ['Chemicals', 'plastics'], 0.9, 'llm_json'),
    c('secret', 'x', 0.99, 'llm_json'),
  ],
};
const webOut: EngineOutput = { engine: 'web', provenance: 'WEB_INFERENCE', error: 'fetch timed out' };

const summary = (entries: readonly { engine: string; field: string; strategy: string; outcome: string }[]) =>
  entries.map((e) => `${e.engine} ${e.field} ${e.strategy} ${e.outcome}`);

describe('one enrichment run, engines per field in order until one commits', () => {
  const plan = planRun(RUN, AT, snapshot, [ruleOut, kgOut, llmOut, webOut]);

  it('logs one entry per field × engine × strategy attempt, misses and errors included, nothing after a field closes', () => {
    expect(summary(plan.entries)).toEqual([
      'rule domain domain_from_url committed',
      'rule domain domain_from_email no_candidate',
      // domain is closed: kg's other.example is not logged; name is the agent's
      'kg name fact_extraction skipped_agent_value',
      'kg industry fact_extraction proposed',
      'kg headquarters fact_extraction conflict',
      'kg headquarters relation_traversal conflict',
      'kg secret kg no_candidate',
      // headquarters closed by the conflict: the LLM may not pick a side
      'llm industry llm_json committed',
      'llm secret llm_json policy_denied',
      'web secret web error',
    ]);
  });

  it('writes the committed fields, each from the run’s time, and remembers what was there', () => {
    expect(plan.updates).toEqual([
      {
        field: 'domain',
        previous: null,
        next: { value: 'acme.example', confidence: 1, provenance: 'KG_INFERENCE', updatedAt: AT },
      },
      {
        field: 'industry',
        previous: null,
        next: { value: ['Chemicals', 'plastics'], confidence: 0.9, provenance: 'LLM_INFERENCE', updatedAt: AT },
      },
    ]);
    expect(plan.closed).toEqual(['domain', 'headquarters', 'industry']);
  });

  it('carries the run id, source refs and the snapshot value in every entry', () => {
    const hq = plan.entries.filter((e) => e.field === 'headquarters');
    expect(hq.map((e) => [e.runId, e.sourceRefs, e.previousValue, e.candidateValue, e.confidence])).toEqual([
      [RUN, ['memory:m1'], inferred('Paris', 0.8), 'Lyon', 0.9],
      [RUN, ['knowledge:k2'], inferred('Paris', 0.8), 'Berlin', 0.85],
    ]);
    expect(plan.entries.find((e) => e.outcome === 'error')).toMatchObject({ candidateValue: null, confidence: null });
  });

  it('asks each engine only about open fields, the agent’s excluded', () => {
    const start = startRun(RUN, AT, snapshot);
    expect(openFields(start)).toEqual(['domain', 'industry', 'headquarters', 'secret']);
    expect(openFields(planEngineStep(start, ruleOut))).toEqual(['industry', 'headquarters', 'secret']);
    expect(openFields(planEngineStep(planEngineStep(start, ruleOut), kgOut))).toEqual(['industry', 'secret']);
  });

  it('lets a later engine commit what an earlier one only proposed', () => {
    const later = planRun(RUN, AT, snapshot, [
      { engine: 'kg', provenance: 'KG_INFERENCE', candidates: [c('domain', 'acme.example', 0.6, 'fact_extraction')] },
      { engine: 'llm', provenance: 'LLM_INFERENCE', candidates: [c('domain', 'acme.example', 0.85, 'llm_json')] },
    ]);
    expect(summary(later.entries.filter((e) => e.field === 'domain'))).toEqual([
      'kg domain fact_extraction proposed',
      'llm domain llm_json committed',
    ]);
  });

  it('logs a candidate for a field the structure lacks as the engine’s error', () => {
    const odd = planRun(RUN, AT, snapshot, [
      { engine: 'kg', provenance: 'KG_INFERENCE', candidates: [c('ceo', 'Ann', 0.9, 'fact_extraction')], tried: {} },
    ]);
    expect(odd.entries.filter((e) => e.field === 'ceo')).toEqual([
      {
        runId: RUN,
        engine: 'kg',
        field: 'ceo',
        strategy: 'fact_extraction',
        candidateValue: 'Ann',
        confidence: 0.9,
        outcome: 'error',
        sourceRefs: [],
        previousValue: null,
      },
    ]);
    expect(odd.updates).toEqual([]);
  });

  it('plans nothing for an object that opted out', () => {
    const optedOut = planRun(RUN, AT, { ...snapshot, doNotEnrich: true }, [ruleOut, kgOut]);
    expect(optedOut.entries).toEqual([]);
    expect(optedOut.updates).toEqual([]);
  });

  it('makes a miss entry with no value, no confidence and no sources', () => {
    expect(noCandidateEntry({ runId: RUN, engine: 'web', field: 'domain', strategy: 'json_ld', previousValue: null })).toEqual({
      runId: RUN,
      engine: 'web',
      field: 'domain',
      strategy: 'json_ld',
      candidateValue: null,
      confidence: null,
      outcome: 'no_candidate',
      sourceRefs: [],
      previousValue: null,
    });
  });
});

describe('applying a run to the object as it is now: a client PATCH during the run wins', () => {
  const plan = planRun(RUN, AT, snapshot, [ruleOut, kgOut, llmOut]);

  it('writes everything when nothing changed meanwhile', () => {
    const applied = applyRunToCurrent({ values: snapshot.values, doNotEnrich: false }, plan);
    expect(Object.keys(applied.writes)).toEqual(['domain', 'industry']);
    expect(applied.staleFields).toEqual([]);
    expect(applied.entries).toEqual(plan.entries);
    expect(applied.values.domain).toEqual(plan.updates[0]?.next);
    expect(applied.values.name).toEqual(agent('Acme'));
  });

  it('keeps a field the client wrote during the run, and turns its committed entry stale', () => {
    const patched = agent('acme.org');
    const applied = applyRunToCurrent({ values: { ...snapshot.values, domain: { ...patched, updatedAt: AT } }, doNotEnrich: false }, plan);
    expect(Object.keys(applied.writes)).toEqual(['industry']);
    expect(applied.staleFields).toEqual(['domain']);
    expect(applied.values.domain?.value).toBe('acme.org');
    expect(summary(applied.entries.filter((e) => e.field === 'domain'))).toEqual([
      'rule domain domain_from_url stale',
      'rule domain domain_from_email no_candidate',
    ]);
  });

  it('treats a field cleared, marked known-none, or rewritten in another case as changed', () => {
    const withIndustry = { ...snapshot, values: { ...snapshot.values, industry: inferred(['oil'], 0.9) } };
    const run = planRun(RUN, AT, withIndustry, [llmOut]);
    expect(run.updates.map((u) => u.field)).toEqual(['industry', 'headquarters']);
    for (const now of [undefined, knownNone(), inferred(['Oil'], 0.9)]) {
      const applied = applyRunToCurrent({ values: { ...withIndustry.values, industry: now }, doNotEnrich: false }, run);
      expect(applied.staleFields).toEqual(['industry']);
    }
  });

  it('writes nothing when the client set do_not_enrich during the run', () => {
    const applied = applyRunToCurrent({ values: snapshot.values, doNotEnrich: true }, plan);
    expect(applied.writes).toEqual({});
    expect(applied.entries.filter((e) => e.outcome === 'committed')).toEqual([]);
    expect(applied.entries.filter((e) => e.outcome === 'stale')).toHaveLength(2);
  });

  it('sees no change in a stored knownNone flag left undefined by a driver', () => {
    const stored = knownNone();
    const { knownNone: _dropped, ...rest } = stored;
    expect(isStale({ previous: { ...rest, knownNone: true } }, { ...rest, knownNone: undefined } as never)).toBe(true);
    expect(isStale({ previous: { ...rest } }, { ...rest, knownNone: undefined } as never)).toBe(false);
    expect(isStale({ previous: null }, undefined)).toBe(false);
    expect(isStale({ previous: null }, inferred('x', 0.9))).toBe(true);
  });
});
