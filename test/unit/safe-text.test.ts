import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { appRouter } from '../../routers/_app.js';
import { NAMESPACE_PATTERN } from '../../server/schemas/namespace.js';
import { safeText, storableText, unsafeTextReason, visibleText } from '../../server/schemas/safe-text.js';

describe('unsafeTextReason', () => {
  it.each([
    ['NUL', 'ab\u0000cd', 'U+0000 at index 2'],
    ['SOH', '\u0001', 'U+0001'],
    ['vertical tab', 'a\u000Bb', 'U+000B'],
    ['escape', '\u001B[31mred', 'U+001B'],
    ['DEL', 'x\u007F', 'U+007F'],
    ['C1 next line', 'a\u0085b', 'U+0085'],
    ['C1 last', '\u009F', 'U+009F'],
    ['lone high surrogate', 'a\uD800b', 'lone surrogate U+D800'],
    ['lone low surrogate', '\uDC00', 'lone surrogate U+DC00'],
  ])('refuses %s', (_name, value, expected) => {
    expect(unsafeTextReason(value)).toContain(expected);
  });

  it.each([
    ['tab, line feed, carriage return', 'a\tb\nc\r\nd'],
    ['non-ASCII letters', 'Grüße aus Zürich, 東京, Привет'],
    ['an astral code point (a valid surrogate pair)', 'ok 😀 \u{1F600}'],
    ['no-break space and soft hyphen (visible or layout, not control)', 'a\u00A0b\u00ADc'],
    ['format characters real text needs (emoji joiner, right-to-left mark)', '👩\u200D💻 \u200Fשלום'],
  ])('keeps %s', (_name, value) => {
    expect(unsafeTextReason(value)).toBeNull();
    expect(safeText().parse(value)).toBe(value);
  });
});

// ---- every free-text string of every procedure's input carries the check ----

type Node = { _zod: { def: Record<string, unknown> & { type: string } } };

/** Strings that need no check, and why. */
function exempt(path: string, def: Node['_zod']['def']): boolean {
  // Hashed and compared, never stored or shown as text; a password must keep every character its owner chose.
  if (path.endsWith('.password')) return true;
  // Closed ASCII alphabets checked by their own format.
  if (def.format === 'uuid' || def.format === 'datetime') return true;
  const checks = (def.checks ?? []) as Node[];
  return checks.some((c) => c._zod.def.format === 'regex' && c._zod.def.pattern === NAMESPACE_PATTERN);
}

/** Strings bounded some other way than a schema `max`, and how. */
function boundedElsewhere(path: string, def: Node['_zod']['def']): boolean {
  // Memory content: MEMORY_CONTENT_MAX_BYTES in bytes, checked by the memory service (413).
  if (path.endsWith('.content')) return true;
  return exempt(path, def) && !path.endsWith('.password');
}

function stringsWithoutCheck(schema: Node, path: string, found: string[], unbounded: string[] = []): void {
  const def = schema._zod.def;
  const walk = (child: Node, childPath: string) => stringsWithoutCheck(child, childPath, found, unbounded);
  switch (def.type) {
    case 'string': {
      const checks = (def.checks ?? []) as Node[];
      if (!checks.includes(visibleText as unknown as Node) && !exempt(path, def)) found.push(path);
      if (!checks.some((c) => c._zod.def.check === 'max_length') && !boundedElsewhere(path, def)) unbounded.push(path);
      return;
    }
    case 'object':
      for (const [key, value] of Object.entries(def.shape as Record<string, Node>)) walk(value, `${path}.${key}`);
      return;
    case 'array':
      return walk(def.element as Node, `${path}[]`);
    case 'record':
      walk(def.keyType as Node, `${path}{key}`);
      return walk(def.valueType as Node, `${path}{value}`);
    case 'union':
      for (const option of def.options as Node[]) walk(option, path);
      return;
    case 'pipe':
      walk(def.in as Node, path);
      return walk(def.out as Node, path);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return walk(def.innerType as Node, path);
    default:
      return; // enums, literals, numbers, booleans, transforms: no free text
  }
}

describe('input schemas', () => {
  const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { inputs: Node[] } }> } })._def.procedures;

  it('every free-text string of every procedure refuses invisible control characters', () => {
    const missing: string[] = [];
    for (const [name, procedure] of Object.entries(procedures)) {
      for (const input of procedure._def.inputs) stringsWithoutCheck(input, name, missing);
    }
    expect(missing).toEqual([]);
  });

  it('every string of every procedure has a maximum length', () => {
    const unbounded: string[] = [];
    for (const [name, procedure] of Object.entries(procedures)) {
      for (const input of procedure._def.inputs) stringsWithoutCheck(input, name, [], unbounded);
    }
    expect(unbounded).toEqual([]);
  });

  it('the walk sees the fields it guards (a guard that visits nothing proves nothing)', () => {
    const seen: string[] = [];
    const visit = (schema: Node, path: string) => stringsWithoutCheck(schema, path, seen);
    // Feeding the walk a bare z.string() at a known path must report that path.
    visit({ _zod: { def: { type: 'object', shape: { title: { _zod: { def: { type: 'string', checks: [] } } } } } } }, 'x');
    expect(seen).toEqual(['x.title']);
    expect(Object.keys(procedures).length).toBeGreaterThan(30);
  });
});

describe('storableText', () => {
  it.each([
    ['short text unchanged', 'curl/8.5', 10, 'curl/8.5'],
    ['cut to the bound', 'abcdefgh', 5, 'abcde'],
    ['never through a surrogate pair', 'abcd😀', 5, 'abcd'],
    ['a whole pair that fits is kept', 'abc😀', 5, 'abc😀'],
    ['C1 and C0 controls dropped before measuring', 'a\u0085b\u0000c\u007Fd', 3, 'abc'],
  ])('%s', (_name, value, max, expected) => {
    expect(storableText(value, max)).toBe(expected);
  });
});

describe('why a NUL is refused rather than stored', () => {
  it('libsql keeps the bytes of a bound string but reads TEXT back only up to the first NUL', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (v TEXT)');
      db.prepare('INSERT INTO t VALUES (?)').run('ab\u0000cd');
      const row = db.prepare('SELECT v, hex(v) AS bytes, length(v) AS len FROM t').get() as { v: string; bytes: string; len: number };
      // If this starts failing, libsql keeps NULs now: the refusal could become "kept intact".
      expect(row).toMatchObject({ v: 'ab', bytes: '6162006364', len: 2 });
    } finally {
      db.close();
    }
  });
});
