import { describe, expect, it } from 'vitest';
import {
  assessObject,
  completenessScore,
  missingFields,
  objectStatus,
  requiredMissing,
  type StatusFacts,
} from '../../server/services/knowledge/completeness.js';
import type { FieldValues, KnowledgeFields } from '../../server/services/knowledge/field-shape.js';
import type { ObjectStatus } from '../../server/services/knowledge/model.js';
import { agent, field, inferred, knownNone } from '../support/knowledge-fields.js';

// A person-like structure: name required (weight 3), email 2, phone 1, note 0 (out of the score).
const person: KnowledgeFields = {
  name: field(3, true),
  email: field(2),
  phone: field(1),
  note: field(0),
};

describe('completeness score, as a table', () => {
  const cases: [string, KnowledgeFields, FieldValues, number][] = [
    ['nothing filled', person, {}, 0],
    ['only the required name: 3 of 6', person, { name: agent('Ann') }, 0.5],
    ['name and email: 5 of 6, rounded to 4 decimals', person, { name: agent('Ann'), email: agent('a@x.io') }, 0.8333],
    ['one sixth', person, { phone: agent('+1 555 0100') }, 0.1667],
    ['every weighted field', person, { name: agent('Ann'), email: agent('a@x.io'), phone: agent('1') }, 1],
    ['a weight-0 field adds nothing', person, { name: agent('Ann'), note: agent('hi') }, 0.5],
    ['known-none counts as filled', person, { name: agent('Ann'), email: knownNone(), phone: knownNone() }, 1],
    ['an inferred value counts like an agent one', person, { name: agent('Ann'), email: inferred('a@x.io', 0.9) }, 0.8333],
    ['null is empty', person, { name: agent(null) }, 0],
    ['a blank string is empty', person, { name: agent('   ') }, 0],
    ['an empty array is empty', person, { name: agent([]) }, 0],
    ['an array of blanks is empty', person, { name: agent(['', ' ']) }, 0],
    ['an empty object is empty', person, { name: agent({}) }, 0],
    ['0 and false are values', person, { name: agent(0), email: agent(false) }, 0.8333],
    ['a value outside the structure is ignored', person, { nickname: agent('Annie') }, 0],
    ['a tiny gap never rounds up to 1', { big: field(99999), small: field(1) }, { big: agent('x') }, 0.9999],
    ['a required weight-0 field that is empty holds the score below 1', { a: field(1), r: field(0, true) }, { a: agent('x') }, 0.9999],
    ['no weight at all, required filled: 1', { r: field(0, true), o: field(0) }, { r: agent('x') }, 1],
    ['no weight at all, required empty: 0', { r: field(0, true), o: field(0) }, { o: agent('x') }, 0],
    ['no fields at all: 1', {}, {}, 1],
    ['fractional weights', { a: field(0.1), b: field(0.2) }, { a: agent('x') }, 0.3333],
    ['a negative weight (refused by the parser) subtracts nothing', { a: field(-5), b: field(1) }, { b: agent('x') }, 1],
  ];
  it.each(cases)('%s → %d', (_what, fields, values, score) => {
    expect(completenessScore(fields, values)).toBe(score);
  });
});

describe('object status, as a table', () => {
  const facts = (score: number, requiredMissing: boolean, enriching: boolean, enrichedSinceCreation: boolean) => ({
    score,
    requiredMissing,
    enriching,
    enrichedSinceCreation,
  });
  const cases: [string, StatusFacts, ObjectStatus][] = [
    ['score 1, never enriched', facts(1, false, false, false), 'COMPLETE'],
    ['score 1, enriched', facts(1, false, false, true), 'COMPLETE'],
    ['a run holding a complete object shows ENRICHING', facts(1, false, true, true), 'ENRICHING'],
    ['a run holding an incomplete object', facts(0.4, true, true, false), 'ENRICHING'],
    ['required field empty, never enriched', facts(0.4, true, false, false), 'INCOMPLETE'],
    ['required field empty, even after a run', facts(0.4, true, false, true), 'INCOMPLETE'],
    ['required filled, no run finished yet', facts(0.6, false, false, false), 'INCOMPLETE'],
    ['required filled, a run finished', facts(0.6, false, false, true), 'PARTIALLY_COMPLETE'],
    ['score 0 without required fields, after a run', facts(0, false, false, true), 'PARTIALLY_COMPLETE'],
    ['score 0.9999 is not complete', facts(0.9999, false, false, true), 'PARTIALLY_COMPLETE'],
    ['a score of 1 claimed with a required field empty is not complete', facts(1, true, false, true), 'INCOMPLETE'],
  ];
  it.each(cases)('%s → %s', (_what, given, status) => {
    expect(objectStatus(given)).toBe(status);
  });
});

describe('what to fill next', () => {
  it('ranks the empty fields: required first, then heavier, then by name; with each one’s share of the score', () => {
    const fields: KnowledgeFields = {
      zeta: field(2),
      alpha: field(2),
      name: field(1, true),
      heavy: field(5),
      done: field(4),
      free: field(0),
    };
    expect(missingFields(fields, { done: agent('x') })).toEqual([
      { field: 'name', required: true, weight: 1, share: 0.0714 },
      { field: 'heavy', required: false, weight: 5, share: 0.3571 },
      { field: 'alpha', required: false, weight: 2, share: 0.1429 },
      { field: 'zeta', required: false, weight: 2, share: 0.1429 },
      { field: 'free', required: false, weight: 0, share: 0 },
    ]);
  });

  it('leaves out filled and known-none fields, and gives share 0 when no field has weight', () => {
    const fields: KnowledgeFields = { a: field(0, true), b: field(0), c: field(0) };
    expect(missingFields(fields, { b: knownNone() })).toEqual([
      { field: 'a', required: true, weight: 0, share: 0 },
      { field: 'c', required: false, weight: 0, share: 0 },
    ]);
  });

  it('names the empty required fields in structure order', () => {
    const fields: KnowledgeFields = { b: field(1, true), a: field(1, true), c: field(1, true) };
    expect(requiredMissing(fields, { a: agent('x') })).toEqual(['b', 'c']);
  });
});

describe('assessing an object in one call', () => {
  it('agrees with the separate rules', () => {
    const values = { name: agent('Ann'), email: agent('a@x.io') };
    expect(assessObject(person, values, { enriching: false, enrichedSinceCreation: true })).toEqual({
      completenessScore: 0.8333,
      status: 'PARTIALLY_COMPLETE',
      missingFields: [
        { field: 'phone', required: false, weight: 1, share: 0.1667 },
        { field: 'note', required: false, weight: 0, share: 0 },
      ],
    });
    expect(assessObject(person, {}, { enriching: false, enrichedSinceCreation: true }).status).toBe('INCOMPLETE');
  });
});
