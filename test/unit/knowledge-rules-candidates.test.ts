import { describe, expect, it } from 'vitest';
import {
  decideFieldCandidates,
  screenCandidate,
  type CandidateVerdict,
  type EngineIdentity,
} from '../../server/services/knowledge/candidate-decision.js';
import type { Candidate, FieldAnnotation, FieldValue, JsonValue } from '../../server/services/knowledge/model.js';
import { agent, annotation, inferred, knownNone } from '../support/knowledge-fields.js';

const AT = '2025-02-02T10:00:00.000Z';
const kg: EngineIdentity = { engine: 'kg', provenance: 'KG_INFERENCE' };
const rule: EngineIdentity = { engine: 'rule', provenance: 'KG_INFERENCE' };
const llm: EngineIdentity = { engine: 'llm', provenance: 'LLM_INFERENCE' };
const web: EngineIdentity = { engine: 'web', provenance: 'WEB_INFERENCE' };

function candidate(value: JsonValue, confidence: number, strategy = 'fact_extraction'): Candidate {
  return { field: 'employer', value, confidence, strategy, sourceRefs: ['memory:m1'] };
}

describe('one candidate on its own, as a table', () => {
  const cases: [string, Partial<FieldAnnotation>, FieldValue | undefined, EngineIdentity, Candidate, CandidateVerdict][] = [
    ['exactly commit_at commits', {}, undefined, kg, candidate('Acme', 0.8), 'committable'],
    ['just below commit_at is proposed', {}, undefined, kg, candidate('Acme', 0.7999), 'proposed'],
    ['exactly propose_at is proposed', {}, undefined, kg, candidate('Acme', 0.5), 'proposed'],
    ['just below propose_at is rejected', {}, undefined, kg, candidate('Acme', 0.4999), 'rejected'],
    ['the field’s own thresholds apply', { commitAt: 0.95, proposeAt: 0.9 }, undefined, kg, candidate('Acme', 0.92), 'proposed'],
    ['confidence 1 commits', {}, undefined, kg, candidate('Acme', 1), 'committable'],
    ['confidence above 1 is the engine’s error', {}, undefined, kg, candidate('Acme', 1.2), 'error'],
    ['a negative confidence is the engine’s error', {}, undefined, kg, candidate('Acme', -0.1), 'error'],
    ['NaN confidence is the engine’s error', {}, undefined, kg, candidate('Acme', Number.NaN), 'error'],
    ['an empty value is rejected', {}, undefined, kg, candidate('  ', 0.9), 'rejected'],
    ['a null value is rejected', {}, undefined, kg, candidate(null, 0.9), 'rejected'],
    [
      'provenance not allowed by the field',
      { provenance: ['AGENT_INPUT', 'KG_INFERENCE'] },
      undefined,
      llm,
      candidate('Acme', 0.9),
      'policy_denied',
    ],
    [
      'an engine may not claim AGENT_INPUT',
      {},
      undefined,
      { engine: 'kg', provenance: 'AGENT_INPUT' },
      candidate('Acme', 0.9),
      'policy_denied',
    ],
    ['a high-sensitivity field refuses the LLM', { sensitivity: 'high' }, undefined, llm, candidate('Acme', 0.9), 'policy_denied'],
    ['a high-sensitivity field refuses the web', { sensitivity: 'high' }, undefined, web, candidate('Acme', 0.9), 'policy_denied'],
    ['a high-sensitivity field accepts the offline kg', { sensitivity: 'high' }, undefined, kg, candidate('Acme', 0.9), 'committable'],
    ['a high-sensitivity field accepts the offline rules', { sensitivity: 'high' }, undefined, rule, candidate('Acme', 0.9), 'committable'],
    ['a medium-sensitivity field accepts the LLM', { sensitivity: 'medium' }, undefined, llm, candidate('Acme', 0.9), 'committable'],
    ['policy is checked before the agent’s value', { sensitivity: 'high' }, agent('Acme'), llm, candidate('Acme', 0.9), 'policy_denied'],
    ['an agent value is never replaced', {}, agent('Acme'), kg, candidate('Globex', 1), 'skipped_agent_value'],
    ['… even by a weak candidate (skipped, not rejected)', {}, agent('Acme'), kg, candidate('Globex', 0.1), 'skipped_agent_value'],
    ['known-none stated by the agent is respected', {}, knownNone(), kg, candidate('Globex', 0.95), 'skipped_agent_value'],
    ['a field the agent cleared (null) is open again', {}, agent(null), kg, candidate('Globex', 0.9), 'committable'],
    ['an inferred value loses to a more confident one', {}, inferred('Acme', 0.85), kg, candidate('Globex', 0.9), 'committable'],
    ['an inferred value with equal confidence stays', {}, inferred('Acme', 0.85), kg, candidate('Globex', 0.85), 'rejected'],
    ['an inferred value with higher confidence stays', {}, inferred('Acme', 0.95), llm, candidate('Globex', 0.9), 'rejected'],
    ['a proposal must also beat the inferred value', {}, inferred('Acme', 0.7), kg, candidate('Globex', 0.6), 'rejected'],
    ['a proposal above the inferred value is logged', {}, inferred('Acme', 0.55), kg, candidate('Globex', 0.6), 'proposed'],
    ['the same value found more surely raises the confidence', {}, inferred('Acme', 0.8), kg, candidate('acme', 0.9), 'committable'],
    [
      'multi: a new item commits regardless of the stored confidence',
      { cardinality: 'multi' },
      inferred(['a@x.io'], 0.99),
      kg,
      candidate('b@x.io', 0.8),
      'committable',
    ],
    [
      'multi: nothing new is rejected',
      { cardinality: 'multi' },
      inferred(['a@x.io', 'b@x.io'], 0.8),
      kg,
      candidate(['B@x.io '], 0.99),
      'rejected',
    ],
    [
      'multi: an agent list is not extended',
      { cardinality: 'multi' },
      agent(['a@x.io']),
      kg,
      candidate('b@x.io', 0.99),
      'skipped_agent_value',
    ],
  ];
  it.each(cases)('%s → %s', (_what, overrides, current, source, given, verdict) => {
    expect(screenCandidate({ annotation: annotation(overrides), current }, source, given)).toBe(verdict);
  });
});

