import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import { scan } from 'secure-json-parse';
import { AppError } from '../errors.js';

const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * JSON bodies for REST routes and /trpc. A body that is not JSON gets 415; malformed JSON 400; oversized
 * 413 (through the error responder). A POST without any body (e.g. rotate) is treated as `{}` so
 * callers need not send a content type for an empty request.
 */
export function jsonBody(limitBytes: number) {
  const parse = bodyParser.json({ limit: limitBytes, strict: false, type: ['application/json', 'application/*+json'] });
  return (req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: (err?: unknown) => void): void => {
    if (!bodyMethods.has(req.method ?? '')) return next();
    if (!hasBody(req)) {
      req.body = {};
      req.headers['content-type'] = 'application/json';
      return next();
    }
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
      return next(new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be application/json, got '${type || 'none'}'`));
    }
    parse(req, res, (err?: unknown) => next(err ?? nestingError(req.body) ?? ownProtoKeyError(req.body)));
  };
}

/**
 * Deepest nesting of arrays and objects a body may have. Validators walk values recursively (zod's
 * JSON schema, ajv), so a body of 10,000 nested arrays would end in a stack overflow and a message
 * about the call stack; no route's input nests beyond a dozen levels (a tRPC batch adds three).
 */
export const MAX_BODY_NESTING = 64;

/** The first nesting level past the limit, found without recursion. */
function nestingError(body: unknown): AppError | undefined {
  const pending: [unknown, number][] = [[body, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_BODY_NESTING) return new AppError('VALIDATION_FAILED', `JSON must not nest deeper than ${MAX_BODY_NESTING} levels`);
    for (const child of Array.isArray(value) ? value : Object.values(value))
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * JSON.parse makes `"__proto__"` an ordinary own key, but every later copy by assignment (zod's record,
 * a spread into a store) sets a prototype instead, so the key would vanish after a 2xx. Refused
 * anywhere in a body, as Fastify does by default; `constructor` keys are plain data here and pass.
 */
function ownProtoKeyError(body: unknown): AppError | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  try {
    scan(body, { protoAction: 'error', constructorAction: 'ignore' });
    return undefined;
  } catch {
    return new AppError('VALIDATION_FAILED', 'JSON objects must not have a key named __proto__');
  }
}
