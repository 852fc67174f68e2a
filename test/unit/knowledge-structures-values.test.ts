import { describe, expect, it } from 'vitest';
import { BUILTIN_STRUCTURES } from '../../server/services/knowledge/builtin-structures.js';
import {
  MAX_FIELDS_BYTES,
  MAX_STRING_VALUE_BYTES,
  acceptsFieldValue,
  checkCreateFields,
  checkPatchFields,
  fieldValueProblems,
} from '../../server/services/knowledge/field-values.js';
import { body, define } from '../support/knowledge-structures.js';

const gadget = define(
  'gadget',
  body(
    {
      serial: { type: 'string', minLength: 3, maxLength: 8 },
      count: { type: 'integer', minimum: 0, maximum: 10 },
      price: { type: 'number', minimum: 0.5 },
      live: { type: 'boolean' },
      colour: { type: 'string', enum: ['red', 'green'] },
      launched: { type: 'string', format: 'date' },
      seen_at: { type: 'string', format: 'date-time' },
      home: { type: 'string', format: 'uri' },
      contact: { type: 'string', format: 'email' },
      tags: { type: 'array', items: { type: 'string', maxLength: 5 }, maxItems: 2 },
      sizes: { type: 'array', items: { type: 'integer', enum: [1, 2, 3] } },
    },
    { required: ['name', 'serial'] },
  ),
);

const problemsOf = (outcome: ReturnType<typeof checkCreateFields>) => (outcome.ok || outcome.reason !== 'invalid' ? [] : outcome.problems);

