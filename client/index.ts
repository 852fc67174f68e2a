import { createTRPCClient, httpBatchLink, httpLink, retryLink, splitLink, type Operation, type TRPCClient } from '@trpc/client';
import superjson from 'superjson';
import type { AppRouter } from '../routers/_app.js';

/** The server refuses a `/trpc` batch of more calls (`MAX_BATCH_CALLS` in server/trpc.ts; the client imports no server code, so test/e2e/http-edge-config.test.ts pins the two together). */
const MAX_BATCH_CALLS = 100;

export type { AppRouter };

export interface ClientOptions {
  /** Base URL of the service, e.g. http://localhost:8080 (the client talks to `${url}/trpc`). */
  url: string;
  /** API key secret for memory, knowledge and usage procedures (sent as X-API-Key). */
  apiKey?: string;
  /** Access token for bearer procedures, or a function returning the current one. */
  accessToken?: string | (() => string | undefined);
  /** Extra headers on every call (e.g. X-Tenant-ID), or a function read at each call (the portal's tenant and CSRF token). */
  headers?: Record<string, string> | (() => Record<string, string>);
  /** Batch concurrent calls into one HTTP request (default true). */
  batch?: boolean;
  /** Attempts for a call that failed at the network level (default 3); see `retriable`. */
  attempts?: number;
  fetch?: typeof fetch;
}

/**
 * Per-call options, passed as `{ context }` in the second argument of `query`/`mutate`:
 * `client.memories.create.mutate(input, { context: { idempotencyKey: 'turn-17' } })`.
 */
export interface CallContext {
  /** Sent as `Idempotency-Key`: the server answers a retried write once. */
  idempotencyKey?: string;
  /** Headers for this call only (e.g. the portal's `X-Step-Up-Token`). */
  headers?: Record<string, string>;
}

const idempotencyKeyOf = (op: Operation): string | undefined => (op.context as CallContext).idempotencyKey;
const callHeadersOf = (op: Operation): Record<string, string> | undefined => (op.context as CallContext).headers;
/** A call with its own headers travels alone, so they cannot apply to other calls of a batch. */
const travelsAlone = (op: Operation) => idempotencyKeyOf(op) !== undefined || callHeadersOf(op) !== undefined;

/**
 * Network failures (a reset connection, a keep-alive socket closed under us) are retried for reads,
 * and for writes only when they carry an idempotency key: a write without one might have been applied.
 */
function retriable(op: Operation, error: { data?: unknown; cause?: unknown }): boolean {
  const reachedServer = error.data !== undefined && error.data !== null;
  return !reachedServer && (op.type === 'query' || idempotencyKeyOf(op) !== undefined);
}

/** The end-to-end typed tRPC client used by the portal, the bench CLI and TypeScript users. */
export function createTenantMemoryClient(options: ClientOptions): TRPCClient<AppRouter> {
  const baseHeaders = () => {
    const h: Record<string, string> = { ...(typeof options.headers === 'function' ? options.headers() : (options.headers ?? {})) };
    if (options.apiKey) h['x-api-key'] = options.apiKey;
    const token = typeof options.accessToken === 'function' ? options.accessToken() : options.accessToken;
    if (token) h.authorization = `Bearer ${token}`;
    return h;
  };
  const url = `${options.url.replace(/\/$/, '')}/trpc`;
  const common = { url, transformer: superjson, ...(options.fetch ? { fetch: options.fetch } : {}) };
  // A call with its own idempotency key or headers travels alone, so its headers cannot apply to other calls.
  const single = httpLink({
    ...common,
    headers: ({ op }) => {
      const key = idempotencyKeyOf(op);
      const own = { ...baseHeaders(), ...callHeadersOf(op) };
      return key ? { ...own, 'idempotency-key': key } : own;
    },
  });
  const transport =
    options.batch === false
      ? single
      : splitLink({
          condition: travelsAlone,
          true: single,
          false: httpBatchLink({ ...common, headers: baseHeaders, maxItems: MAX_BATCH_CALLS }),
        });
  const attempts = options.attempts ?? 3;
  return createTRPCClient<AppRouter>({
    links: [
      retryLink({
        retry: ({ op, error, attempts: made }) => made < attempts && retriable(op, error),
        retryDelayMs: (attempt) => Math.min(2000, 100 * 2 ** attempt),
      }),
      transport,
    ],
  });
}
