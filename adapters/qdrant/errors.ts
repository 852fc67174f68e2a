import { QdrantClientResourceExhaustedError, QdrantClientTimeoutError } from '@qdrant/js-client-rest';
import { AppError } from '../../server/errors.js';
import { SearchIndexConfigurationError } from '../../server/ports/search-index.js';

/** What a failed Qdrant call means. */
export type QdrantFailure =
  /** No connection (refused, reset, DNS), a timeout, or an aborted request. */
  | 'unreachable'
  /** 429: Qdrant sheds load. */
  | 'overloaded'
  /** 5xx: Qdrant (or a proxy before it) failing. */
  | 'server'
  /** 404 with Qdrant's "Collection `…` doesn't exist!": the collection is gone (dropped, or a reset running). */
  | 'collection_missing'
  /** 404 with Qdrant's "No point with id … found": a point the request names is gone. */
  | 'point_missing'
  /** Any other 404: nothing serves this path at QDRANT_URL (its path, a proxy, a server too old for the request). */
  | 'no_endpoint'
  /** 401/403: the API key is missing or no longer accepted (rotated on one side only). */
  | 'unauthorized'
  /** 413: a request size limit (Qdrant's, or a proxy's before it). */
  | 'too_large'
  /** Another 4xx: the request is wrong (a bug). */
  | 'rejected'
  | 'other';

/** Failures that mean "the dependency is not usable right now" (503), rather than a fault to fix. */
const UNAVAILABLE: ReadonlySet<QdrantFailure> = new Set(['unreachable', 'overloaded', 'server', 'collection_missing', 'point_missing']);

/**
 * Faults of the deployment, not of one request's content: every write fails alike until an operator
 * fixes the key, the address or the size limit. Still errors (500), not 503; but the index outbox must
 * not blame (and after a few runs set aside) every entry it tries meanwhile.
 */
const MISCONFIGURED: ReadonlySet<QdrantFailure> = new Set(['unauthorized', 'no_endpoint', 'too_large']);

const CONFIGURATION_HINT: Partial<Record<QdrantFailure, string>> = {
  unauthorized: 'Qdrant refused the API key: QDRANT_API_KEY must be a key the server accepts',
  too_large: "the request is larger than Qdrant (or a proxy before it) accepts: raise the limit or lower the outbox's batch size",
};

const CONNECTION_CODES = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_\w+)$/;

/** Qdrant's error text: `{"status": {"error": "Not found: …"}}` as parsed by the client, or the raw text. */
function qdrantMessage(data: unknown): string {
  if (typeof data === 'string') return data;
  const error = (data as { status?: { error?: unknown } } | null | undefined)?.status?.error;
  return typeof error === 'string' ? error : '';
}

function byStatus(status: number, message: string): QdrantFailure {
  if (status === 429) return 'overloaded';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 413) return 'too_large';
  if (status >= 500) return 'server';
  if (status === 404) {
    if (/Collection `[^`]*` doesn't exist/.test(message)) return 'collection_missing';
    if (/No point with id \S+ found/.test(message)) return 'point_missing';
    return 'no_endpoint';
  }
  return status >= 400 ? 'rejected' : 'other';
}

export function classifyQdrantError(err: unknown): QdrantFailure {
  if (err instanceof QdrantClientTimeoutError) return 'unreachable';
  if (err instanceof QdrantClientResourceExhaustedError) return 'overloaded';
  if (!(err instanceof Error)) return 'other';
  // undici: `TypeError: fetch failed` with the socket error as cause; AbortError when a signal fired.
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return 'unreachable';
  if (err instanceof TypeError && /fetch failed/i.test(err.message)) return 'unreachable';
  const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && CONNECTION_CODES.test(code)) return 'unreachable';
  // ApiError of @qdrant/openapi-typescript-fetch: the HTTP status and the parsed body.
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') return byStatus(status, qdrantMessage((err as { data?: unknown }).data));
  // QdrantClientUnexpectedResponseError: "Unexpected Response: 502 (Bad Gateway)\nRaw response content: …".
  const unexpected = err.name === 'QdrantClientUnexpectedResponseError' ? /Unexpected Response: (\d{3})\b/.exec(err.message) : null;
  if (unexpected) return byStatus(Number(unexpected[1]), err.message);
  return 'other';
}

/**
 * Qdrant failures that mean "the dependency is not usable right now": no connection, a timeout,
 * Qdrant overloaded (429) or failing (5xx), or the collection or a point it needs gone (Qdrant's 404
 * for those). A 404 without Qdrant's answer (no such path: a wrong QDRANT_URL, a server too old) and
 * other 4xx are faults to fix, not outages, and are not reported as 503.
 */
export function isUnavailable(err: unknown): boolean {
  return UNAVAILABLE.has(classifyQdrantError(err));
}

/**
 * Runs one Qdrant call; a dependency failure becomes `AppError('DEPENDENCY_UNAVAILABLE')` (HTTP 503)
 * whose message names the operation but no address or credential; the original error is its `cause`.
 */
export async function guarded<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toDependencyError(operation, err);
  }
}

const withCause = <E extends Error>(e: E, cause: unknown): E => Object.defineProperty(e, 'cause', { value: cause, enumerable: false });

export function toDependencyError(operation: string, err: unknown): unknown {
  if (err instanceof AppError) return err;
  const kind = classifyQdrantError(err);
  if (UNAVAILABLE.has(kind))
    return withCause(new AppError('DEPENDENCY_UNAVAILABLE', `the search index is unavailable (${operation})`), err);
  if (kind === 'no_endpoint') {
    return withCause(
      new SearchIndexConfigurationError(
        `Qdrant has no such endpoint (${operation}, 404): QDRANT_URL must be the address of Qdrant's REST API ` +
          '(with the path a proxy serves it under, if any), and the server recent enough for the request',
      ),
      err,
    );
  }
  if (MISCONFIGURED.has(kind)) {
    const detail = err instanceof Error ? `: ${err.message.slice(0, 200)}` : '';
    return withCause(new SearchIndexConfigurationError(`${CONFIGURATION_HINT[kind]} (${operation})${detail}`), err);
  }
  return err;
}

/** The readiness answer when the collection is missing: the index is unusable until it is created again. */
export function collectionMissing(operation: string): AppError {
  return new AppError('DEPENDENCY_UNAVAILABLE', `the search index is unavailable (${operation}: collection missing)`);
}
