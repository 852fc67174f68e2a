import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';
import { localsOf } from './locals.js';

/**
 * The access log: one line per request (pino-http), at info, warn for 4xx and error for 5xx.
 *
 * It is written WITHOUT pino's redaction pass (a child logger with no redact paths, same destination
 * and bindings): the wildcard paths are a noticeable share of a queued write's server time (figures:
 * docs/performance.md#access-log-without-redaction), and every field of these lines is picked here, so none can carry a secret: the request id, method
 * and path (the query string is elided: it may hold cursors or filters), the status, the time, and on
 * failures only the error's type and message (pino's standard error serializer would copy every
 * enumerable property, headers included). pino-http's own `req.log` / `res.log` (the unredacted
 * logger) are cleared so that no handler logs through it by mistake.
 */
export function createAccessLog(logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  const log = pinoHttp({
    logger: logger.child({}, { redact: { paths: [] } }),
    genReqId: (_req, res) => localsOf(res).requestId,
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: pathOnly(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      // pino-http hands this pino's standard serialization of the error ({type, message, stack, and
      // every enumerable property}): keep the first two.
      err: (err: { type?: unknown; name?: unknown; message?: unknown }) => ({
        type: String(err.type ?? err.name ?? 'Error'),
        message: String(err.message ?? ''),
      }),
    },
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/metrics' },
  });
  return (req, res) => {
    log(req, res);
    // Cleared, not deleted: \`delete\` on these per-request objects would drop them to V8's slow
    // dictionary mode for every later property access of the exchange.
    (req as { log?: unknown }).log = undefined;
    (res as { log?: unknown }).log = undefined;
  };
}

/** Query strings may carry cursors or filters; never log them verbatim past the path. */
function pathOnly(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : `${url.slice(0, q)}?…`;
}
