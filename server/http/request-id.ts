import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { localsOf } from './locals.js';

const acceptable = /^[A-Za-z0-9._:-]{8,128}$/;

/** Accepts a caller's X-Request-ID when it looks safe to log, otherwise makes one; echoes it back. */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && acceptable.test(given) ? given : randomUUID();
  localsOf(res).requestId = id;
  res.setHeader('X-Request-ID', id);
  return id;
}
