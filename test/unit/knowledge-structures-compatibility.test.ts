import { describe, expect, it } from 'vitest';
import { fieldValueProblems } from '../../server/services/knowledge/field-values.js';
import { PROVENANCES, type FieldValue, type JsonValue } from '../../server/services/knowledge/model.js';
import { compareStructures } from '../../server/services/knowledge/structure-compatibility.js';
import {
  migrateFields,
  migrationPlanSchema,
  planMigration,
  type MigrationPlan,
} from '../../server/services/knowledge/structure-migration.js';
import { body, define } from '../support/knowledge-structures.js';

const ACTIVE_FIELDS = {
  title: { type: 'string', maxLength: 100, minLength: 1 },
  level: { type: 'string', enum: ['low', 'mid', 'high'] },
  score: { type: 'integer', minimum: 0, maximum: 10 },
  contact: { type: 'string', format: 'email', 'x-knowledge': { weight: 1, sensitivity: 'high' } },
  tags: { type: 'array', items: { type: 'string', maxLength: 20 }, maxItems: 5 },
  owner: { type: 'string' },
  code: { type: 'string' },
};
const active = define('task', body(ACTIVE_FIELDS, { required: ['name', 'code'] }));

/** A candidate 2.0.0: the active fields with `change` applied (a field set to undefined is removed). */
const candidate = (change: Record<string, unknown>, required = ['name', 'code']) => {
  const properties = Object.fromEntries(Object.entries({ ...ACTIVE_FIELDS, ...change }).filter(([, v]) => v !== undefined));
  return define('task', body(properties, { required, version: '2.0.0' }));
};

