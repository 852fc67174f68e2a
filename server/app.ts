import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import helmet from 'helmet';
import { buildOpenApiDocument } from '../adapters/rest/openapi-document.js';
import { createRestHandler } from '../adapters/rest/openapi-handler.js';
import { routeTemplates } from '../adapters/rest/route-templates.js';
import { appRouter } from '../routers/_app.js';
import { exportDocumentText } from '../routers/portal/export-document.js';
import type { Services } from './container.js';
import { createRequestContext, type RequestContext } from './context.js';
import { createAccessLog } from './http/access-log.js';
import { jsonBody } from './http/body.js';
import { compileTrust } from './http/client-address.js';
import { createCors } from './http/cors.js';
import { createDocsHandler } from './http/docs.js';
import { errorResponder, sendNotFound } from './http/errors.js';
import { errorFields, pathOf } from './http/log-fields.js';
import { createMetrics } from './http/metrics.js';
import { createPortalExportHandler, PORTAL_EXPORT_PATH } from './http/portal-export.js';
import { createPortalHandler } from './http/portal.js';
import { assignRequestId } from './http/request-id.js';
import { sendJson, sendText } from './http/respond.js';
import { createRouteLabeler } from './http/route-labels.js';
import { MAX_BATCH_CALLS } from './trpc.js';
import { version } from './version.js';

type Next = (err?: unknown) => void;

/**
 * The HTTP layer, on node:http directly: tRPC at /trpc, the spec's REST paths through trpc-to-openapi,
 * the OpenAPI document and its interactive reference, the web portal (/portal/), health, readiness and
 * Prometheus metrics.
 *
 * Every exchange: request id → metrics → request log (pino-http) → security headers (helmet) → CORS
 * when configured → the route. There is no general-purpose framework in between: express alone cost more
 * CPU per request than authenticating and queueing a write (figures: docs/performance.md#no-web-framework),
 * and the few routes here do not need a router.
 */
export function createApp(services: Services): RequestListener {
  const { config, logger } = services;
  const trust = compileTrust(config.TRUST_PROXY);
  const logRequest = createAccessLog(logger);
  const secureHeaders = helmet({
    contentSecurityPolicy: {
      directives: { 'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'] },
    },
  });
  const allowOrigins = createCors(config.CORS_ORIGINS);
  const metrics = createMetrics(
    createRouteLabeler({
      ...routeTemplates(appRouter),
      fixed: ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs/*', '/portal/*'],
    }),
    services.indexOutbox.enabled ? { indexOutbox: () => services.indexOutbox.counts() } : {},
  );
  const respondError = errorResponder(logger);
  const body = jsonBody(config.BODY_LIMIT_BYTES);
  const documentText = JSON.stringify(buildOpenApiDocument(appRouter, config.PUBLIC_URL ?? '/', version));
  // The document changes only with a release: clients and proxies revalidate it for free.
  const documentTag = `"${createHash('sha256').update(documentText).digest('base64url').slice(0, 27)}"`;
  const docs = createDocsHandler('/openapi.json');
  // The web portal's build (scripts/build-portal.mjs), at the repository root beside server/.
  const portal = createPortalHandler(fileURLToPath(new URL('../dist/portal', import.meta.url)));
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBatchSize: MAX_BATCH_CALLS,
    createContext: ({ req, res }) => createRequestContext(services, req, res, trust),
    // A procedure's cookie and caching headers hold on /trpc too (the portal signs in there); its REST
    // status, Location and ETag describe the REST answer only.
    responseMeta: ({ ctx, paths }) => ({ headers: trpcHeadersOf(ctx?.response, paths) }),
    onError: ({ error, req }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR')
        logger.error({ err: errorFields(error.cause ?? error), path: pathOf(req.url) }, 'unhandled error in tRPC procedure');
    },
  });
  const rest = createRestHandler(appRouter, services, trust);
  // The one REST path served outside the adapter: the export streams its body (see the handler).
  const portalExport = createPortalExportHandler(services, trust, exportDocumentText);

  function route(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const done: Next = (err) => (err ? respondError(err, res) : sendNotFound(req, res));
    if (req.method === 'GET' || req.method === 'HEAD') {
      switch (path) {
        case '/healthz':
          return sendJson(res, 200, { status: 'ok', version });
        case '/readyz':
          return void services.health
            .ready()
            .then(
              (report) => sendJson(res, report.ok ? 200 : 503, { status: report.ok ? 'ready' : 'not_ready', checks: report.checks }),
              done,
            );
        case '/metrics':
          return void metrics.registry.metrics().then((text) => sendText(res, 200, metrics.registry.contentType, text), done);
        case '/openapi.json':
          res.setHeader('ETag', documentTag);
          if (ifNoneMatch(req, documentTag)) {
            res.statusCode = 304;
            return void res.end();
          }
          return sendText(res, 200, 'application/json; charset=utf-8', documentText);
      }
      if (docs(req, res, path, done)) return;
      if (portal(req, res, path, q === -1 ? '' : url.slice(q), done)) return;
    }
    if (path === '/trpc' || path.startsWith('/trpc/')) {
      // A streamed (jsonl) answer sends its headers before the procedures run, so a portal call's cookie
      // and no-store would be lost: portal procedures always answer in one piece.
      if (callsPortal(path)) delete req.headers['trpc-accept'];
      return body(req, res, (err) => (err ? done(err) : trpc(req, res)));
    }
    // Portal answers are never for a shared cache, errors included (the portal middleware that sets it
    // on success runs only after the checks that refuse).
    if (path.startsWith('/api/portal/')) res.setHeader('Cache-Control', 'no-store');
    if (req.method === 'POST' && path === PORTAL_EXPORT_PATH) {
      return body(req, res, (err) => (err ? done(err) : void portalExport(req, res, done)));
    }
    body(req, res, (err) => (err ? done(err) : rest(req, res, done)));
  }

  return (req, res) => {
    assignRequestId(req, res);
    metrics.observe(req, res);
    logRequest(req, res);
    secureHeaders(req, res, (err?: unknown) => {
      if (err) return respondError(err, res);
      if (!allowOrigins) return route(req, res);
      allowOrigins(req, res, (corsErr?: unknown) => (corsErr ? respondError(corsErr, res) : route(req, res)));
    });
  };
}

/**
 * True when the request's If-None-Match lists the tag (or is `*`); weak tags compare equal. Not the
 * `fresh` package (which `send` uses): it answers "stale" to any request carrying Cache-Control:
 * no-cache, which `fetch` adds to every conditional request, whereas an origin server evaluates
 * If-None-Match regardless (RFC 9110 §13.1.2).
 */
function ifNoneMatch(req: IncomingMessage, tag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v === tag || v === `W/${tag}`;
  });
}

/** Any portal procedure in a /trpc path, however the path is escaped (over-matching only costs streaming). */
const callsPortal = (path: string) => /portal(\.|%2e)/i.test(path);

/**
 * The headers a /trpc answer keeps from its procedures: cookies and caching (the portal signs in there).
 * Any batch with a portal call is `no-store` whatever the procedures got to say: a failed call may end
 * before its middleware set the header, and a portal answer is never for a shared cache.
 */
function trpcHeadersOf(
  response: RequestContext['response'] | undefined,
  paths: readonly string[] | undefined,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const cacheControl = response?.headers['Cache-Control'];
  if (cacheControl !== undefined) out['Cache-Control'] = cacheControl;
  if (paths?.some((p) => p.startsWith('portal.'))) out['Cache-Control'] = 'no-store';
  if (response && response.cookies.length > 0) out['Set-Cookie'] = response.cookies;
  return out;
}
