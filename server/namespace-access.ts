import { AppError } from './errors.js';

/**
 * The one namespace rule of an API key, used by every route and port that reads or writes memories
 * (memory service, search service, write queue, usage): `null` allows every namespace; a list
 * allows only those. Naming a forbidden namespace is 403 `NAMESPACE_FORBIDDEN`; a memory in a
 * forbidden namespace is treated as absent (404), like another tenant's.
 */
export type AllowedNamespaces = readonly string[] | null;

/** Whether a key with these restrictions may read or write memories in `namespace`. */
export function mayUseNamespace(allowed: AllowedNamespaces, namespace: string): boolean {
  return allowed === null || allowed.includes(namespace);
}

/** Throws 403 NAMESPACE_FORBIDDEN unless the key may use the namespace it named. */
export function assertNamespaceAllowed(allowed: AllowedNamespaces, namespace: string): void {
  if (!mayUseNamespace(allowed, namespace)) throw new AppError('NAMESPACE_FORBIDDEN', `API key may not use namespace '${namespace}'`);
}

/**
 * The namespaces a read covers: the one the caller named (403 when forbidden), else every
 * namespace the key may use (null: all of them).
 */
export function namespacesInScope(allowed: AllowedNamespaces, requested: string | undefined): string[] | null {
  if (requested === undefined) return allowed === null ? null : [...allowed];
  assertNamespaceAllowed(allowed, requested);
  return [requested];
}
