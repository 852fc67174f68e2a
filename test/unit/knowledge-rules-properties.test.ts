import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { completenessScore, missingFields } from '../../server/services/knowledge/completeness.js';
import { applyRunToCurrent } from '../../server/services/knowledge/enrichment-apply.js';
import { planRun, type EngineOutput, type RunSnapshot } from '../../server/services/knowledge/enrichment-plan.js';
import type { KnowledgeFields } from '../../server/services/knowledge/field-shape.js';
import { isFilled } from '../../server/services/knowledge/field-content.js';
import {
  ENGINE_NAMES,
  PROVENANCES,
  type Candidate,
  type EngineName,
  type FieldValue,
  type Provenance,
} from '../../server/services/knowledge/model.js';
import { agent, annotation, inferred, knownNone } from '../support/knowledge-fields.js';

const AT = '2025-04-04T00:00:00.000Z';
const NAMES = ['a', 'b', 'c', 'd', 'e'];
const ENGINE_PROVENANCE: Record<EngineName, Provenance> = {
  rule: 'KG_INFERENCE',
  kg: 'KG_INFERENCE',
  llm: 'LLM_INFERENCE',
  web: 'WEB_INFERENCE',
};

// Values chosen to collide: equal after normalisation, different, empty, lists.
const values = fc.constantFrom<FieldValue['value']>('x', ' X', 'y', 'Y ', 'z', '', null, ['x', 'y'], ['Y', 'z'], 0, false);
const confidence = fc.oneof(fc.constantFrom(0, 0.5, 0.8, 1, 0.4999, 0.7999), fc.double({ min: 0, max: 1, noNaN: true }));

const thresholds = fc
  .tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }))
  .map(([x, y]) => ({ proposeAt: Math.min(x, y), commitAt: Math.max(x, y) }));

const fields: fc.Arbitrary<KnowledgeFields> = fc
  .tuple(
    ...NAMES.map(() =>
      fc.record({
        weight: fc.constantFrom(0, 1, 2.5),
        required: fc.boolean(),
        cardinality: fc.constantFrom('single' as const, 'multi' as const),
        sensitivity: fc.constantFrom('low' as const, 'medium' as const, 'high' as const),
        provenance: fc.subarray([...PROVENANCES]),
        thresholds,
      }),
    ),
  )
  .map((shapes) =>
    Object.fromEntries(
      shapes.map((s, i) => [
        NAMES[i],
        {
          required: s.required,
          annotation: annotation({
            weight: s.weight,
            cardinality: s.cardinality,
            sensitivity: s.sensitivity,
            provenance: s.provenance,
            ...s.thresholds,
          }),
        },
      ]),
    ),
  );

const stored = fc.option(
  fc.oneof(
    values.map(agent),
    fc.constant(knownNone()),
    fc
      .tuple(values, confidence, fc.constantFrom<Provenance>('KG_INFERENCE', 'LLM_INFERENCE', 'WEB_INFERENCE'))
      .map(([v, c, p]) => inferred(v, c, p)),
  ),
  { nil: undefined },
);

const candidate: fc.Arbitrary<Candidate> = fc.record({
  field: fc.constantFrom(...NAMES),
  value: values,
  confidence,
  strategy: fc.constantFrom('s1', 's2'),
  sourceRefs: fc.constant(['memory:m1']),
});

const outputs: fc.Arbitrary<EngineOutput[]> = fc
  .tuple(...ENGINE_NAMES.map((engine) => fc.tuple(fc.constant(engine), fc.boolean(), fc.array(candidate, { maxLength: 8 }))))
  .map((steps) =>
    steps.map(([engine, fails, candidates]): EngineOutput => {
      const provenance = ENGINE_PROVENANCE[engine];
      return fails && engine === 'web' ? { engine, provenance, error: 'down' } : { engine, provenance, candidates };
    }),
  );

const snapshots: fc.Arbitrary<RunSnapshot> = fc.tuple(fields, fc.tuple(...NAMES.map(() => stored))).map(([f, current]) => ({
  fields: f,
  values: Object.fromEntries(NAMES.map((name, i) => [name, current[i]]).filter(([, v]) => v !== undefined)),
  doNotEnrich: false,
}));

describe('whatever the engines propose', () => {
  it('never changes a value the agent wrote or declared known-none', () => {
    fc.assert(
      fc.property(snapshots, outputs, (snapshot, engines) => {
        const applied = applyRunToCurrent({ values: snapshot.values, doNotEnrich: false }, planRun('r', AT, snapshot, engines));
        for (const [name, before] of Object.entries(snapshot.values)) {
          const agentOwned =
            before && (before.knownNone === true || (before.provenance === 'AGENT_INPUT' && before.value !== null && before.value !== ''));
          if (agentOwned) expect(applied.values[name]).toBe(before);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('logs every committed entry exactly as the field was written, at most one engine commits a field, and nothing else writes', () => {
    fc.assert(
      fc.property(snapshots, outputs, (snapshot, engines) => {
        const plan = planRun('r', AT, snapshot, engines);
        const applied = applyRunToCurrent({ values: snapshot.values, doNotEnrich: false }, plan);
        const committed = applied.entries.filter((e) => e.outcome === 'committed');
        for (const entry of committed) {
          expect(applied.values[entry.field]).toEqual({
            value: entry.candidateValue,
            confidence: entry.confidence,
            provenance: ENGINE_PROVENANCE[entry.engine],
            updatedAt: AT,
          });
        }
        expect(Object.keys(applied.writes).sort()).toEqual([...new Set(committed.map((e) => e.field))].sort());
        for (const field of Object.keys(applied.writes)) {
          expect(new Set(committed.filter((e) => e.field === field).map((e) => e.engine)).size).toBe(1);
          expect(applied.entries.some((e) => e.field === field && e.outcome === 'conflict')).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('writes values at or above the commit threshold (a merged list may keep the lower confidence of its stored items)', () => {
    fc.assert(
      fc.property(snapshots, outputs, (snapshot, engines) => {
        for (const update of planRun('r', AT, snapshot, engines).updates) {
          const rules = snapshot.fields[update.field]?.annotation;
          expect(rules).toBeDefined();
          if (!rules) continue;
          const kept = rules.cardinality === 'multi' && update.previous ? update.previous.confidence : 1;
          expect(update.next.confidence).toBeGreaterThanOrEqual(Math.min(rules.commitAt, kept));
          // A single value replaces a stored inferred one only with a strictly higher confidence.
          if (rules.cardinality === 'single' && update.previous && isFilled(update.previous)) {
            expect(update.next.confidence).toBeGreaterThan(update.previous.confidence);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('completeness, whatever the values', () => {
  it('lies in [0, 1] with at most 4 decimals, and is 1 exactly when nothing weighted or required is missing', () => {
    fc.assert(
      fc.property(snapshots, ({ fields: f, values: v }) => {
        const score = completenessScore(f, v);
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
        expect(Math.round(score * 10_000) / 10_000).toBe(score);
        const gaps = missingFields(f, v).filter((m) => m.weight > 0 || m.required);
        expect(score === 1).toBe(gaps.length === 0);
      }),
      { numRuns: 500 },
    );
  });
});
