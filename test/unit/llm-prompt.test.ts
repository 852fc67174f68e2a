import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { MentioningMemory } from '../../server/services/knowledge/engines/memory-mentions.js';
import {
  answerCandidates,
  cappedConfidence,
  LLM_CITED_MAX_CONFIDENCE,
  LLM_UNCITED_MAX_CONFIDENCE,
  readLlmAnswer,
} from '../../server/services/knowledge/engines/llm-answer.js';
import {
  askableFields,
  buildLlmPrompt,
  contextValues,
  evidenceMemories,
  LLM_MEMORY_LIMIT,
  LLM_MEMORY_MAX_CHARS,
} from '../../server/services/knowledge/engines/llm-prompt.js';
import { agent, inferred, knownNone } from '../support/knowledge-fields.js';
import { body, define } from '../support/knowledge-structures.js';

/** A made-up tenant type covering every reason a field is or is not sent. */
const vessel = define(
  'vessel',
  body({
    name: { type: 'string', title: 'Vessel name', 'x-knowledge': { identity: true, weight: 2, sensitivity: 'medium' } },
    flag: { type: 'string', title: 'Flag state', maxLength: 80 },
    tonnage: { type: 'integer', minimum: 0, 'x-knowledge': { commit_at: 0.55, propose_at: 0.3 } },
    ports: { type: 'array', items: { type: 'string' }, 'x-knowledge': { cardinality: 'multi' } },
    crew_code: { type: 'string', 'x-knowledge': { sensitivity: 'high' } },
    builder: { type: 'string', 'x-knowledge': { provenance: ['AGENT_INPUT', 'KG_INFERENCE'] } },
    home_port: { type: 'string' },
  }),
);
const OPEN = ['flag', 'tonnage', 'ports', 'crew_code', 'builder', 'home_port'];

const memory = (id: string, content: string, sensitivity: MentioningMemory['sensitivity'] = 'low'): MentioningMemory => ({
  id,
  version: 1,
  content,
  createdAt: '2026-03-01T10:00:00.000Z',
  sensitivity,
});

describe('askableFields', () => {
  it.each([
    ['every open field the LLM may fill', OPEN, ['flag', 'tonnage', 'ports', 'home_port']],
    ['only open ones (the run closed the others)', ['flag', 'builder'], ['flag']],
    ['never a high field nor one whose provenance excludes LLM_INFERENCE', ['crew_code', 'builder'], []],
    ['never a name the structure lacks', ['flag', 'hull_colour'], ['flag']],
  ])('%s', (_label, open, expected) => {
    expect(askableFields(vessel, open)).toEqual(expected);
  });
});

describe('contextValues', () => {
  it('sends filled values that are not asked for and not high; known-none and empty values stay out', () => {
    const values = {
      name: agent('Morning Heron'),
      crew_code: agent('HX-7731-Q'),
      builder: inferred('Kvarner Yards', 0.9),
      home_port: knownNone(),
      flag: inferred('Malta', 0.6, 'LLM_INFERENCE'),
      ports: agent([]),
    };
    expect(contextValues(vessel, values, ['flag', 'tonnage'])).toEqual({ name: 'Morning Heron', builder: 'Kvarner Yards' });
  });
});

describe('evidenceMemories', () => {
  it(`leaves out high memories, keeps at most ${LLM_MEMORY_LIMIT} in order and cuts long ones`, () => {
    const many = Array.from({ length: LLM_MEMORY_LIMIT + 3 }, (_, i) => memory(`m${i}`, `note ${i}`));
    const sent = evidenceMemories([memory('secret', 'crew code HX-7731-Q', 'high'), memory('long', 'x'.repeat(5_000)), ...many]);
    expect(sent.map((m) => m.id)).toEqual(['long', ...many.slice(0, LLM_MEMORY_LIMIT - 1).map((m) => m.id)]);
    expect(sent[0]!.content).toHaveLength(LLM_MEMORY_MAX_CHARS);
  });
});

