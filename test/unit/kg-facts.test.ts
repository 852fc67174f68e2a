import { describe, expect, it } from 'vitest';
import {
  combineConfidences,
  factCandidates,
  locationFromEmployer,
  matchKey,
  type KnownObject,
} from '../../server/services/knowledge/engines/kg-facts.js';
import type { FieldValue } from '../../server/services/knowledge/model.js';

const mem = (id: string, content: string, createdAt?: string) => ({ id, content, ...(createdAt ? { createdAt } : {}) });
const byField = (candidates: ReturnType<typeof factCandidates>) =>
  Object.fromEntries(candidates.map((c) => [`${c.field}=${c.value}`, [c.confidence, c.strategy, c.sourceRefs]]));

describe('factCandidates: a person', () => {
  it('maps stated facts about the person to fields and ignores facts about others', () => {
    const candidates = factCandidates('person', 'Dana Whitfield', [
      mem('m1', 'Dana Whitfield works at Northwind as a staff engineer. Sam Okoro works at Globex.'),
      mem('m2', 'Dana Whitfield lives in Porto and her manager is Sam Okoro.'),
      mem('m3', 'You can email Dana Whitfield at dana@northwind.io.'),
    ]);
    expect(byField(candidates)).toEqual({
      'email=dana@northwind.io': [0.85, 'stated_fact', ['memory:m3']],
      'employer=Northwind': [0.9, 'stated_fact', ['memory:m1']],
      'job_title=staff engineer': [0.9, 'stated_fact', ['memory:m1']],
      'location=Porto': [0.9, 'stated_fact', ['memory:m2']],
      // "her manager" is Dana's: the one person the sentence named before it (×0.9).
      'manager=Sam Okoro': [0.81, 'stated_fact', ['memory:m2']],
    });
  });

  it('raises the confidence when several memories agree, one vote per memory, capped', () => {
    const [one] = factCandidates('person', 'Dana Whitfield', [mem('m1', 'Dana Whitfield joined Initech in 2021.')]);
    const [two] = factCandidates('person', 'Dana Whitfield', [
      mem('m1', 'Dana Whitfield joined Initech in 2021.'),
      mem('m2', 'Dana Whitfield joined Initech as a designer.'),
    ]).filter((c) => c.field === 'employer');
    expect(one).toMatchObject({ field: 'employer', value: 'Initech', confidence: 0.77 });
    // noisy-or of 0.77 and 0.77 is 0.95, but agreement adds at most 0.1 to the strongest statement.
    expect(two).toMatchObject({ value: 'Initech', confidence: 0.87, sourceRefs: ['memory:m1', 'memory:m2'] });
    const repeated = factCandidates('person', 'Dana Whitfield', [
      mem('m1', 'Dana Whitfield joined Initech. Later, Dana Whitfield joined Initech again.'),
    ]);
    expect(repeated.find((c) => c.field === 'employer')?.confidence).toBe(0.77);
  });

  it('never lets repetition of a former employer reach the commit threshold', () => {
    const memories = ['m1', 'm2', 'm3', 'm4'].map((id) => mem(id, 'Dana Whitfield worked at Initech.'));
    const [former] = factCandidates('person', 'Dana Whitfield', memories);
    expect(former).toMatchObject({ field: 'employer', value: 'Initech', confidence: 0.64 });
  });

  it('suppresses an employer the person left, unless a later memory states it again', () => {
    const left = factCandidates('person', 'Dana Whitfield', [
      mem('m1', 'Dana Whitfield works at Hooli.', '2025-01-10T00:00:00Z'),
      mem('m2', 'Dana Whitfield left Hooli to join Pied Piper.', '2025-06-01T00:00:00Z'),
    ]);
    expect(left.filter((c) => c.field === 'employer').map((c) => c.value)).toEqual(['Pied Piper']);

    const back = factCandidates('person', 'Dana Whitfield', [
      mem('m2', 'Dana Whitfield no longer works at Hooli.', '2025-06-01T00:00:00Z'),
      mem('m3', 'Dana Whitfield works at Hooli again.', '2026-02-01T00:00:00Z'),
    ]);
    expect(back.filter((c) => c.field === 'employer').map((c) => c.value)).toEqual(['Hooli']);

    const undated = factCandidates('person', 'Dana Whitfield', [
      mem('a', 'Dana Whitfield works at Hooli.'),
      mem('b', 'Dana Whitfield left Hooli.'),
    ]);
    expect(undated.filter((c) => c.field === 'employer')).toEqual([]);
  });

  it('takes the manager from an inverse fact', () => {
    const [manager] = factCandidates('person', 'Dana Whitfield', [mem('m9', 'Sam Okoro is Dana Whitfield’s manager.')]);
    expect(manager).toEqual({ field: 'manager', value: 'Sam Okoro', confidence: 0.9, strategy: 'inverse_fact', sourceRefs: ['memory:m9'] });
  });

  it('trusts a first name alone less, unless the memory also spells the full name out', () => {
    const alone = factCandidates('person', 'Dana Whitfield', [mem('m1', 'Dana lives in Porto.')]);
    const spelled = factCandidates('person', 'Dana Whitfield', [mem('m2', 'Met Dana Whitfield today. Dana lives in Porto.')]);
    const other = factCandidates('person', 'Dana Whitfield', [
      mem('m3', 'Whitfield Dana lives in Porto.'),
      mem('m4', 'Danae lives in Porto.'),
    ]);
    expect(alone[0]?.confidence).toBe(0.68);
    expect(spelled[0]?.confidence).toBe(0.9);
    expect(other).toEqual([]);
  });

  it('reads the memory speaker for first-person facts', () => {
    const candidates = factCandidates('person', 'Priya Raman', [
      { id: 'm1', content: 'I work at Loomwork. My manager is Sam Okoro.', speaker: 'Priya Raman' },
    ]);
    expect(candidates.map((c) => `${c.field}=${c.value}`)).toEqual(['employer=Loomwork', 'manager=Sam Okoro']);
  });
});

