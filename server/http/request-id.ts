import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const acceptable = /^[A-Za-z0-9._:-]{8,128}$/;

/** Accepts a caller's X-Request-ID when it looks safe to log, otherwise makes one; echoes it back. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && acceptable.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-ID', id);
  next();
}