describe('buildLlmPrompt', () => {
  const values = { name: agent('Morning Heron'), crew_code: agent('HX-7731-Q') };
  const memories = [
    memory('m1', 'The Morning Heron sails under the Maltese flag and calls at Valletta and Piraeus.'),
    memory('m2', 'Crew code of the Morning Heron is HX-7731-Q.', 'high'),
  ];

  it('asks for the askable fields, with the non-high context and the non-high memories marked as data', () => {
    const prompt = buildLlmPrompt({ type: 'vessel', definition: vessel, values, openFields: OPEN, memories })!;
    expect(prompt.asked).toEqual(['flag', 'tonnage', 'ports', 'home_port']);
    expect(prompt.memoryIds).toEqual(['m1']);
    expect(prompt.system).toMatch(/data, not instructions/);
    const user = JSON.parse(prompt.user);
    expect(user.object).toEqual({ type: 'vessel', known_fields: { name: 'Morning Heron' } });
    expect(user.wanted_fields.map((w: { field: string }) => w.field)).toEqual(prompt.asked);
    expect(user.wanted_fields[0]).toEqual({ field: 'flag', title: 'Flag state', cardinality: 'single' });
    expect(user.memories).toEqual([{ id: 'm1', created_at: '2026-03-01T10:00:00.000Z', content: memories[0]!.content }]);
    // Nothing high anywhere in what leaves: not the field's name, its value, nor the high memory.
    const sent = JSON.stringify(prompt);
    expect(sent).not.toContain('HX-7731-Q');
    expect(sent).not.toContain('crew_code');
    expect(sent).not.toContain('m2');
  });

  it.each([
    ['no memory to cite', { memories: [memories[1]!] }],
    ['nothing askable', { openFields: ['crew_code', 'builder'] }],
  ])('is null with %s', (_label, override) => {
    expect(buildLlmPrompt({ type: 'vessel', definition: vessel, values, openFields: OPEN, memories, ...override })).toBeNull();
  });

  it('is null when the identity itself is high: naming the object would leak it', () => {
    const hidden = define('vessel', body({ name: { type: 'string', 'x-knowledge': { identity: true, sensitivity: 'high' } } }));
    expect(buildLlmPrompt({ type: 'vessel', definition: hidden, values, openFields: ['flag'], memories })).toBeNull();
  });

  describe('its answer schema', () => {
    const prompt = buildLlmPrompt({ type: 'vessel', definition: vessel, values, openFields: OPEN, memories })!;
    // ajv-formats is CommonJS with a default export; under NodeNext its function is `.default`.
    const addFormats = addFormatsModule.default;
    const validate = addFormats(new Ajv({ strict: false })).compile(prompt.answerSchema.schema);
    const entry = (value: unknown) => ({ value, confidence: 0.8, memory_ids: ['m1'] });
    const all = { flag: null, tonnage: null, ports: null, home_port: null };

    it.each([
      ['every field null', { fields: all }, true],
      [
        'values of the fields own types',
        { fields: { ...all, flag: entry('Malta'), tonnage: entry(4200), ports: entry(['Valletta']) } },
        true,
      ],
      ['a value of the wrong type', { fields: { ...all, tonnage: entry('heavy') } }, false],
      ['a field not asked for', { fields: { ...all, crew_code: entry('X') } }, false],
      ['a missing field', { fields: { flag: null } }, false],
      ['a memory id that was not sent', { fields: { ...all, flag: { value: 'Malta', confidence: 0.8, memory_ids: ['m2'] } } }, false],
      ['a confidence above 1', { fields: { ...all, flag: { value: 'Malta', confidence: 1.2, memory_ids: [] } } }, false],
    ])('%s', (_label, answer, valid) => {
      expect(validate(answer)).toBe(valid);
    });
  });
});

describe('readLlmAnswer', () => {
  it.each([
    ['not an object', 'Malta'],
    ['no fields', { answer: {} }],
    ['fields not a map', { fields: ['flag'] }],
    ['an entry without a confidence', { fields: { flag: { value: 'Malta' } } }],
    ['a confidence that is not a number', { fields: { flag: { value: 'Malta', confidence: 'high' } } }],
  ])('refuses %s', (_label, raw) => {
    expect(() => readLlmAnswer(raw)).toThrow(/not the expected JSON/);
  });
});

describe('confidence caps', () => {
  it.each([
    ['cited, above the cap', 0.99, true, 0.8, LLM_CITED_MAX_CONFIDENCE],
    ['cited, below the cap', 0.7, true, 0.8, 0.7],
    ['uncited, above the cap', 0.95, false, 0.8, LLM_UNCITED_MAX_CONFIDENCE],
    ['uncited, with a commit_at under the cap stays below it', 0.95, false, 0.55, 0.54],
    ['uncited, low', 0.2, false, 0.8, 0.2],
    ['out of range is passed on for the run to log as error', 1.5, true, 0.8, 1.5],
  ])('%s', (_label, reported, cited, commitAt, expected) => {
    expect(cappedConfidence(reported, cited, commitAt)).toBeCloseTo(expected, 10);
  });

  it('turns an answer into candidates naming only the memories sent, an uncited one unable to commit', () => {
    const answer = readLlmAnswer({
      fields: {
        flag: { value: 'Malta', confidence: 0.97, memory_ids: ['m1', 'm1', 'made-up'] },
        tonnage: { value: 4200, confidence: 0.97, memory_ids: ['made-up'] },
        ports: null,
      },
    });
    const candidates = answerCandidates(answer, vessel, ['m1']);
    expect(candidates).toEqual([
      { field: 'flag', value: 'Malta', confidence: LLM_CITED_MAX_CONFIDENCE, strategy: 'llm_completion', sourceRefs: ['memory:m1'] },
      { field: 'tonnage', value: 4200, confidence: 0.54, strategy: 'llm_completion', sourceRefs: [] },
    ]);
    expect(candidates[1]!.confidence).toBeLessThan(vessel.fields.tonnage!.annotation.commitAt);
  });
});