describe('one engine’s candidates for a single-value field', () => {
  const single = annotation();

  it('commits a lone confident candidate and writes exactly its value, confidence, provenance and time', () => {
    const previous = inferred('Acme', 0.6);
    const decided = decideFieldCandidates({ annotation: single, current: previous }, llm, [candidate('Globex', 0.9)], AT);
    const next = { value: 'Globex', confidence: 0.9, provenance: 'LLM_INFERENCE', updatedAt: AT };
    expect(decided.next).toEqual(next);
    expect(decided.decisions).toEqual([{ candidate: candidate('Globex', 0.9), outcome: 'committed', previous, next }]);
  });

  it('reports every confident candidate as a conflict when they disagree, and writes nothing', () => {
    const decided = decideFieldCandidates(
      { annotation: single, current: undefined },
      kg,
      [candidate('Acme', 0.9, 'works_at'), candidate('Globex', 0.85, 'joined'), candidate('Initech', 0.6, 'works_at')],
      AT,
    );
    expect(decided.next).toBeNull();
    expect(decided.decisions.map((d) => d.outcome)).toEqual(['conflict', 'conflict', 'proposed']);
    expect(decided.decisions.every((d) => d.next === null)).toBe(true);
  });

  it('does not count a candidate that cannot beat the stored value toward a conflict', () => {
    const decided = decideFieldCandidates(
      { annotation: single, current: inferred('Acme', 0.88) },
      kg,
      [candidate('Globex', 0.85), candidate('Initech', 0.9)],
      AT,
    );
    expect(decided.decisions.map((d) => d.outcome)).toEqual(['rejected', 'committed']);
    expect(decided.next?.value).toBe('Initech');
  });

  it('treats values equal after trimming, whitespace and case as agreement: the most confident is written, the rest rejected', () => {
    const decided = decideFieldCandidates(
      { annotation: single, current: undefined },
      kg,
      [candidate('acme  corp', 0.82, 'a'), candidate(' Acme Corp', 0.93, 'b'), candidate('ACME CORP', 0.93, 'c')],
      AT,
    );
    expect(decided.decisions.map((d) => d.outcome)).toEqual(['rejected', 'committed', 'rejected']);
    expect(decided.next).toMatchObject({ value: ' Acme Corp', confidence: 0.93 });
  });

  it('equates full-width letters with their plain form (NFKC), and calls a different spelling a conflict', () => {
    const decided = decideFieldCandidates(
      { annotation: single, current: undefined },
      kg,
      [candidate('Ｉｎｉｔｅｃｈ', 0.9), candidate('initech', 0.9), candidate('Initek', 0.9)],
      AT,
    );
    expect(decided.decisions.map((d) => d.outcome)).toEqual(['conflict', 'conflict', 'conflict']);
    const agreeing = decideFieldCandidates(
      { annotation: single, current: undefined },
      kg,
      [candidate('Ｉｎｉｔｅｃｈ', 0.9), candidate('initech', 0.95)],
      AT,
    );
    expect(agreeing.decisions.map((d) => d.outcome)).toEqual(['rejected', 'committed']);
  });

  it('compares object values whatever their key order', () => {
    const decided = decideFieldCandidates(
      { annotation: single, current: undefined },
      kg,
      [candidate({ city: 'Lyon', country: 'FR' }, 0.9), candidate({ country: 'fr', city: 'LYON' }, 0.85)],
      AT,
    );
    expect(decided.decisions.map((d) => d.outcome)).toEqual(['committed', 'rejected']);
  });

  it('decides nothing from no candidates', () => {
    expect(decideFieldCandidates({ annotation: single, current: undefined }, kg, [], AT)).toEqual({ decisions: [], next: null });
  });
});

