import type { IncomingMessage, ServerResponse } from 'node:http';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/_app.js';
import type { Services } from '../../server/container.js';
import { createRequestContext, type RequestContext } from '../../server/context.js';
import { retryAfterOf, statusOf, toErrorBody } from '../../server/error-body.js';
import type { ErrorBody } from '../../server/errors.js';
import type { TrustFn } from '../../server/http/client-address.js';
import { localsOf } from '../../server/http/locals.js';
import { errorFields, pathOf } from '../../server/http/log-fields.js';
import { attachQuery } from './query.js';
import { urlValue } from './url-values.js';

/**
 * Serves every REST path of the spec from the tRPC routers through trpc-to-openapi.
 *
 * trpc-to-openapi's own error body carries tRPC's `code`; `errorBody` (an option our patch adds,
 * `docs/dependencies.md`) sends the error body of docs/decisions.md#errors instead, which the tRPC error formatter already
 * put under `data.app`, so REST callers see one error shape everywhere. `next` runs when no route matches.
 */
export function createRestHandler(router: AppRouter, services: Services, trust: TrustFn) {
  const handler = createOpenApiNodeHttpHandler<AppRouter, IncomingMessage, ServerResponse>({
    router,
    // Query-string and path values are text: converted strictly for number and boolean fields only.
    urlValue,
    createContext: ({ req, res }) => createRequestContext(services, req, res, trust),
    responseMeta: ({ ctx, errors }) => {
      const context = ctx as RequestContext | undefined;
      const headers: Record<string, string | string[]> = { ...(context?.response.headers ?? {}) };
      if (context && context.response.cookies.length > 0) headers['Set-Cookie'] = context.response.cookies;
      if (errors.length > 0) {
        const first = errors[0]!;
        const body = toErrorBody(first, context?.requestId ?? 'unknown');
        const retryAfter = retryAfterOf(first);
        if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
        return { status: statusOf(body.code), headers };
      }
      return { status: context?.response.status ?? 200, headers };
    },
    errorBody: ({ error, errorShape, res }) => restErrorBody(error, errorShape, localsOf(res).requestId),
    onError: ({ error, req }) => {
      if (toErrorBody(error, '').code === 'INTERNAL') {
        services.logger.error({ err: errorFields(error.cause ?? error), path: pathOf(req.url) }, 'unhandled error in REST procedure');
      }
    },
  });

  return (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => {
    attachQuery(req);
    void handler(req, res, next).catch(next);
  };
}

/**
 * The formatter's body when it made one; the request id is the exchange's, since errors raised before
 * a context existed (e.g. a content type the adapter refuses) were formatted without one.
 */
function restErrorBody(error: unknown, errorShape: unknown, requestId: string): ErrorBody {
  const formatted = (errorShape as { data?: { app?: ErrorBody } } | undefined)?.data?.app;
  return { ...(formatted ?? toErrorBody(error, requestId)), request_id: requestId };
}