describe('compareStructures', () => {
  const compatible: [string, ReturnType<typeof candidate>][] = [
    ['no change at all', candidate({})],
    ['a new optional field', candidate({ due: { type: 'string', format: 'date' } })],
    ['a wider enum', candidate({ level: { type: 'string', enum: ['low', 'mid', 'high', 'urgent'] } })],
    ['an enum removed', candidate({ level: { type: 'string' } })],
    ['an old enum whose every value fits a new constraint', candidate({ level: { type: 'string', maxLength: 4 } })],
    ['a larger maxLength and a lower minLength', candidate({ title: { type: 'string', maxLength: 500 } })],
    ['a lower minimum and higher maximum', candidate({ score: { type: 'integer', minimum: -5, maximum: 100 } })],
    ['integer widened to number', candidate({ score: { type: 'number', minimum: 0, maximum: 10 } })],
    ['a format dropped', candidate({ contact: { type: 'string' } })],
    ['more items allowed', candidate({ tags: { type: 'array', items: { type: 'string' } } })],
    ['a field no longer required', candidate({}, ['name'])],
    [
      'weights, thresholds, sensitivity and provenance changed',
      candidate({
        contact: {
          type: 'string',
          format: 'email',
          'x-knowledge': { weight: 5, sensitivity: 'low', commit_at: 0.95, propose_at: 0.2, provenance: ['KG_INFERENCE'] },
        },
      }),
    ],
    [
      'a derivation added',
      candidate({ owner: { type: 'string', 'x-knowledge': { derive: { rule: 'domain_from_email', from: ['contact'] } } } }),
    ],
  ];
  it.each(compatible)('accepts %s', (_, next) => {
    expect(compareStructures(active, next)).toEqual([]);
  });

  const incompatible: [string, ReturnType<typeof candidate>, { field: string; kind: string; message: RegExp }][] = [
    [
      'a new required field',
      candidate({ region: { type: 'string' } }, ['name', 'code', 'region']),
      { field: 'region', kind: 'required_added', message: /new required field/ },
    ],
    [
      'an optional field made required',
      candidate({}, ['name', 'code', 'owner']),
      { field: 'owner', kind: 'required_added', message: /became required/ },
    ],
    ['a field removed', candidate({ owner: undefined }), { field: 'owner', kind: 'field_removed', message: /removed in 2.0.0/ }],
    ['string to number', candidate({ code: { type: 'number' } }), { field: 'code', kind: 'type_changed', message: /string → number/ }],
    [
      'a narrower enum',
      candidate({ level: { type: 'string', enum: ['low', 'high'] } }),
      { field: 'level', kind: 'constraint_narrowed', message: /no longer accepts "mid"/ },
    ],
    [
      'an enum added',
      candidate({ owner: { type: 'string', enum: ['me'] } }),
      { field: 'owner', kind: 'constraint_narrowed', message: /enum added/ },
    ],
    [
      'a format added',
      candidate({ owner: { type: 'string', format: 'email' } }),
      { field: 'owner', kind: 'constraint_narrowed', message: /format email added/ },
    ],
    [
      'a format changed',
      candidate({ contact: { type: 'string', format: 'uri' } }),
      { field: 'contact', kind: 'constraint_narrowed', message: /format email → uri/ },
    ],
    [
      'a raised minLength',
      candidate({ title: { type: 'string', maxLength: 100, minLength: 3 } }),
      { field: 'title', kind: 'constraint_narrowed', message: /minLength raised to 3/ },
    ],
    [
      'a lowered maxLength',
      candidate({ title: { type: 'string', maxLength: 10, minLength: 1 } }),
      { field: 'title', kind: 'constraint_narrowed', message: /maxLength lowered to 10/ },
    ],
    [
      'a raised minimum',
      candidate({ score: { type: 'integer', minimum: 1, maximum: 10 } }),
      { field: 'score', kind: 'constraint_narrowed', message: /minimum raised to 1/ },
    ],
    [
      'a lowered maximum',
      candidate({ score: { type: 'integer', minimum: 0, maximum: 9 } }),
      { field: 'score', kind: 'constraint_narrowed', message: /maximum lowered to 9/ },
    ],
    [
      'fewer items allowed',
      candidate({ tags: { type: 'array', items: { type: 'string', maxLength: 20 }, maxItems: 2 } }),
      { field: 'tags', kind: 'constraint_narrowed', message: /maxItems lowered to 2/ },
    ],
    [
      'narrower items',
      candidate({ tags: { type: 'array', items: { type: 'string', maxLength: 5 }, maxItems: 5 } }),
      { field: 'tags', kind: 'constraint_narrowed', message: /maxLength lowered to 5/ },
    ],
    [
      'single to multi',
      candidate({ owner: { type: 'array', items: { type: 'string' } } }),
      { field: 'owner', kind: 'cardinality_changed', message: /single → multi/ },
    ],
    ['multi to single', candidate({ tags: { type: 'string' } }), { field: 'tags', kind: 'cardinality_changed', message: /multi → single/ }],
    [
      'a new identity field',
      candidate({ code: { type: 'string', 'x-knowledge': { identity: true } } }),
      { field: 'code', kind: 'identity_changed', message: /became an identity field/ },
    ],
  ];
  it.each(incompatible)('lists %s with the field and why', (_, next, expected) => {
    expect(compareStructures(active, next)).toContainEqual({
      field: expected.field,
      kind: expected.kind,
      message: expect.stringMatching(expected.message),
    });
  });

  it('lists number narrowed to integer as a type change, the reverse of a compatible widening', () => {
    const withPrice = (type: string, version: string) => define('item', body({ price: { type } }, { version }));
    expect(compareStructures(withPrice('number', '1.0.0'), withPrice('integer', '2.0.0'))).toEqual([
      { field: 'price', kind: 'type_changed', message: 'type number → integer' },
    ]);
    expect(compareStructures(withPrice('integer', '1.0.0'), withPrice('number', '2.0.0'))).toEqual([]);
  });

  it('lists every change of a candidate with several', () => {
    const next = candidate(
      { owner: undefined, level: { type: 'string', enum: ['low'] }, tags: { type: 'string' }, region: { type: 'string' } },
      ['name', 'code', 'region'],
    );
    expect(compareStructures(active, next).map((c) => `${c.field}:${c.kind}`)).toEqual([
      'owner:field_removed',
      'level:constraint_narrowed',
      'tags:cardinality_changed',
      'region:required_added',
    ]);
  });
});