describe('one engine’s candidates for a multi-value field', () => {
  const multi = annotation({ cardinality: 'multi' });

  it('merges every committable candidate into the stored inferred list: union, no duplicates, lowest confidence, latest provenance', () => {
    const previous = inferred(['a@x.io'], 0.9, 'KG_INFERENCE');
    const decided = decideFieldCandidates(
      { annotation: multi, current: previous },
      web,
      [candidate(['b@x.io', 'A@x.io'], 0.85, 'json_ld'), candidate('c@x.io', 0.95, 'opengraph'), candidate('d@x.io', 0.6, 'opengraph')],
      AT,
    );
    const next = { value: ['a@x.io', 'b@x.io', 'c@x.io'], confidence: 0.85, provenance: 'WEB_INFERENCE', updatedAt: AT };
    expect(decided.next).toEqual(next);
    expect(decided.decisions.map((d) => [d.outcome, d.next])).toEqual([
      ['committed', next],
      ['committed', next],
      ['proposed', null],
    ]);
  });

  it('never calls different confident items a conflict', () => {
    const decided = decideFieldCandidates({ annotation: multi, current: undefined }, kg, [candidate('x', 0.9), candidate('y', 0.9)], AT);
    expect(decided.decisions.map((d) => d.outcome)).toEqual(['committed', 'committed']);
    expect(decided.next?.value).toEqual(['x', 'y']);
  });

  it('starts afresh over a cleared field', () => {
    const decided = decideFieldCandidates({ annotation: multi, current: agent([]) }, kg, [candidate(['x'], 0.9)], AT);
    expect(decided.next).toEqual({ value: ['x'], confidence: 0.9, provenance: 'KG_INFERENCE', updatedAt: AT });
  });
  it('takes the most confident candidates while the structure accepts the union; one that would not fit is rejected', () => {
    // The field allows three items (`maxItems: 3` in a structure): one is stored, room for two more.
    const accepts = (value: JsonValue) => Array.isArray(value) && value.length <= 3;
    const decided = decideFieldCandidates(
      { annotation: multi, current: inferred(['a'], 0.9, 'KG_INFERENCE'), accepts },
      kg,
      [candidate(['b', 'c'], 0.85), candidate(['d'], 0.95), candidate(['a', 'e'], 0.9)],
      AT,
    );
    const next = { value: ['a', 'd', 'e'], confidence: 0.9, provenance: 'KG_INFERENCE', updatedAt: AT };
    expect(decided.next).toEqual(next);
    expect(decided.decisions.map((d) => [d.outcome, d.next])).toEqual([
      ['rejected', null],
      ['committed', next],
      ['committed', next],
    ]);
  });

  it('writes nothing when no candidate fits', () => {
    const decided = decideFieldCandidates(
      { annotation: multi, current: inferred(['a', 'b'], 0.9, 'KG_INFERENCE'), accepts: (v) => Array.isArray(v) && v.length <= 2 },
      kg,
      [candidate(['c'], 0.9)],
      AT,
    );
    expect(decided.next).toBeNull();
    expect(decided.decisions.map((d) => d.outcome)).toEqual(['rejected']);
  });
});