describe('factCandidates: organisations and projects', () => {
  it('gives an organisation its headquarters, website and domain', () => {
    const candidates = factCandidates('organization', 'Acme, Inc.', [
      mem('m1', 'Acme is headquartered in Lyon.'),
      mem('m2', 'Acme’s website is https://www.acme.fr/en'),
      mem('m3', 'Acme, based in Lyon, is hiring.'),
    ]);
    expect(byField(candidates)).toEqual({
      'domain=acme.fr': [0.86, 'stated_fact', ['memory:m2']],
      'headquarters=Lyon': [0.95, 'stated_fact', ['memory:m1', 'memory:m3']],
      'website=https://www.acme.fr/en': [0.9, 'stated_fact', ['memory:m2']],
    });
  });

  it('gives a project its owner from a passive or active statement, with or without the word "project"', () => {
    const candidates = factCandidates('project', 'Falcon', [
      mem('m1', 'Project Falcon is owned by Dana Whitfield.'),
      mem('m2', 'Dana Whitfield leads the Falcon project.'),
      mem('m3', 'Project Falcon is on hold. Project Falcon is an Acme project.'),
      mem('m4', 'Sam Okoro leads Project Osprey.'),
    ]);
    expect(byField(candidates)).toEqual({
      // 0.85 (owned by) and 0.81 (leads): agreement adds at most 0.1 to the strongest, up to 0.95.
      'owner=Dana Whitfield': [0.95, 'inverse_fact', ['memory:m1', 'memory:m2']],
      'organization=Acme': [0.85, 'stated_fact', ['memory:m3']],
      'status=paused': [0.85, 'stated_fact', ['memory:m3']],
    });
  });

  it('proposes nothing for an unknown type or an empty name', () => {
    expect(factCandidates('vehicle', 'Falcon', [mem('m1', 'Falcon is headquartered in Lyon.')])).toEqual([]);
    expect(factCandidates('organization', '  ', [mem('m1', 'Acme is headquartered in Lyon.')])).toEqual([]);
  });
});

describe('combineConfidences', () => {
  it.each([
    [[], 0],
    [[0.9], 0.9],
    [[0.6, 0.6], 0.7],
    [[0.5, 0.3], 0.6],
    [[0.9, 0.9, 0.9], 0.95],
    [[0.2, 0.2], 0.3],
  ])('%j → %d', (values, expected) => {
    expect(combineConfidences(values)).toBe(expected);
  });
});

describe('matchKey', () => {
  it.each([
    ['project', 'Project Falcon', 'falcon'],
    ['project', 'the Falcon project', 'falcon'],
    ['project', 'Project', 'project'],
    ['organization', 'Project Falcon', 'project falcon'],
  ])('%s %s → %s', (type, name, expected) => {
    expect(matchKey(type, name)).toBe(expected);
  });
});

describe('locationFromEmployer (relation_traversal)', () => {
  const fv = (value: string, confidence = 1): FieldValue => ({
    value,
    confidence,
    provenance: 'AGENT_INPUT',
    updatedAt: '2026-01-01T00:00:00Z',
  });
  const orgs: KnownObject[] = [
    { id: 'k1', fields: { name: fv('Northwind Ltd'), headquarters: fv('Seattle') } },
    { id: 'k2', fields: { name: fv('Globex'), headquarters: fv('Springfield', 0.85) } },
    { id: 'k3', fields: { name: fv('Initech') } },
    { id: 'k4', fields: { name: fv('northwind'), headquarters: fv('Seattle', 0.9) } },
  ];

  it('proposes the employer’s headquarters as the person’s location, weaker than the source', () => {
    expect(locationFromEmployer('Northwind', orgs)).toEqual([
      {
        field: 'location',
        value: 'Seattle',
        confidence: 0.6,
        strategy: 'relation_traversal',
        sourceRefs: ['knowledge:k1', 'knowledge:k4'],
      },
    ]);
    expect(locationFromEmployer('Globex', orgs)).toEqual([
      expect.objectContaining({ value: 'Springfield', confidence: 0.51, sourceRefs: ['knowledge:k2'] }),
    ]);
  });

  it('proposes nothing without an employer, a matching organisation or its headquarters', () => {
    expect(locationFromEmployer(null, orgs)).toEqual([]);
    expect(locationFromEmployer('Hooli', orgs)).toEqual([]);
    expect(locationFromEmployer('Initech', orgs)).toEqual([]);
  });
});
