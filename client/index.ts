import { createTRPCClient, httpBatchLink, httpLink, type TRPCClient } from '@trpc/client';
import superjson from 'superjson';
import type { AppRouter } from '../routers/_app.js';

export type { AppRouter };

export interface ClientOptions {
  /** Base URL of the service, e.g. http://localhost:8080 (the client talks to `${url}/trpc`). */
  url: string;
  /** API key secret for memory, knowledge and usage procedures (sent as X-API-Key). */
  apiKey?: string;
  /** Access token for bearer procedures, or a function returning the current one. */
  accessToken?: string | (() => string | undefined);
  /** Extra headers on every call (e.g. X-Tenant-ID). */
  headers?: Record<string, string>;
  /** Batch concurrent calls into one HTTP request (default true). */
  batch?: boolean;
  fetch?: typeof fetch;
}

/** The end-to-end typed tRPC client used by the portal, the bench CLI and TypeScript users. */
export function createTenantMemoryClient(options: ClientOptions): TRPCClient<AppRouter> {
  const headers = () => {
    const h: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.apiKey) h['x-api-key'] = options.apiKey;
    const token = typeof options.accessToken === 'function' ? options.accessToken() : options.accessToken;
    if (token) h.authorization = `Bearer ${token}`;
    return h;
  };
  const linkOptions = { url: `${options.url.replace(/\/$/, '')}/trpc`, transformer: superjson, headers, ...(options.fetch ? { fetch: options.fetch } : {}) };
  return createTRPCClient<AppRouter>({
    links: [options.batch === false ? httpLink(linkOptions) : httpBatchLink(linkOptions)],
  });
}
