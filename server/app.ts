import { createExpressMiddleware } from '@trpc/server/adapters/express';
import cors from 'cors';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import swaggerUi from 'swagger-ui-express';
import { buildOpenApiDocument } from '../adapters/rest/openapi-document.js';
import { createRestHandler } from '../adapters/rest/openapi-handler.js';
import { appRouter } from '../routers/_app.js';
import { trustProxySetting } from './config.js';
import type { Services } from './container.js';
import { createRequestContext } from './context.js';
import { jsonBody } from './http/body.js';
import { errorHandler, notFoundHandler } from './http/errors.js';
import { createMetrics } from './http/metrics.js';
import { requestId } from './http/request-id.js';
import { version } from './version.js';

/**
 * The one express app: tRPC at /trpc, the spec's REST paths through trpc-to-openapi, the OpenAPI
 * document and its interactive reference, health, readiness and Prometheus metrics.
 */
export function createApp(services: Services): Express {
  const { config, logger } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));
  app.set('query parser', 'simple');

  app.use(requestId);
  app.use(
    pinoHttp({
      logger,
      genReqId: (_req, res) => String(res.locals.requestId),
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/metrics' },
    }),
  );
  app.use((req, res, next) => {
    res.locals.log = (req as unknown as { log: unknown }).log;
    next();
  });
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: { 'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'] },
      },
    }),
  );
  if (config.CORS_ORIGINS.length > 0) {
    app.use(cors({ origin: config.CORS_ORIGINS, credentials: true, exposedHeaders: ['X-Request-ID', 'Retry-After'] }));
  }
  const metrics = createMetrics();
  app.use(metrics.middleware);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', version });
  });
  app.get('/readyz', async (_req, res) => {
    const report = await services.health.ready();
    res.status(report.ok ? 200 : 503).json({ status: report.ok ? 'ready' : 'not_ready', checks: report.checks });
  });
  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });

  const document = buildOpenApiDocument(appRouter, config.PUBLIC_URL ?? '/', version);
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use('/docs', swaggerUi.serveFiles(undefined, { swaggerUrl: '/openapi.json' }), swaggerUi.setup(undefined, { swaggerUrl: '/openapi.json', customSiteTitle: 'Tenant Memory API' }));

  app.use(
    '/trpc',
    jsonBody(config.BODY_LIMIT_BYTES),
    createExpressMiddleware({
      router: appRouter,
      createContext: ({ req, res }) => createRequestContext(services, req, res),
      onError: ({ error }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error.cause ?? error }, 'unhandled error in tRPC procedure');
      },
    }),
  );

  app.use(jsonBody(config.BODY_LIMIT_BYTES));
  app.use(createRestHandler(appRouter, services));
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}

/** Query strings may carry cursors or filters; never log them verbatim past the path. */
function redactUrl(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : `${url.slice(0, q)}?…`;
}
