import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger.js';
import { AppError, type ErrorBody, errorCatalog } from '../errors.js';

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
      return null;
  }
}

export function sendError(res: Response, error: AppError): void {
  const body: ErrorBody = { code: error.code, message: error.message, request_id: String(res.locals.requestId ?? 'unknown') };
  if (error.details?.fields) body.fields = error.details.fields;
  if (error.details?.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.details.retryAfterSeconds));
  res.status(errorCatalog[error.code].status).json(body);
}

export function notFoundHandler(req: Request, res: Response): void {
  sendError(res, new AppError('NOT_FOUND', `no route for ${req.method} ${req.path}`));
}

export function errorHandler(logger: Logger) {
  return (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    if (err instanceof AppError) return sendError(res, err);
    const mapped = typeof err === 'object' && err !== null ? fromBodyParser(err as { type?: string }) : null;
    if (mapped) return sendError(res, mapped);
    logger.error({ err }, 'unhandled error');
    sendError(res, new AppError('INTERNAL', 'internal error'));
  };
}