describe('checkCreateFields: one value against its field', () => {
  const base = { name: 'Widget', serial: 'abc123' };
  const good: [string, Record<string, unknown>][] = [
    ['a string within its lengths', { serial: 'abc' }],
    ['an integer at its maximum', { count: 10 }],
    ['a number at its minimum', { price: 0.5 }],
    ['a boolean', { live: false }],
    ['an enum value', { colour: 'green' }],
    ['a date', { launched: '2024-02-29' }],
    ['a date-time', { seen_at: '2024-05-01T10:00:00Z' }],
    ['a uri', { home: 'https://example.org/a?b=c' }],
    ['an email', { contact: 'someone@example.org' }],
    ['an array within maxItems', { tags: ['a', 'bb'] }],
    ['an empty array', { tags: [] }],
    ['an array of enum integers', { sizes: [1, 3] }],
  ];
  it.each(good)('accepts %s', (_, values) => {
    const outcome = checkCreateFields(gadget, { ...base, ...values });
    expect(outcome).toEqual({ ok: true, values: { ...base, ...values } });
  });

  const bad: [string, Record<string, unknown>, string, RegExp][] = [
    ['a number for a string', { serial: 12345 }, 'fields.serial', /must be string/],
    ['a string below minLength', { serial: 'ab' }, 'fields.serial', /fewer than 3/],
    ['a string above maxLength', { serial: 'abcdefghi' }, 'fields.serial', /more than 8/],
    ['a fraction for an integer', { count: 1.5 }, 'fields.count', /must be integer/],
    ['an integer above maximum', { count: 11 }, 'fields.count', /<= 10/],
    ['a number below minimum', { price: 0.1 }, 'fields.price', />= 0.5/],
    ['a string for a boolean', { live: 'yes' }, 'fields.live', /must be boolean/],
    ['a value outside the enum', { colour: 'blue' }, 'fields.colour', /must be one of "red", "green"/],
    ['an impossible date', { launched: '2023-02-29' }, 'fields.launched', /format "date"/],
    ['a date-time without a zone', { seen_at: 'yesterday' }, 'fields.seen_at', /format "date-time"/],
    ['a relative uri', { home: 'not a uri' }, 'fields.home', /format "uri"/],
    ['a javascript: uri', { home: 'javascript:alert(1)' }, 'fields.home', /format "uri"/],
    ['a data: uri', { home: 'data:text/html,<script>alert(1)</script>' }, 'fields.home', /format "uri"/],
    ['a mailto: uri', { home: 'mailto:dana@example.org' }, 'fields.home', /format "uri"/],
    ['a malformed email', { contact: 'someone@' }, 'fields.contact', /format "email"/],
    ['a scalar for a multi-value field', { tags: 'a' }, 'fields.tags', /must be array/],
    ['too many items', { tags: ['a', 'b', 'c'] }, 'fields.tags', /more than 2 items/],
    ['an item too long', { tags: ['ok', 'toolong'] }, 'fields.tags.1', /more than 5/],
    ['an item outside the items enum', { sizes: [1, 4] }, 'fields.sizes.1', /must be one of 1, 2, 3/],
    ['an object value', { serial: { v: 'abc' } }, 'fields.serial', /must be string/],
    ['a blank identity', { name: '   ' }, 'fields.name', /must not be blank/],
    ['an unknown field', { nickname: 'w' }, 'fields.nickname', /unknown field for gadget 1.0.0/],
    ['an inherited name', { toString: 'x' }, 'fields.toString', /unknown field/],
  ];
  it.each(bad)('refuses %s, naming the field', (_, values, field, message) => {
    expect(problemsOf(checkCreateFields(gadget, { ...base, ...values }))).toContainEqual({
      field,
      message: expect.stringMatching(message),
    });
  });

  it('lists every failing field at once', () => {
    const outcome = checkCreateFields(gadget, { serial: 'x', count: -1, colour: 'pink', extra: 1, tags: ['a', 'b', 'c'] });
    expect(problemsOf(outcome).map((p) => p.field)).toEqual([
      'fields.serial',
      'fields.count',
      'fields.colour',
      'fields.extra',
      'fields.tags',
      'fields.name',
    ]);
  });

  it('requires required fields, present and non-null; null elsewhere is the same as omitted', () => {
    expect(problemsOf(checkCreateFields(gadget, { name: null }))).toEqual([
      { field: 'fields.name', message: 'is required' },
      { field: 'fields.serial', message: 'is required' },
    ]);
    expect(checkCreateFields(gadget, { name: 'W', serial: 'abc', colour: null })).toEqual({
      ok: true,
      values: { name: 'W', serial: 'abc' },
    });
  });

  it('refuses a map that is not an object', () => {
    for (const input of [null, [], 'x', 3]) {
      expect(checkCreateFields(gadget, input)).toEqual({
        ok: false,
        reason: 'invalid',
        problems: [{ field: 'fields', message: 'must be an object of field values' }],
      });
    }
  });

  it('accepts a realistic person and refuses a bad e-mail on the built-in', () => {
    const person = BUILTIN_STRUCTURES.person;
    expect(checkCreateFields(person, { name: 'Mira Okafor', email: 'mira@okafor.example', job_title: 'Surveyor' }).ok).toBe(true);
    expect(problemsOf(checkCreateFields(person, { name: 'Mira Okafor', email: 'mira at home' }))).toEqual([
      { field: 'fields.email', message: 'must match format "email"' },
    ]);
  });
});

describe('checkPatchFields', () => {
  it('keeps omitted fields out, passes null as a clear, and replaces arrays whole', () => {
    expect(checkPatchFields(gadget, { colour: null, tags: ['z'] })).toEqual({ ok: true, values: { colour: null, tags: ['z'] } });
    expect(checkPatchFields(gadget, {})).toEqual({ ok: true, values: {} });
  });

  it('never clears a required field, and does not require the ones left out', () => {
    const outcome = checkPatchFields(gadget, { serial: null, name: null, count: 3 });
    expect(outcome).toEqual({
      ok: false,
      reason: 'invalid',
      problems: [
        { field: 'fields.serial', message: 'is required and cannot be cleared' },
        { field: 'fields.name', message: 'is required and cannot be cleared' },
      ],
    });
  });

  it('validates the values it keeps like a create', () => {
    expect(checkPatchFields(gadget, { count: 'three', nope: null })).toEqual({
      ok: false,
      reason: 'invalid',
      problems: [
        { field: 'fields.count', message: 'must be integer' },
        { field: 'fields.nope', message: 'unknown field for gadget 1.0.0' },
      ],
    });
  });
});