const parsePlan = (plan: unknown): MigrationPlan => migrationPlanSchema.parse(plan);

describe('planMigration', () => {
  const covered: [string, ReturnType<typeof candidate>, MigrationPlan | undefined][] = [
    ['a compatible candidate without a plan', candidate({ due: { type: 'string' } }), undefined],
    ['a removed field dropped', candidate({ owner: undefined }), { drop: ['owner'] }],
    ['a removed field renamed', candidate({ owner: undefined, lead: { type: 'string' } }), { rename: [{ from: 'owner', to: 'lead' }] }],
    [
      'a new required field with a default',
      candidate({ region: { type: 'string' } }, ['name', 'code', 'region']),
      { default: [{ field: 'region', value: 'emea' }] },
    ],
    [
      'a new required field renamed from a required one',
      candidate({ code: undefined, ref: { type: 'string' } }, ['name', 'ref']),
      { rename: [{ from: 'code', to: 'ref' }] },
    ],
    [
      'a field renamed from an optional one, made required with a default',
      candidate({ owner: undefined, lead: { type: 'string' } }, ['name', 'code', 'lead']),
      { rename: [{ from: 'owner', to: 'lead' }], default: [{ field: 'lead', value: 'nobody' }] },
    ],
    ['a narrowed field dropped', candidate({ level: { type: 'string', enum: ['low'] } }), { drop: ['level'] }],
    [
      'a narrowed field defaulted',
      candidate({ level: { type: 'string', enum: ['low'] } }),
      { default: [{ field: 'level', value: 'low' }] },
    ],
    ['a cardinality change dropped', candidate({ tags: { type: 'string' } }), { drop: ['tags'] }],
    [
      'a renamed field narrowed on the way, its target dropped',
      candidate({ title: undefined, heading: { type: 'string', maxLength: 10 } }),
      { rename: [{ from: 'title', to: 'heading' }], drop: ['heading'] },
    ],
    [
      'the identity field renamed',
      define('task', {
        schema_version: '2.0.0',
        schema: {
          type: 'object',
          required: ['full_name', 'code'],
          properties: { ...ACTIVE_FIELDS, full_name: { type: 'string', 'x-knowledge': { identity: true } } },
        },
      }),
      { rename: [{ from: 'name', to: 'full_name' }] },
    ],
  ];
  it.each(covered)('covers %s', (_, next, plan) => {
    const outcome = planMigration(active, next, plan);
    expect(outcome.ok ? [] : outcome.problems).toEqual([]);
  });

  const refused: [string, ReturnType<typeof candidate>, MigrationPlan | undefined, { field: string; message: RegExp }][] = [
    [
      'a removed field without a plan',
      candidate({ owner: undefined }),
      undefined,
      { field: 'schema.properties.owner', message: /needs a drop or a rename/ },
    ],
    [
      'a new required field without a default',
      candidate({ region: { type: 'string' } }, ['name', 'code', 'region']),
      { drop: [] },
      { field: 'schema.properties.region', message: /needs a default or a rename/ },
    ],
    [
      'a default the new field refuses',
      candidate({ region: { type: 'string', enum: ['emea'] } }, ['name', 'code', 'region']),
      { default: [{ field: 'region', value: 'mars' }] },
      { field: 'migration.default.0.value', message: /must be one of "emea"/ },
    ],
    [
      'a null default',
      candidate({ region: { type: 'string' } }, ['name', 'code', 'region']),
      { default: [{ field: 'region', value: null }] },
      { field: 'migration.default.0.value', message: /must be a value/ },
    ],
    [
      'a rename from an optional field into a required one',
      candidate({ owner: undefined, lead: { type: 'string' } }, ['name', 'code', 'lead']),
      { rename: [{ from: 'owner', to: 'lead' }] },
      { field: 'schema.properties.lead', message: /renamed from the optional 'owner'/ },
    ],
    [
      'a narrowed field without a plan',
      candidate({ score: { type: 'integer', minimum: 5 } }),
      undefined,
      { field: 'schema.properties.score', message: /needs a drop or a default/ },
    ],
    [
      'a narrowing rename',
      candidate({ title: undefined, heading: { type: 'string', maxLength: 10 } }),
      { rename: [{ from: 'title', to: 'heading' }] },
      { field: 'schema.properties.heading', message: /renamed from 'title'/ },
    ],
    [
      'a new identity field',
      candidate({ code: { type: 'string', 'x-knowledge': { identity: true } } }),
      undefined,
      { field: 'schema.properties', message: /identity fields change from \[name\] to \[name, code\]/ },
    ],
    [
      'a default for an identity field',
      candidate({ code: { type: 'string', 'x-knowledge': { identity: true } } }),
      { default: [{ field: 'code', value: 'x' }] },
      { field: 'migration.default.0.field', message: /same identity/ },
    ],
    [
      'a rename from an unknown field',
      candidate({ lead: { type: 'string' } }),
      { rename: [{ from: 'ghost', to: 'lead' }] },
      { field: 'migration.rename.0.from', message: /names no field of 1.0.0/ },
    ],
    [
      'a rename from a field the candidate keeps',
      candidate({ lead: { type: 'string' } }),
      { rename: [{ from: 'owner', to: 'lead' }] },
      { field: 'migration.rename.0.from', message: /still exists in 2.0.0/ },
    ],
    [
      'a rename onto an existing field',
      candidate({ owner: undefined }),
      { rename: [{ from: 'owner', to: 'code' }] },
      { field: 'migration.rename.0.to', message: /already exists in 1.0.0/ },
    ],
    [
      'a rename to nowhere',
      candidate({ owner: undefined }),
      { rename: [{ from: 'owner', to: 'lead' }] },
      { field: 'migration.rename.0.to', message: /names no field of 2.0.0/ },
    ],
    [
      'a field renamed twice',
      candidate({ owner: undefined, a: { type: 'string' }, b: { type: 'string' } }),
      {
        rename: [
          { from: 'owner', to: 'a' },
          { from: 'owner', to: 'b' },
        ],
      },
      { field: 'migration.rename.1.from', message: /renamed twice/ },
    ],
    [
      'a field renamed and dropped',
      candidate({ owner: undefined, lead: { type: 'string' } }),
      { rename: [{ from: 'owner', to: 'lead' }], drop: ['owner'] },
      { field: 'migration.rename.0.from', message: /both renamed and dropped/ },
    ],
    ['a drop of an unknown field', candidate({}), { drop: ['ghost'] }, { field: 'migration.drop.0', message: /names no field/ }],
    [
      'a default for an unknown field',
      candidate({}),
      { default: [{ field: 'ghost', value: 1 }] },
      { field: 'migration.default.0.field', message: /names no field of 2.0.0/ },
    ],
    [
      'two defaults for one field',
      candidate({}),
      {
        default: [
          { field: 'owner', value: 'a' },
          { field: 'owner', value: 'b' },
        ],
      },
      { field: 'migration.default.1.field', message: /two defaults/ },
    ],
  ];
  it.each(refused)('refuses %s', (_, next, plan, expected) => {
    const outcome = planMigration(active, next, plan);
    expect(outcome.ok ? [] : outcome.problems).toContainEqual({ field: expected.field, message: expect.stringMatching(expected.message) });
  });

  it('has a strict wire schema', () => {
    expect(migrationPlanSchema.safeParse({ renames: [] }).success).toBe(false);
    expect(migrationPlanSchema.safeParse({ rename: [{ from: 'a', to: 'b', why: 'x' }] }).success).toBe(false);
    expect(parsePlan({ rename: [{ from: 'a', to: 'b' }], drop: ['c'], default: [{ field: 'd', value: [1, 'x'] }] })).toEqual({
      rename: [{ from: 'a', to: 'b' }],
      drop: ['c'],
      default: [{ field: 'd', value: [1, 'x'] }],
    });
  });
});

