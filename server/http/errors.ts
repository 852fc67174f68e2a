import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { AppError, type ErrorBody, errorCatalog } from '../errors.js';
import { localsOf } from './locals.js';
import { errorFields } from './log-fields.js';
import { sendJson } from './respond.js';

/** body-parser's error types, mapped to ours so bad bodies never answer 500. */
function fromBodyParser(err: { type?: string; status?: number; message?: string }): AppError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError('MALFORMED_JSON', 'request body is not valid JSON');
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'request body too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', err.message ?? 'unsupported encoding');
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('VALIDATION_FAILED', err.message ?? 'bad request body');
    default:
      break;
  }
  // Other client errors the parser reports (e.g. a body that does not decompress) keep their 4xx.
  if (err.status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'request body too large');
  if (err.status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', err.message ?? 'unsupported request body');
  if (err.status !== undefined && err.status >= 400 && err.status < 500)
    return new AppError('VALIDATION_FAILED', err.message ?? 'bad request body');
  return null;
}

export function sendError(res: ServerResponse, error: AppError): void {
  const body: ErrorBody = { code: error.code, message: error.message, request_id: localsOf(res).requestId };
  if (error.details?.fields) body.fields = error.details.fields;
  if (error.details?.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.details.retryAfterSeconds));
  sendJson(res, errorCatalog[error.code].status, body);
}

export function sendNotFound(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0];
  sendError(res, new AppError('NOT_FOUND', `no route for ${req.method} ${path}`));
}

/** The last resort of the HTTP layer: our errors as they are, body-parser's mapped, anything else 500. */
export function errorResponder(logger: Logger) {
  return (err: unknown, res: ServerResponse): void => {
    if (res.headersSent) {
      logger.error({ err: errorFields(err) }, 'error after the response started');
      res.destroy();
      return;
    }
    if (err instanceof AppError) return sendError(res, err);
    const mapped = typeof err === 'object' && err !== null ? fromBodyParser(err as { type?: string }) : null;
    if (mapped) return sendError(res, mapped);
    logger.error({ err: errorFields(err) }, 'unhandled error');
    sendError(res, new AppError('INTERNAL', 'internal error'));
  };
}
