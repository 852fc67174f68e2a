import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { AppError, codeForTrpc, errorCatalog, type ErrorBody, type ErrorCode, type FieldIssue } from './errors.js';

function fieldsOf(error: ZodError): FieldIssue[] {
  return error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(body)', message: i.message }));
}

/** Finds the AppError or ZodError behind whatever a procedure or parser threw. */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let i = 0; i < 5 && current instanceof TRPCError && current.cause; i++) current = current.cause;
  return current;
}

/** Turns any thrown value into the error body (docs/decisions.md#errors). Unknown errors never leak their message. */
export function toErrorBody(error: unknown, requestId: string): ErrorBody {
  const cause = rootCause(error);
  if (cause instanceof AppError) {
    const body: ErrorBody = { code: cause.code, message: cause.message, request_id: requestId };
    if (cause.details?.fields) body.fields = cause.details.fields;
    return body;
  }
  // A ZodError is the client's fault only when it came from parsing input (tRPC wraps that as
  // BAD_REQUEST). Output validation wraps its ZodError as INTERNAL_SERVER_ERROR: that is a server
  // fault, and its issues describe the response, which the client must not be told about.
  if (cause instanceof ZodError && !(error instanceof TRPCError && error.code !== 'BAD_REQUEST')) {
    const fields = fieldsOf(cause);
    const summary = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
    return { code: 'VALIDATION_FAILED', message: `invalid input: ${summary}`, request_id: requestId, fields };
  }
  if (error instanceof TRPCError) {
    const code: ErrorCode = codeForTrpc[error.code] ?? 'INTERNAL';
    const message = code === 'INTERNAL' ? 'internal error' : error.message;
    return { code, message, request_id: requestId };
  }
  return { code: 'INTERNAL', message: 'internal error', request_id: requestId };
}

export function statusOf(code: ErrorCode): number {
  return errorCatalog[code].status;
}

export function retryAfterOf(error: unknown): number | undefined {
  const cause = rootCause(error);
  return cause instanceof AppError ? cause.details?.retryAfterSeconds : undefined;
}
