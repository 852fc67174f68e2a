import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../adapters/rest/query.js';

describe('REST query parsing', () => {
  // Expected entries as arrays: an object literal's `__proto__` key would set its prototype instead.
  it.each<[string, [string, string[]][]]>([
    ['/memories', []],
    [
      '/memories?limit=5&namespace=a&namespace=b',
      [
        ['limit', ['5']],
        ['namespace', ['a', 'b']],
      ],
    ],
    ['/memories?constructor=1&constructor=2', [['constructor', ['1', '2']]]],
    [
      '/x?__proto__=x&toString=&hasOwnProperty=y',
      [
        ['__proto__', ['x']],
        ['toString', ['']],
        ['hasOwnProperty', ['y']],
      ],
    ],
    ['/x?q=a%20b+c&q=%E2%9C%93#frag', [['q', ['a b c', '✓']]]],
  ])('parses %s into a null-prototype record of every value', (url, expected) => {
    const query = parseQuery(url);
    expect(Object.getPrototypeOf(query)).toBeNull();
    expect(Object.entries(query)).toEqual(expected);
  });
});
