import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { createTenantMemoryClient, type AppRouter } from '../../index.js';

/**
 * The portal's one connection to the server: the typed tRPC client on the same origin (`/trpc`, the
 * session cookie rides along), sending the URL's tenant as `X-Tenant-ID` and the session's CSRF token
 * on every call. Both are read at call time, so a tab follows its own URL.
 */
const current = { tenantId: undefined as string | undefined, csrfToken: undefined as string | undefined };

export function setCsrfToken(token: string | undefined): void {
  current.csrfToken = token;
}

export function currentTenantId(): string | undefined {
  return current.tenantId;
}

/** Switches the tenant calls go to; drops every cached answer that belonged to the previous one. */
export function setTenantId(tenantId: string | undefined): void {
  if (current.tenantId === tenantId) return;
  const hadTenant = current.tenantId !== undefined;
  current.tenantId = tenantId;
  if (hadTenant) queryClient.removeQueries({ predicate: (q) => !userLevel(q.queryKey) });
}

/** Queries about the signed-in user rather than a tenant survive a tenant switch. */
function userLevel(key: readonly unknown[]): boolean {
  const path = key[0];
  return Array.isArray(path) && path[0] === 'portal' && (path[1] === 'session' || path[1] === 'tenants');
}

function headers(): Record<string, string> {
  const h: Record<string, string> = {};
  if (current.tenantId) h['x-tenant-id'] = current.tenantId;
  if (current.csrfToken) h['x-csrf-token'] = current.csrfToken;
  return h;
}

export const client = createTenantMemoryClient({ url: '', headers, attempts: 2 });

/** Called with every failed call; the app sends a 401 (no session, or it ended) to the sign-in page. */
const failureListeners = new Set<(error: unknown) => void>();
export function onCallFailure(listener: (error: unknown) => void): () => void {
  failureListeners.add(listener);
  return () => failureListeners.delete(listener);
}
const reportFailure = (error: unknown) => failureListeners.forEach((listener) => listener(error));

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: reportFailure }),
  mutationCache: new MutationCache({ onError: reportFailure }),
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // An answer from the server (401, 403, 404…) will not change on a retry; a network failure might.
      retry: (count, error) => count < 2 && httpStatusOf(error) === undefined,
    },
  },
});

export const trpc = createTRPCOptionsProxy<AppRouter>({ client, queryClient });

/** The error body every route answers with (`server/error-body.ts`), carried by tRPC errors as `data.app`. */
export interface ApiErrorBody {
  code: string;
  message: string;
  request_id?: string;
  fields?: { field: string; message: string }[];
}

export function httpStatusOf(error: unknown): number | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const status = (error.data as { httpStatus?: unknown } | undefined)?.httpStatus;
  return typeof status === 'number' ? status : undefined;
}

export function errorBodyOf(error: unknown): ApiErrorBody {
  if (error instanceof TRPCClientError) {
    const app = (error.data as { app?: ApiErrorBody } | undefined)?.app;
    if (app) return app;
    return { code: 'NETWORK', message: error.message || 'the server could not be reached' };
  }
  return { code: 'UNKNOWN', message: error instanceof Error ? error.message : String(error) };
}

export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type PortalSession = RouterOutputs['portal']['session'];
export type PortalTenant = PortalSession['tenants'][number];
export type StepUpAction = RouterInputs['portal']['stepUp']['action'];
