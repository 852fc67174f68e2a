import { describe, expect, it } from 'vitest';
import { BUILTIN_STRUCTURES, BUILTIN_TYPES, isBuiltinType } from '../../server/services/knowledge/builtin-structures.js';
import { MAX_FIELDS, parseStructure, RESERVED_FIELD_NAMES } from '../../server/services/knowledge/structure-definition.js';
import { body, define } from '../support/knowledge-structures.js';

const problemsOf = (type: string, input: unknown) => {
  const outcome = parseStructure(type, input);
  if (outcome.ok) throw new Error('expected the structure to be refused');
  return outcome.problems;
};

describe('parseStructure: valid structures', () => {
  const good: [string, unknown][] = [
    ['only an identity field', body({})],
    [
      'every supported scalar keyword',
      body({ score: { type: 'number', minimum: 0, maximum: 10, title: 'Score', description: 'how good' } }),
    ],
    ['integer with an enum', body({ level: { type: 'integer', enum: [1, 2, 3] } })],
    ['a boolean', body({ active: { type: 'boolean' } })],
    [
      'string formats',
      body({ at: { type: 'string', format: 'date-time' }, home: { type: 'string', format: 'uri', minLength: 1, maxLength: 100 } }),
    ],
    [
      'a multi-value field (cardinality implied by array)',
      body({ tags: { type: 'array', items: { type: 'string', maxLength: 30 }, maxItems: 5 } }),
    ],
    [
      'cardinality stated and agreeing',
      body({ tags: { type: 'array', items: { type: 'string' }, 'x-knowledge': { cardinality: 'multi' } } }),
    ],
    ['propose_at equal to commit_at', body({ x: { type: 'string', 'x-knowledge': { commit_at: 0.7, propose_at: 0.7 } } })],
    ['a lone low commit_at pulls the default propose_at down', body({ x: { type: 'string', 'x-knowledge': { commit_at: 0.3 } } })],
    [
      'a derivation chain without a cycle',
      body({
        a: { type: 'string' },
        b: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_url', from: ['a'] } } },
        c: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_url', from: ['b'] } } },
      }),
    ],
    ['a pre-release version', { ...body({}), schema_version: '2.1.0-beta.1' }],
    [
      'a known $schema dialect and additionalProperties false',
      {
        schema_version: '1.0.0',
        schema: { ...body({}).schema, $schema: 'https://json-schema.org/draft/2020-12/schema', additionalProperties: false },
      },
    ],
    ['exactly the field cap', body(Object.fromEntries(Array.from({ length: MAX_FIELDS - 1 }, (_, i) => [`f${i}`, { type: 'string' }])))],
  ];
  it.each(good)('accepts %s', (_, input) => {
    const outcome = parseStructure('thing', input);
    expect(outcome.ok ? [] : outcome.problems).toEqual([]);
  });

  it('normalizes annotations with their defaults and keeps the published schema', () => {
    const input = body({
      email: { type: 'string', format: 'email', 'x-knowledge': { sensitivity: 'high', provenance: ['KG_INFERENCE'], commit_at: 0.3 } },
    });
    const def = define('contact', input);
    expect(def).toMatchObject({ type: 'contact', version: '1.0.0', fieldNames: ['name', 'email'], identityFields: ['name'] });
    expect(def.fields.email).toEqual({
      schema: { type: 'string', format: 'email' },
      required: false,
      annotation: {
        weight: 1,
        cardinality: 'single',
        sensitivity: 'high',
        provenance: ['AGENT_INPUT', 'KG_INFERENCE'],
        commitAt: 0.3,
        proposeAt: 0.3,
        derive: null,
        identity: false,
      },
    });
    expect(def.fields.name!.annotation).toMatchObject({
      weight: 2,
      identity: true,
      provenance: ['AGENT_INPUT', 'KG_INFERENCE', 'LLM_INFERENCE', 'WEB_INFERENCE'],
      commitAt: 0.8,
      proposeAt: 0.5,
    });
    expect(def.schema).toEqual(input.schema);
    expect(def.schema).not.toBe(input.schema);
    expect(Object.isFrozen(def.fields.email!.annotation)).toBe(true);
    expect(Object.hasOwn(def.fields, 'toString')).toBe(false);
  });
});

