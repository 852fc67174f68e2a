import type { IncomingMessage } from 'node:http';

/** A query string's values by key, with no prototype: a key named `constructor` is just a key. */
export type QueryRecord = Record<string, string[]>;

/**
 * Parses the request's query string into a null-prototype record of every value per key.
 *
 * trpc-to-openapi reads `req.query` when it is set (as express sets it) and otherwise builds one on
 * a plain object with `if (!parsed[key])`, which finds `Object.prototype` members: `?constructor=1`
 * threw before authentication and answered 500. Parsing here, with no prototype to look into, means
 * its parser never runs; keys the route's schema does not declare are then stripped by zod (or
 * refused, on a strict schema). A `__proto__` key is dropped when the library copies the record into
 * its input object (an assignment to `__proto__` never creates a key), so it can never reach a handler.
 */
export function parseQuery(url: string): QueryRecord {
  const query: QueryRecord = Object.create(null) as QueryRecord;
  const start = url.indexOf('?');
  if (start === -1) return query;
  const end = url.indexOf('#', start);
  new URLSearchParams(url.slice(start + 1, end === -1 ? undefined : end)).forEach((value, key) => {
    if (Object.hasOwn(query, key)) query[key]!.push(value);
    else query[key] = [value];
  });
  return query;
}

/** Hands trpc-to-openapi the query already parsed (see `parseQuery`). */
export function attachQuery(req: IncomingMessage): void {
  (req as IncomingMessage & { query?: QueryRecord }).query = parseQuery(req.url ?? '/');
}