describe('size limits', () => {
  const filler = (bytes: number) => 'é'.repeat(bytes / 2); // two UTF-8 bytes per character
  it('answers too_large for one string over the limit, counted in UTF-8 bytes', () => {
    const outcome = checkCreateFields(gadget, { name: 'W', serial: 'abc', home: filler(MAX_STRING_VALUE_BYTES + 2) });
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'too_large',
      tooLarge: { field: 'fields.home', limitBytes: MAX_STRING_VALUE_BYTES },
    });
    // The same character count in ASCII is within the limit: bytes are counted, not characters.
    const ascii = checkCreateFields(gadget, { name: 'W', serial: 'abc', home: 'a'.repeat((MAX_STRING_VALUE_BYTES + 2) / 2) });
    expect(ascii).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('answers too_large for an array item over the limit and for a patch', () => {
    expect(checkPatchFields(gadget, { tags: ['a', filler(MAX_STRING_VALUE_BYTES + 2)] })).toMatchObject({
      reason: 'too_large',
      tooLarge: { field: 'fields.tags' },
    });
  });

  it('answers too_large for the whole map over its limit even when every value is small', () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`unknown_${i}`, 'x'.repeat(MAX_STRING_VALUE_BYTES - 100)]));
    expect(checkCreateFields(gadget, many)).toMatchObject({ reason: 'too_large', tooLarge: { field: null, limitBytes: MAX_FIELDS_BYTES } });
  });

  it('accepts a string at exactly the limit', () => {
    const def = define('note', body({ text: { type: 'string' } }));
    expect(checkCreateFields(def, { name: 'n', text: filler(MAX_STRING_VALUE_BYTES) }).ok).toBe(true);
  });
});

describe('acceptsFieldValue: what an engine may write', () => {
  const note = define('note', body({ text: { type: 'string' }, tags: { type: 'array', items: { type: 'string' }, maxItems: 2 } }));
  const filler = (bytes: number) => 'é'.repeat(bytes / 2);
  it.each([
    ['a string at the limit', 'text', filler(MAX_STRING_VALUE_BYTES), true],
    ['a string over the limit, which the schema alone would take', 'text', filler(MAX_STRING_VALUE_BYTES + 2), false],
    ['a list item over the limit', 'tags', [filler(MAX_STRING_VALUE_BYTES + 2)], false],
    ['a list within maxItems', 'tags', ['a', 'b'], true],
    ['a list past maxItems', 'tags', ['a', 'b', 'c'], false],
    ['a wrong type', 'text', 7, false],
    ['a field the structure lacks', 'ghost', 'x', false],
  ])('%s', (_, field, value, accepted) => {
    expect(acceptsFieldValue(note, field, value)).toBe(accepted);
  });
});

describe('fieldValueProblems', () => {
  it('checks one value for engines and migrations, and names an unknown field', () => {
    expect(fieldValueProblems(gadget, 'colour', 'red')).toEqual([]);
    expect(fieldValueProblems(gadget, 'colour', 'teal')).toEqual([{ field: 'fields.colour', message: 'must be one of "red", "green"' }]);
    expect(fieldValueProblems(gadget, 'ghost', 1)).toEqual([{ field: 'fields.ghost', message: 'unknown field for gadget 1.0.0' }]);
  });

  it('uses each definition’s own validators (two versions of one type never share one)', () => {
    const v1 = define('tool', body({ size: { type: 'string', maxLength: 3 } }));
    const v2 = define('tool', body({ size: { type: 'string', maxLength: 10 } }, { version: '2.0.0' }));
    expect(fieldValueProblems(v1, 'size', 'medium')).toHaveLength(1);
    expect(fieldValueProblems(v2, 'size', 'medium')).toEqual([]);
  });
});
