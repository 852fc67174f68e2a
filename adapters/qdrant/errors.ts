import { QdrantClientResourceExhaustedError, QdrantClientTimeoutError } from '@qdrant/js-client-rest';
import { AppError } from '../../server/errors.js';

/**
 * Qdrant failures that mean "the dependency is not usable right now": no connection (refused, reset,
 * DNS), a timeout, Qdrant overloaded (429) or failing (5xx), or the collection gone (404 on a
 * collection path). A 4xx other than those is a bug in the request and is left as is (→ 500).
 */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof QdrantClientTimeoutError || err instanceof QdrantClientResourceExhaustedError) return true;
  if (!(err instanceof Error)) return false;
  // undici: `TypeError: fetch failed` with the socket error as cause; AbortError when a signal fired.
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return true;
  if (err instanceof TypeError && /fetch failed/i.test(err.message)) return true;
  const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
  if (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_\w+)$/.test(code)
  ) {
    return true;
  }
  // ApiError of @qdrant/openapi-typescript-fetch: carries the HTTP status.
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') return status === 404 || status === 429 || status >= 500;
  // QdrantClientUnexpectedResponseError for a non-JSON gateway answer ("Unexpected Response: 502 …").
  if (err.name === 'QdrantClientUnexpectedResponseError' && /Unexpected Response: (5\d\d|429|404)\b/.test(err.message)) return true;
  return false;
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

export function toDependencyError(operation: string, err: unknown): unknown {
  if (err instanceof AppError || !isUnavailable(err)) return err;
  const e = new AppError('DEPENDENCY_UNAVAILABLE', `the search index is unavailable (${operation})`);
  Object.defineProperty(e, 'cause', { value: err, enumerable: false });
  return e;
}