describe('parseStructure: each malformed structure names its problem', () => {
  const withName = (extra: Record<string, unknown>) => body(extra);
  const bad: [string, unknown, { field: string; message: RegExp }][] = [
    ['a version that is not semver', { ...body({}), schema_version: '1.0' }, { field: 'schema_version', message: /semantic version/ }],
    ['a v-prefixed version', { ...body({}), schema_version: 'v1.0.0' }, { field: 'schema_version', message: /semantic version/ }],
    [
      'build metadata in the version',
      { ...body({}), schema_version: '1.0.0+build' },
      { field: 'schema_version', message: /semantic version/ },
    ],
    [
      'a schema that is not type object',
      { schema_version: '1.0.0', schema: { ...body({}).schema, type: 'array' } },
      { field: 'schema.type', message: /'object'/ },
    ],
    [
      'an unknown top-level keyword',
      { schema_version: '1.0.0', schema: { ...body({}).schema, allOf: [] } },
      { field: 'schema.allOf', message: /unsupported keyword/ },
    ],
    [
      'additionalProperties true',
      { schema_version: '1.0.0', schema: { ...body({}).schema, additionalProperties: true } },
      { field: 'schema.additionalProperties', message: /only be false/ },
    ],
    [
      'an unknown annotation',
      withName({ x: { type: 'string', 'x-knowledge': { wieght: 2 } } }),
      { field: 'schema.properties.x.x-knowledge.wieght', message: /unknown annotation 'wieght'/ },
    ],
    [
      'a negative weight',
      withName({ x: { type: 'string', 'x-knowledge': { weight: -1 } } }),
      { field: 'schema.properties.x.x-knowledge.weight', message: /must not be negative/ },
    ],
    [
      'a non-finite weight',
      withName({ x: { type: 'string', 'x-knowledge': { weight: Infinity } } }),
      { field: 'schema.properties.x.x-knowledge.weight', message: /finite/ },
    ],
    [
      'a weight above the cap',
      withName({ x: { type: 'string', 'x-knowledge': { weight: 1e6 } } }),
      { field: 'schema.properties.x.x-knowledge.weight', message: /at most 1000/ },
    ],
    [
      'propose_at above commit_at',
      withName({ x: { type: 'string', 'x-knowledge': { commit_at: 0.6, propose_at: 0.7 } } }),
      { field: 'schema.properties.x.x-knowledge.propose_at', message: /above commit_at/ },
    ],
    [
      'commit_at above 1',
      withName({ x: { type: 'string', 'x-knowledge': { commit_at: 1.5 } } }),
      { field: 'schema.properties.x.x-knowledge.commit_at', message: /\[0, 1\]/ },
    ],
    [
      'propose_at below 0',
      withName({ x: { type: 'string', 'x-knowledge': { propose_at: -0.1 } } }),
      { field: 'schema.properties.x.x-knowledge.propose_at', message: /\[0, 1\]/ },
    ],
    [
      'an unknown sensitivity',
      withName({ x: { type: 'string', 'x-knowledge': { sensitivity: 'secret' } } }),
      { field: 'schema.properties.x.x-knowledge.sensitivity', message: /low, medium, high/ },
    ],
    [
      'an unknown provenance kind',
      withName({ x: { type: 'string', 'x-knowledge': { provenance: ['GUESS'] } } }),
      { field: 'schema.properties.x.x-knowledge.provenance.0', message: /AGENT_INPUT/ },
    ],
    [
      'an unknown derivation rule',
      withName({ x: { type: 'string', 'x-knowledge': { derive: { rule: 'magic', from: ['name'] } } } }),
      { field: 'schema.properties.x.x-knowledge.derive.rule', message: /domain_from_url/ },
    ],
    [
      'a derivation naming an unknown field',
      withName({ x: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_url', from: ['site'] } } } }),
      { field: 'schema.properties.x.x-knowledge.derive.from', message: /unknown field 'site'/ },
    ],
    [
      'a field derived from itself',
      withName({ x: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_url', from: ['x'] } } } }),
      { field: 'schema.properties.x.x-knowledge.derive.from', message: /from itself/ },
    ],
    [
      'a derivation from a non-string field',
      withName({ n: { type: 'integer' }, x: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_url', from: ['n'] } } } }),
      { field: 'schema.properties.x.x-knowledge.derive.from', message: /not a string field/ },
    ],
    [
      'a derivation that excludes KG_INFERENCE',
      withName({
        w: { type: 'string' },
        x: { type: 'string', 'x-knowledge': { provenance: ['AGENT_INPUT'], derive: { rule: 'domain_from_url', from: ['w'] } } },
      }),
      { field: 'schema.properties.x.x-knowledge.provenance', message: /KG_INFERENCE/ },
    ],
    [
      'cardinality multi on a scalar',
      withName({ x: { type: 'string', 'x-knowledge': { cardinality: 'multi' } } }),
      { field: 'schema.properties.x.x-knowledge.cardinality', message: /disagrees with type string/ },
    ],
    [
      'cardinality single on an array',
      withName({ x: { type: 'array', items: { type: 'string' }, 'x-knowledge': { cardinality: 'single' } } }),
      { field: 'schema.properties.x.x-knowledge.cardinality', message: /disagrees with type array/ },
    ],
    ['a reserved name (id)', withName({ id: { type: 'string' } }), { field: 'schema.properties.id', message: /reserved/ }],
    [
      'a reserved name (tenant_id)',
      withName({ tenant_id: { type: 'string' } }),
      { field: 'schema.properties.tenant_id', message: /reserved/ },
    ],
    [
      'a reserved name (constructor)',
      withName({ constructor: { type: 'string' } }),
      { field: 'schema.properties.constructor', message: /reserved/ },
    ],
    [
      'a reserved name (__proto__)',
      {
        schema_version: '1.0.0',
        schema: JSON.parse(
          '{"type":"object","required":["name"],"properties":{"name":{"type":"string","x-knowledge":{"identity":true}},"__proto__":{"type":"string"}}}',
        ),
      },
      { field: 'schema.properties.__proto__', message: /reserved/ },
    ],
    ['a name starting with $', withName({ $x: { type: 'string' } }), { field: 'schema.properties.$x', message: /reserved/ }],
    ['a name starting with _', withName({ _x: { type: 'string' } }), { field: 'schema.properties._x', message: /reserved/ }],
    ['a name with a dot', withName({ 'a.b': { type: 'string' } }), { field: 'schema.properties.a.b', message: /letters, digits or _/ }],
    [
      'an over-long name',
      withName({ ['n'.repeat(65)]: { type: 'string' } }),
      { field: `schema.properties.${'n'.repeat(65)}`, message: /too long/ },
    ],
    [
      'too many fields',
      body(Object.fromEntries(Array.from({ length: MAX_FIELDS }, (_, i) => [`f${i}`, { type: 'string' }]))),
      { field: 'schema.properties', message: /too many fields \(101; at most 100\)/ },
    ],
    [
      'a pattern (ReDoS)',
      withName({ x: { type: 'string', pattern: '^(a+)+$' } }),
      { field: 'schema.properties.x.pattern', message: /ReDoS/ },
    ],
    [
      'an unsupported keyword',
      withName({ x: { type: 'string', oneOf: [] } }),
      { field: 'schema.properties.x.oneOf', message: /unsupported JSON Schema keyword 'oneOf'/ },
    ],
    ['a $ref', withName({ x: { $ref: '#/defs/x', type: 'string' } }), { field: 'schema.properties.x.$ref', message: /self-contained/ }],
    [
      'an unsupported type',
      withName({ x: { type: 'object' } }),
      { field: 'schema.properties.x.type', message: /string, number, integer, boolean, array/ },
    ],
    ['a type list with null', withName({ x: { type: ['string', 'null'] } }), { field: 'schema.properties.x.type', message: /single type/ }],
    ['a missing type', withName({ x: { title: 'X' } }), { field: 'schema.properties.x.type', message: /is required/ }],
    ['a field schema that is not an object', withName({ x: 'string' }), { field: 'schema.properties.x', message: /JSON Schema object/ }],
    [
      'an unsupported format',
      withName({ x: { type: 'string', format: 'hostname' } }),
      { field: 'schema.properties.x.format', message: /email, uri, date, date-time/ },
    ],
    [
      'a format on a number',
      withName({ x: { type: 'number', format: 'email' } }),
      { field: 'schema.properties.x.format', message: /does not apply to type number/ },
    ],
    [
      'maxLength on an integer',
      withName({ x: { type: 'integer', maxLength: 3 } }),
      { field: 'schema.properties.x.maxLength', message: /does not apply/ },
    ],
    [
      'a negative maxLength',
      withName({ x: { type: 'string', maxLength: -1 } }),
      { field: 'schema.properties.x.maxLength', message: /non-negative integer/ },
    ],
    [
      'minLength above maxLength',
      withName({ x: { type: 'string', minLength: 5, maxLength: 2 } }),
      { field: 'schema.properties.x.minLength', message: /above maxLength/ },
    ],
    [
      'minimum above maximum',
      withName({ x: { type: 'number', minimum: 5, maximum: 2 } }),
      { field: 'schema.properties.x.minimum', message: /above maximum/ },
    ],
    [
      'enum values of another type',
      withName({ x: { type: 'integer', enum: [1, 'two'] } }),
      { field: 'schema.properties.x.enum', message: /of type integer/ },
    ],
    [
      'duplicate enum values',
      withName({ x: { type: 'string', enum: ['a', 'a'] } }),
      { field: 'schema.properties.x.enum', message: /unique/ },
    ],
    ['an empty enum', withName({ x: { type: 'string', enum: [] } }), { field: 'schema.properties.x.enum', message: /at least one/ }],
    ['an array without items', withName({ x: { type: 'array' } }), { field: 'schema.properties.x.items', message: /must declare items/ }],
    [
      'nested arrays',
      withName({ x: { type: 'array', items: { type: 'array' } } }),
      { field: 'schema.properties.x.items.type', message: /nested arrays/ },
    ],
    [
      'an annotation on items',
      withName({ x: { type: 'array', items: { type: 'string', 'x-knowledge': {} } } }),
      { field: 'schema.properties.x.items.x-knowledge', message: /belongs on the field/ },
    ],
    [
      'a required entry naming no field',
      body({}, { required: ['name', 'nmae'] }),
      { field: 'schema.required.1', message: /names no field/ },
    ],
    ['a required entry twice', body({}, { required: ['name', 'name'] }), { field: 'schema.required.1', message: /twice/ }],
    [
      'no identity field',
      { schema_version: '1.0.0', schema: { type: 'object', properties: { x: { type: 'string' } } } },
      { field: 'schema.properties', message: /at least one field must be an identity field/ },
    ],
    [
      'an identity field that is not required',
      body({}, { required: [] }),
      { field: 'schema.properties.name.x-knowledge.identity', message: /must be required/ },
    ],
    [
      'an identity field that is not a string',
      {
        schema_version: '1.0.0',
        schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer', 'x-knowledge': { identity: true } } } },
      },
      { field: 'schema.properties.n.x-knowledge.identity', message: /type string/ },
    ],
    [
      'every weight zero',
      {
        schema_version: '1.0.0',
        schema: { type: 'object', required: ['n'], properties: { n: { type: 'string', 'x-knowledge': { identity: true, weight: 0 } } } },
      },
      { field: 'schema.properties', message: /weight 0/ },
    ],
    [
      'no fields at all',
      { schema_version: '1.0.0', schema: { type: 'object', properties: {} } },
      { field: 'schema.properties', message: /at least one field/ },
    ],
    ['a schema that is not an object', { schema_version: '1.0.0', schema: 'object' }, { field: 'schema', message: /JSON Schema object/ }],
  ];
  it.each(bad)('refuses %s', (_, input, expected) => {
    const problems = problemsOf('thing', input);
    expect(problems).toContainEqual({ field: expected.field, message: expect.stringMatching(expected.message) });
  });

  it('refuses a type name that cannot travel in a URL path', () => {
    expect(problemsOf('Has Space', body({}))).toContainEqual({ field: 'type', message: expect.stringMatching(/lower-case/) });
  });

  it('refuses a derivation cycle and names each field on it', () => {
    const problems = problemsOf(
      'thing',
      body({
        a: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_url', from: ['b'] } } },
        b: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_url', from: ['c'] } } },
        c: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_url', from: ['a'] } } },
      }),
    );
    expect(problems).toEqual([
      { field: 'schema.properties.a.x-knowledge.derive.from', message: 'derivations form a cycle: a ← b ← c ← a' },
      { field: 'schema.properties.b.x-knowledge.derive.from', message: 'derivations form a cycle: b ← c ← a ← b' },
      { field: 'schema.properties.c.x-knowledge.derive.from', message: 'derivations form a cycle: c ← a ← b ← c' },
    ]);
  });

  it('lists every problem of a structure with many, not just the first', () => {
    const problems = problemsOf('thing', {
      schema_version: 'one',
      schema: {
        type: 'object',
        required: ['name', 'ghost'],
        properties: {
          name: { type: 'string', 'x-knowledge': { identity: true, weight: -2, colour: 'red' } },
          id: { type: 'string' },
          code: { type: 'string', pattern: 'a+' },
          rank: { type: 'number', 'x-knowledge': { commit_at: 0.4, propose_at: 0.6 } },
          a: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_url', from: ['b'] } } },
          b: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_url', from: ['a', 'nowhere'] } } },
        },
      },
    });
    expect(problems.map((p) => p.field).sort()).toEqual(
      [
        'schema_version',
        'schema.required.1',
        'schema.properties.name.x-knowledge.weight',
        'schema.properties.name.x-knowledge.colour',
        'schema.properties.id',
        'schema.properties.code.pattern',
        'schema.properties.rank.x-knowledge.propose_at',
        'schema.properties.a.x-knowledge.derive.from',
        'schema.properties.b.x-knowledge.derive.from',
        'schema.properties.b.x-knowledge.derive.from',
      ].sort(),
    );
  });

  it('reserves every Object.prototype name and the envelope identifiers', () => {
    for (const name of [
      'id',
      'tenant_id',
      'ks_id',
      'ks_type',
      'ko_id',
      'schema_version',
      '__proto__',
      'constructor',
      'prototype',
      'hasOwnProperty',
      'toString',
      'valueOf',
    ]) {
      expect(RESERVED_FIELD_NAMES.has(name), name).toBe(true);
    }
    expect(RESERVED_FIELD_NAMES.has('status')).toBe(false);
  });
});

describe('built-in structures', () => {
  it.each(BUILTIN_TYPES)('%s 1.0.0 passes the same parser as a tenant structure, name the required identity', (type) => {
    const def = BUILTIN_STRUCTURES[type];
    expect(def.version).toBe('1.0.0');
    expect(def.identityFields).toEqual(['name']);
    expect(def.fields.name!.required).toBe(true);
    expect(isBuiltinType(type)).toBe(true);
    // The published schema parses again to the same definition: the built-in is an ordinary structure.
    expect(define(type, { schema_version: def.version, schema: def.schema })).toEqual(def);
    const heaviest = Math.max(...def.fieldNames.map((n) => def.fields[n]!.annotation.weight));
    expect(def.fields.name!.annotation.weight).toBe(heaviest);
  });

  it('declare the fields of the spec', () => {
    expect(BUILTIN_STRUCTURES.person.fieldNames).toEqual(['name', 'email', 'phone', 'employer', 'job_title', 'location', 'manager']);
    expect(BUILTIN_STRUCTURES.organization.fieldNames).toEqual(['name', 'domain', 'website', 'industry', 'headquarters']);
    expect(BUILTIN_STRUCTURES.project.fieldNames).toEqual(['name', 'owner', 'organization', 'status', 'due_date']);
    expect(BUILTIN_STRUCTURES.project.fields.status!.schema).toMatchObject({ enum: ['planned', 'active', 'paused', 'done'] });
    expect(BUILTIN_STRUCTURES.project.fields.due_date!.schema).toMatchObject({ format: 'date' });
    expect(BUILTIN_STRUCTURES.organization.fields.website!.schema).toMatchObject({ format: 'uri' });
    expect(BUILTIN_STRUCTURES.person.fields.email!.schema).toMatchObject({ format: 'email' });
    expect(isBuiltinType('invoice')).toBe(false);
  });

  it("keep a person's contact data from outside engines and derive an organization's domain from its website", () => {
    for (const field of ['email', 'phone']) {
      const annotation = BUILTIN_STRUCTURES.person.fields[field]!.annotation;
      expect(annotation.sensitivity).toBe('high');
      expect(annotation.provenance).not.toContain('LLM_INFERENCE');
      expect(annotation.provenance).not.toContain('WEB_INFERENCE');
    }
    expect(BUILTIN_STRUCTURES.organization.fields.domain!.annotation.derive).toEqual({ rule: 'domain_from_url', from: ['website'] });
    const derived = BUILTIN_STRUCTURES.person.fieldNames.filter((n) => BUILTIN_STRUCTURES.person.fields[n]!.annotation.derive);
    expect(derived).toEqual([]);
  });
});
