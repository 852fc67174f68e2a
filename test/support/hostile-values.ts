import fc from 'fast-check';

/**
 * Hostile inputs for the fuzz suite, as fast-check arbitraries. JSON values are produced as JSON
 * *text* so that what JSON.stringify cannot write still reaches the server: 1e309, -0 as typed,
 * own `__proto__` keys, duplicate keys and nesting deeper than any recursive walker expects.
 */

/** Strings that have broken parsers, validators, loggers or storage somewhere. */
export const edgeStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDC00x',
  'x\uDBFF',
  '\u202Eevil\u202C',
  '\u200B',
  '\uFEFF',
  '\u2028\u2029',
  '👩‍👩‍👧‍👦',
  'e\u0301\u0301\u0301',
  '𝕏𝕐',
  'ǅ',
  '\u0007\u001b[31m',
  '\r\nX-Injected: 1',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e309',
  '-1e309',
  '9007199254740993',
  '-1',
  '0x1F',
  '1.5',
  ' 7 ',
  '1_000',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '../../etc/passwd',
  '%00',
  '%',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"',
  '\\',
  '*',
  'NEAR(a b)',
  'a AND OR NOT',
  ':memory:',
  '${7*7}',
  '{{7*7}}',
  'tmk_',
  'Bearer',
  'owner',
  'admin',
] as const;

const lengths = [2_001, 10_001, 70_001] as const;

/** Long runs of one character: past every maxLength, in 1-, 2- and 4-byte UTF-8 and NUL. */
export const hugeString = fc
  .tuple(fc.constantFrom(...lengths), fc.constantFrom('a', 'é', '\u0000', '😀', '\uD800'))
  .map(([n, c]) => c.repeat(n));

/** Any text: edge cases, arbitrary code points, lone surrogates, and mixtures of them. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...edgeStrings) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...edgeStrings), fc.string({ maxLength: 10 }), fc.constantFrom(...edgeStrings))
      .map((p) => p.join('')),
  },
  { weight: 1, arbitrary: hugeString },
);

/**
 * Percent-encodes like encodeURIComponent, but writes a lone surrogate as the (invalid) UTF-8 of
 * its code unit instead of throwing, so malformed UTF-8 reaches the server too.
 */
export function encodeLoose(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out +=
        `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    } else out += encodeURIComponent(ch);
  }
  return out;
}

/**
 * An already-encoded URL component: hostile text, or percent sequences no decoder should accept.
 * Kept under 6 KB encoded: a request head over Node's 16 KB cap is the oversized-header case.
 */
export const hostileUrlComponent: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: hostileText.map(encodeLoose).filter((s) => s.length <= 6_000) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%C0%AF', '%FF%FE', '%2e%2e%2f', '..', '.', '%E2%80%AE', 'a%00b', '%F0%9F') },
);

/** Header values fetch can send (no control characters but tab; Latin-1 only), long but under the 16 KB header cap. */
export const hostileHeader: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'Bearer',
    'Bearer ',
    'Bearer a.b.c',
    'Bearer eyJhbGciOiJub25lIn0.e30.',
    'tmk_',
    'tmk_' + 'A'.repeat(60),
    'W/"1"',
    '"-1"',
    '*',
    'null',
    '__proto__',
    'constructor',
    '1e309',
    '-0',
    'ÿþ',
    '\u0085',
    'x'.repeat(8_000),
  ),
  // eslint-disable-next-line no-control-regex -- the control characters are what it removes
  fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((s) => s.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '').trim()),
);

const rawNumbers = [
  '1e309',
  '-1e309',
  '-0',
  '9007199254740993',
  '1e-400',
  '0.1',
  '-1',
  '0',
  '1.5',
  '123456789012345678901234567890',
  '1E2',
];

/** JSON texts for one value of a field: every type but the expected one, edges of numbers and text. */
const scalarJson: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileText.map((s) => JSON.stringify(s)) },
  { weight: 2, arbitrary: fc.constantFrom(...rawNumbers) },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null', '"5"', '"true"', '[1]', '{}', '[]', '[[[]]]', '""') },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map((n) => JSON.stringify(n)) },
);

/** Nesting far deeper than any schema allows, as arrays and as objects. */
export const deepJson = fc
  .tuple(fc.constantFrom(64, 1_000, 10_000), fc.boolean())
  .map(([n, arrays]) => (arrays ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n)));

/** Objects whose keys are prototype members; parsed with JSON.parse they become own properties. */
export const prototypeObjects = [
  '{"__proto__":{"admin":true,"role":"owner"}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"toString":1,"valueOf":"x","hasOwnProperty":null}',
  '{"__proto__":null}',
] as const;

/** JSON text for a field's value: anything a hostile client might put there. */
export const hostileJson: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: scalarJson },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: fc.constantFrom(...prototypeObjects) },
  { weight: 2, arbitrary: fc.array(scalarJson, { maxLength: 4 }).map((items) => `[${items.join(',')}]`) },
  { weight: 1, arbitrary: fc.constantFrom(101, 10_001).map((n) => `[${new Array(n).fill('"x"').join(',')}]`) },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom('__proto__', 'constructor', 'prototype', ''),
            hostileText.filter((s) => s.length < 200),
          ),
          scalarJson,
        ),
        { maxLength: 4 },
      )
      .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  },
);

/** Whole request bodies that are not the object a route expects, or not JSON at all. */
export const hostileBodies: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: hostileJson },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '{"a":1,}',
      '{"a":1}{"b":2}',
      "{'a':1}",
      'NaN',
      '\u0000',
      '\uFEFF{}',
      '{"content":"a","content":{"x":1}}',
      'null',
      '[{}]',
      '{"a":"\\uD800"}',
      '{"a":"\\u0000"}',
    ),
  },
);
