import { describe, expect, it } from 'vitest';
import { assertNamespaceAllowed, mayUseNamespace, namespacesInScope, type AllowedNamespaces } from '../../server/namespace-access.js';

/** The one namespace rule, as a table: every route and port that reads or writes memories uses it. */
describe('namespace access', () => {
  const cases: [AllowedNamespaces, string, boolean][] = [
    [null, 'default', true],
    [null, 'anything', true],
    [['a'], 'a', true],
    [['a'], 'b', false],
    [['a', 'b'], 'b', true],
    [['a'], 'A', false],
    [['a'], 'default', false],
  ];
  it.each(cases)('restrictions %j → namespace %s allowed: %s', (allowed, namespace, ok) => {
    expect(mayUseNamespace(allowed, namespace)).toBe(ok);
    if (ok) expect(() => assertNamespaceAllowed(allowed, namespace)).not.toThrow();
    else expect(() => assertNamespaceAllowed(allowed, namespace)).toThrow(expect.objectContaining({ code: 'NAMESPACE_FORBIDDEN' }));
  });

  it('scopes a read to the named namespace, or to every allowed one, and refuses a forbidden one', () => {
    expect(namespacesInScope(null, undefined)).toBeNull();
    expect(namespacesInScope(null, 'x')).toEqual(['x']);
    expect(namespacesInScope(['a', 'b'], undefined)).toEqual(['a', 'b']);
    expect(namespacesInScope(['a', 'b'], 'b')).toEqual(['b']);
    expect(() => namespacesInScope(['a'], 'b')).toThrow(expect.objectContaining({ code: 'NAMESPACE_FORBIDDEN' }));
  });
});
