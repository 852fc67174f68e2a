import { QdrantClient } from '@qdrant/js-client-rest';
import { guarded } from './errors.js';

/** How the adapter reaches Qdrant: a client given (tests), or the configured address. */
export interface QdrantClientOptions {
  /** `QDRANT_URL`: http or https, with a port or the scheme's default, and a path when a proxy serves Qdrant under one. */
  url?: string;
  /** `QDRANT_API_KEY`. */
  apiKey?: string;
  /** A client to use instead of constructing one. */
  client?: QdrantClient;
  /** Client-side budget of each request (default 10 s). */
  timeoutMs?: number;
  /** Budget of dropping a collection (default 5 minutes), apart from `timeoutMs`; with a given `client`, only Qdrant's wait. */
  dropTimeoutMs?: number;
}

const REQUEST_TIMEOUT_MS = 10_000;
const DROP_TIMEOUT_MS = 300_000;

/**
 * The constructor parameters that make the client talk to exactly `url`. The client reads only the
 * host of a `url`: a URL without a port goes to 6333 (its `port` default; `URL` also drops an explicit
 * :443 or :80, so even those went to 6333), and the path is ignored unless given as `prefix`, which it
 * refuses beside a `url` that has a path. So the port is always passed (the scheme's default when the
 * URL names none) and the path becomes the prefix.
 */
export function qdrantClientParams(url: string, apiKey: string | undefined, timeoutMs: number) {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`QDRANT_URL must be an http or https URL, not ${u.protocol}`);
  const path = u.pathname.replace(/\/+$/, '');
  return {
    url: `${u.protocol}//${u.host}`,
    port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80,
    ...(path ? { prefix: path } : {}),
    ...(apiKey ? { apiKey } : {}),
    timeout: timeoutMs,
    // The server version is checked by the adapter (the keyword channel needs formula queries), not by a console warning.
    checkCompatibility: false,
  };
}

/** The client given, or one for the configured address with a request budget of `timeoutMs`. */
export function clientOf(o: QdrantClientOptions, timeoutMs = o.timeoutMs ?? REQUEST_TIMEOUT_MS): QdrantClient {
  if (o.client) return o.client;
  if (!o.url) throw new Error('the Qdrant search index needs QDRANT_URL (or a client)');
  return new QdrantClient(qdrantClientParams(o.url, o.apiKey, timeoutMs));
}

/**
 * Drops a collection with a budget of its own: removing a large collection's segments can outlast
 * the per-request timeout, and Qdrant's own wait for a collection operation (10 s unless `timeout`
 * names another).
 */
export async function dropCollection(o: QdrantClientOptions, name: string): Promise<void> {
  const budgetMs = o.dropTimeoutMs ?? DROP_TIMEOUT_MS;
  // A little more on the client side, so Qdrant's answer to its own timeout arrives rather than an abort.
  const client = clientOf(o, budgetMs + 5_000);
  await guarded('reset', () => client.deleteCollection(name, { timeout: Math.ceil(budgetMs / 1000) }));
}
