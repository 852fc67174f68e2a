import { describe, expect, it } from 'vitest';
import { extractFacts as knowledgeFacts, normaliseName } from '../../server/text/facts.js';
import { LEGAL_SUFFIXES, stripMarks, withoutLegalSuffix } from '../../server/text/names.js';
import { clauseSpans, clauses, sentenceSpans, sentences } from '../../server/text/sentences.js';
import { extractFacts as statementFacts } from '../../server/text/statements/extract-facts.js';

type Reading = [subject: string, attribute: string, value: string, negated: boolean];
type Triple = [subject: string, predicate: string, object: string, confidence: number];

const read = (text: string) => statementFacts(text).map((f): Reading => [f.subject, f.attribute, f.value, f.negated]);
const know = (text: string) =>
  knowledgeFacts(text, { speaker: 'Priya' }).map((f): Triple => [f.subject, f.predicate, f.object, f.confidence]);

describe('one phrasing, one reading: the statement rules and the knowledge predicates they map to', () => {
  // Each row: how the contradiction detector reads the sentence, and what the knowledge extractor makes of that reading.
  const cases: [string, Reading[], Triple[]][] = [
    [
      'Raj took a new job with Pinecrest Insurance.',
      [['raj', 'employer', 'pinecrest insurance', false]],
      [['Raj', 'joined', 'Pinecrest Insurance', 0.9]],
    ],
    ['Kofi relocated from Accra to Toronto.', [['kofi', 'residence', 'toronto', false]], [['Kofi', 'lives_in', 'Toronto', 0.85]]],
    ['Dana stepped down as CEO of Acme.', [['dana', 'employer', 'acme', true]], [['Dana', 'left', 'Acme', 0.9]]],
    ['Mei was let go by Corvid Systems.', [['mei', 'employer', 'corvid systems', true]], [['Mei', 'left', 'Corvid Systems', 0.9]]],
    ['Ola stopped working at Vantage Labs.', [['ola', 'employer', 'vantage labs', true]], [['Ola', 'left', 'Vantage Labs', 0.9]]],
    ['I started working for Globex.', [['user', 'employer', 'globex', false]], [['Priya', 'joined', 'Globex', 0.9]]],
    ['Ines is based out of Lisbon.', [['ines', 'residence', 'lisbon', false]], [['Ines', 'based_in', 'Lisbon', 0.85]]],
    ['Alice works as a designer.', [['alice', 'role', 'designer', false]], [['Alice', 'job_title', 'designer', 0.9]]],
    ['Dana was promoted to staff engineer.', [['dana', 'role', 'staff engineer', false]], [['Dana', 'job_title', 'staff engineer', 0.85]]],
    // A former or denied home is a residence fact for contradictions, and no fact for the knowledge graph.
    ['Alice used to live in Paris.', [['alice', 'residence', 'paris', true]], []],
    ['Dana moved out of Berlin.', [['dana', 'residence', 'berlin', true]], []],
    ['Dana lived in Porto.', [['dana', 'residence', 'porto', false]], []],
    // "to join" after leaving is the next employer for the knowledge side; the detector reads the leaving.
    [
      'Dana quit Hooli to join Pied Piper.',
      [['dana', 'employer', 'hooli', true]],
      [
        ['Dana', 'left', 'Hooli', 0.9],
        ['Dana', 'joined', 'Pied Piper', 0.85],
      ],
    ],
    // A wish is no statement for either.
    ['Alice wants to join Globex.', [], []],
  ];
  it.each(cases)('%s', (text, reading, triples) => {
    expect(read(text)).toEqual(reading);
    expect(know(text)).toEqual(triples);
  });
});

describe('sentences and clauses with offsets', () => {
  it('cuts sentences whose offsets index the text, abbreviations kept whole', () => {
    const text = '  Dr. Dana Whitfield joined Acme.\nShe lives in Porto!  Does she?';
    const spans = sentenceSpans(text);
    expect(spans.map((s) => s.text)).toEqual(['Dr. Dana Whitfield joined Acme.', 'She lives in Porto!', 'Does she?']);
    for (const s of spans) expect(text.slice(s.start, s.start + s.text.length)).toBe(s.text);
  });

  it('reads contractions expanded for the detector, and the same cuts', () => {
    expect(sentences("Dana doesn't work at Acme. She's in Porto.")).toEqual(['Dana does not work at Acme.', 'She is in Porto.']);
  });

  it('cuts clauses at ";" and coordinating words, with offsets in the sentence', () => {
    const sentence = 'Alice lives in Paris and works at Globex; Bob left Acme.';
    const spans = clauseSpans(sentence);
    expect(spans.map((c) => c.text)).toEqual(['Alice lives in Paris', 'works at Globex', 'Bob left Acme']);
    for (const c of spans) expect(sentence.slice(c.start, c.start + c.text.length)).toBe(c.text);
    expect(clauses(sentence)).toEqual(spans.map((c) => c.text));
  });
});

describe('name primitives', () => {
  it.each([
    ['acme corp', 'acme'],
    ['globex group', 'globex'],
    ['spotify ab', 'spotify'],
    ['corp', 'corp'],
    ['acme corporation ltd', 'acme corporation'],
  ])('%s without its legal suffix is %s', (name, expected) => {
    expect(withoutLegalSuffix(name)).toBe(expected);
  });

  it('folds diacritics and shares the suffixes with both normalisers', () => {
    expect(stripMarks('São Paulo')).toBe('Sao Paulo');
    expect(LEGAL_SUFFIXES).toContain('group');
    expect(normaliseName('Globex Group')).toBe('globex');
    expect(read('Bob works at Globex Group.')).toEqual([['bob', 'employer', 'globex', false]]);
  });
});
