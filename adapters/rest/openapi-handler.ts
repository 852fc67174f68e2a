import type { IncomingMessage, ServerResponse } from 'node:http';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/_app.js';
import type { Services } from '../../server/container.js';
import { createRequestContext, type RequestContext } from '../../server/context.js';
import { retryAfterOf, statusOf, toErrorBody } from '../../server/error-body.js';
import { codeForTrpc, type ErrorBody } from '../../server/errors.js';
import type { TrustFn } from '../../server/http/client-address.js';
import { localsOf } from '../../server/http/locals.js';
import { errorFields, pathOf } from '../../server/http/log-fields.js';
import { attachQuery } from './query.js';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { urlValue } from './url-values.js';

/**
 * Serves every REST path of the spec from the tRPC routers through trpc-to-openapi.
 *
 * trpc-to-openapi writes its own error body, whose `code` is tRPC's. Our tRPC error formatter
 * already put the api-decisions body under `data.app`; the response wrapper below sends that body
 * instead, so REST callers see one error shape everywhere. `next` runs when no route matches.
 */
export function createRestHandler(router: AppRouter, services: Services, trust: TrustFn) {
  const handler = createOpenApiNodeHttpHandler<AppRouter, IncomingMessage, ServerResponse>({
    router,
    // Query-string and path values are text: converted strictly for number and boolean fields only.
    urlValue,
    createContext: ({ req, res }) => createRequestContext(services, req, res, trust),
    responseMeta: ({ ctx, errors }) => {
      const context = ctx as RequestContext | undefined;
      const headers: Record<string, string> = { ...(context?.response.headers ?? {}) };
      if (errors.length > 0) {
        const first = errors[0]!;
        const body = toErrorBody(first, context?.requestId ?? 'unknown');
        const retryAfter = retryAfterOf(first);
        if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
        return { status: statusOf(body.code), headers };
      }
      return { status: context?.response.status ?? 200, headers };
    },
    onError: ({ error, req }) => {
      if (toErrorBody(error, '').code === 'INTERNAL') {
        services.logger.error({ err: errorFields(error.cause ?? error), path: pathOf(req.url) }, 'unhandled error in REST procedure');
      }
    },
  });

  return (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => {
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (res.statusCode >= 400 && typeof chunk === 'string') {
        chunk = rewriteErrorBody(chunk, localsOf(res).requestId);
      }
      return end(chunk, ...rest);
    }) as ServerResponse['end'];
    attachQuery(req);
    void handler(req, res, next).catch(next);
  };
}

function rewriteErrorBody(raw: string, requestId: string): string {
  let parsed: { data?: { app?: ErrorBody }; code?: TRPC_ERROR_CODE_KEY; message?: string };
  try {
    parsed = JSON.parse(raw) as typeof parsed;
  } catch {
    return raw;
  }
  // Errors raised before a context existed (e.g. a wrong content type) were formatted without a request id.
  const body: ErrorBody = parsed.data?.app ?? {
    code: (parsed.code && codeForTrpc[parsed.code]) || 'INTERNAL',
    message: parsed.message ?? 'error',
    request_id: requestId,
  };
  return JSON.stringify({ ...body, request_id: requestId });
}