const fv = (value: JsonValue, provenance: FieldValue['provenance'] = 'AGENT_INPUT', confidence = 1): FieldValue => ({
  value,
  confidence,
  provenance,
  updatedAt: '2025-01-01T00:00:00.000Z',
});
const AT = '2026-11-26T12:00:00.000Z';

describe('migrateFields', () => {
  const next = candidate(
    {
      owner: undefined,
      lead: { type: 'string' },
      title: undefined,
      level: { type: 'string', enum: ['low', 'high'] },
      score: { type: 'integer', maximum: 5 },
      region: { type: 'string' },
    },
    ['name', 'code', 'region'],
  );
  const planned = planMigration(active, next, {
    rename: [{ from: 'owner', to: 'lead' }],
    drop: ['title', 'score'],
    default: [
      { field: 'level', value: 'low' },
      { field: 'region', value: 'emea' },
    ],
  });
  if (!planned.ok) throw new Error(JSON.stringify(planned.problems));
  const migration = planned.migration;

  it('keeps untouched values, moves renamed ones whole, and logs every touched field', () => {
    const fields = {
      name: fv('Audit'),
      code: fv('A-1', 'KG_INFERENCE', 0.9),
      owner: fv('Rui'),
      title: fv('Quarterly audit'),
      level: fv('mid'),
      score: fv(8, 'LLM_INFERENCE', 0.85),
      contact: {
        value: null,
        confidence: 1,
        provenance: 'AGENT_INPUT',
        updatedAt: '2025-01-01T00:00:00.000Z',
        knownNone: true,
      } as FieldValue,
    };
    const { fields: out, touched } = migrateFields(fields, migration, next, AT);
    expect(out.name).toBe(fields.name);
    expect(out.code).toBe(fields.code);
    expect(out.contact).toBe(fields.contact);
    expect(out.lead).toBe(fields.owner);
    expect(out.level).toEqual({ value: 'low', confidence: 1, provenance: 'AGENT_INPUT', updatedAt: AT });
    expect(out.region).toEqual({ value: 'emea', confidence: 1, provenance: 'AGENT_INPUT', updatedAt: AT });
    expect(Object.keys(out).sort()).toEqual(['code', 'contact', 'lead', 'level', 'name', 'region']);
    expect(touched).toEqual([
      { field: 'lead', action: 'renamed', previous: fields.owner, from: 'owner' },
      { field: 'title', action: 'dropped', previous: fields.title },
      { field: 'level', action: 'defaulted', previous: fields.level },
      { field: 'score', action: 'dropped', previous: fields.score },
      { field: 'region', action: 'defaulted', previous: null },
    ]);
  });

  it('keeps a value the new version still accepts, even in a narrowed field with a default', () => {
    const fields = { name: fv('Audit'), code: fv('A-1'), level: fv('high'), score: fv(3), region: fv('apac') };
    const { fields: out, touched } = migrateFields(fields, migration, next, AT);
    expect(out).toEqual(fields);
    for (const name of Object.keys(fields)) expect(out[name]).toBe(fields[name as keyof typeof fields]);
    expect(touched).toEqual([]);
  });

  it('does not fill a missing optional field from a default', () => {
    const { fields: out } = migrateFields({ name: fv('Audit'), code: fv('A-1'), region: fv('apac') }, migration, next, AT);
    expect(out.level).toBeUndefined();
  });

  it('refuses to apply a migration planned for another version', () => {
    expect(() => migrateFields({}, migration, active, AT)).toThrow(/applied with 1.0.0/);
  });
});

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('migrating 1,000 objects', () => {
  it('never loses an AGENT_INPUT value the new version accepts, and leaves every object valid', () => {
    const next = candidate(
      {
        owner: undefined,
        lead: { type: 'string', maxLength: 12 },
        title: { type: 'string', maxLength: 20, minLength: 1 },
        level: { type: 'string', enum: ['low', 'mid'] },
        tags: { type: 'array', items: { type: 'string', maxLength: 6 }, maxItems: 3 },
        contact: undefined,
        region: { type: 'string', enum: ['emea', 'apac', 'amer'] },
      },
      ['name', 'code', 'region'],
    );
    const planned = planMigration(active, next, {
      rename: [{ from: 'owner', to: 'lead' }],
      drop: ['contact', 'tags', 'lead', 'title'],
      default: [
        { field: 'level', value: 'low' },
        { field: 'region', value: 'emea' },
      ],
    });
    if (!planned.ok) throw new Error(JSON.stringify(planned.problems));

    const rnd = random(23);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const word = (max: number) =>
      Array.from({ length: 1 + Math.floor(rnd() * max) }, () => pick('abcdefghijklmnopqrstuvwxyz'.split(''))).join('');
    const generators: Record<string, () => JsonValue> = {
      name: () => `${word(8)} ${word(8)}`,
      code: () => word(6),
      title: () => word(40),
      level: () => pick(['low', 'mid', 'high']),
      score: () => Math.floor(rnd() * 11),
      contact: () => `${word(6)}@${word(6)}.example`,
      tags: () => Array.from({ length: Math.floor(rnd() * 6) }, () => word(10)),
      owner: () => word(16),
    };
    const counts = { kept: 0, renamed: 0, dropped: 0, defaulted: 0 };
    for (let i = 0; i < 1000; i++) {
      const fields: Record<string, FieldValue> = {};
      for (const [name, make] of Object.entries(generators)) {
        if (name !== 'name' && name !== 'code' && rnd() < 0.25) continue;
        fields[name] = fv(make(), rnd() < 0.6 ? 'AGENT_INPUT' : pick(PROVENANCES.slice(1)), Math.round(rnd() * 100) / 100);
      }
      const { fields: out, touched } = migrateFields(fields, planned.migration, next, AT);

      for (const [name, value] of Object.entries(fields)) {
        const target = name === 'owner' ? 'lead' : name;
        const accepted = Object.hasOwn(next.fields, target) && fieldValueProblems(next, target, value.value).length === 0;
        if (value.provenance === 'AGENT_INPUT' && accepted) {
          expect(out[target], `object ${i} field ${name}`).toBe(value);
          counts.kept++;
        }
      }
      for (const [name, value] of Object.entries(out)) {
        expect(fieldValueProblems(next, name, value.value), `object ${i} field ${name}`).toEqual([]);
      }
      for (const name of next.fieldNames.filter((n) => next.fields[n]!.required))
        expect(out[name], `object ${i} misses ${name}`).toBeDefined();
      // Every difference between before and after is in the log, and nothing else is.
      const changed = new Set([...Object.keys(fields), ...Object.keys(out)].filter((n) => out[n] !== fields[n]));
      const logged = new Set(touched.flatMap((t) => (t.from ? [t.from, t.field] : [t.field])));
      for (const name of changed) expect(logged.has(name), `object ${i}: ${name} changed unlogged`).toBe(true);
      // A name logged without a visible change is a rename target whose value the new version refused.
      for (const name of [...logged].filter((n) => !changed.has(n))) {
        expect(touched.filter((t) => t.field === name).map((t) => t.action)).toEqual(['renamed', 'dropped']);
      }
      for (const t of touched) counts[t.action]++;
    }
    // The generated data exercised every path of the migration.
    expect(counts.kept).toBeGreaterThan(1000);
    expect(counts.renamed).toBeGreaterThan(100);
    expect(counts.dropped).toBeGreaterThan(100);
    expect(counts.defaulted).toBeGreaterThan(100);
  });
});
