import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { RequestContext } from './context.js';
import { toErrorBody } from './error-body.js';
import { AppError, errorCatalog } from './errors.js';
import type { ApiKeyScope } from './principal.js';
import type { StepUpAction } from './services/auth.js';
import type { Permission } from './services/roles.js';

/**
 * Extra procedure metadata: which credential a REST route takes, for the OpenAPI document, and the
 * permission or scope it requires, recorded by `requirePermission`/`requireScope` so the permission
 * matrix test reads every route's requirement from the routers themselves.
 */
export type RouteMeta = OpenApiMeta<{
  /**
   * `apiKeyOrBearer`: an API key with `scope`, or a bearer token whose role has `permission` (`requireScopeOrPermission`).
   * `portal`: the web portal's session cookie only (`server/portal-procedures.ts`).
   */
  auth?: 'none' | 'bearer' | 'apiKey' | 'apiKeyOrBearer' | 'portal';
  permission?: Permission;
  scope?: ApiKeyScope;
  /** The step-up action a portal route always needs (`requirePortalStepUp`), so tests can earn the token. */
  stepUp?: StepUpAction;
}>;

/**
 * Calls one `/trpc` batch may carry (400 beyond): each call is authenticated, validated and throttled
 * on its own, so an unbounded batch would let one request buy unbounded work. The typed client splits
 * its batches at the same size.
 */
export const MAX_BATCH_CALLS = 100;

/**
 * The one tRPC instance. `OpenApiMeta` lets each procedure declare its REST path; superjson is the
 * transformer of the typed client (trpc-to-openapi ignores transformers, so REST stays plain JSON).
 */
const t = initTRPC
  .context<RequestContext>()
  .meta<RouteMeta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error, ctx }) {
      // Typed clients get the same machine code, request id and fields as REST callers.
      return { ...shape, data: { ...shape.data, stack: undefined, app: toErrorBody(error, ctx?.requestId ?? 'unknown') } };
    },
  });

export const router = t.router;
/** One area's procedures written in several files (the portal), served as one flat router. */
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;

/**
 * The procedure every credential kind's builder starts from (`server/procedures.ts`), each adding one
 * middleware that authenticates, checks the route's requirement and maps errors (`appErrorsMapped`).
 */
export const bareProcedure = t.procedure;

/**
 * Services throw AppError; tRPC would report those as INTERNAL_SERVER_ERROR. Each credential kind's
 * middleware wraps its work in this, so every AppError (its own or the procedure's) reaches tRPC with
 * its catalogue code, keeping the AppError as the cause for the error body.
 */
export async function appErrorsMapped<R extends { ok: true } | { ok: false; error: TRPCError }>(work: () => Promise<R>): Promise<R> {
  let result: R;
  try {
    result = await work();
  } catch (error) {
    throw asTrpcError(error);
  }
  if (!result.ok) {
    const cause = (result as { error: TRPCError }).error.cause;
    if (cause instanceof AppError) throw asTrpcError(cause);
  }
  return result;
}

function asTrpcError(error: unknown): unknown {
  return error instanceof AppError ? new TRPCError({ code: errorCatalog[error.code].trpc, message: error.message, cause: error }) : error;
}
