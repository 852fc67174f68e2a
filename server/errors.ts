import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';

/**
 * The closed set of machine codes every error body carries. One table maps each to its HTTP status
 * and tRPC code, so REST, tRPC and the OpenAPI document agree.
 */
export const errorCatalog = {
  VALIDATION_FAILED: { status: 400, trpc: 'BAD_REQUEST' },
  MALFORMED_JSON: { status: 400, trpc: 'PARSE_ERROR' },
  UNAUTHENTICATED: { status: 401, trpc: 'UNAUTHORIZED' },
  FORBIDDEN: { status: 403, trpc: 'FORBIDDEN' },
  SCOPE_MISSING: { status: 403, trpc: 'FORBIDDEN' },
  IP_NOT_ALLOWED: { status: 403, trpc: 'FORBIDDEN' },
  NAMESPACE_FORBIDDEN: { status: 403, trpc: 'FORBIDDEN' },
  STEP_UP_REQUIRED: { status: 403, trpc: 'FORBIDDEN' },
  TENANT_SUSPENDED: { status: 403, trpc: 'FORBIDDEN' },
  CSRF_FAILED: { status: 403, trpc: 'FORBIDDEN' },
  NOT_FOUND: { status: 404, trpc: 'NOT_FOUND' },
  CONFLICT: { status: 409, trpc: 'CONFLICT' },
  // A structure version that changes what objects hold, activated without a migration plan covering it.
  INCOMPATIBLE_SCHEMA: { status: 409, trpc: 'CONFLICT' },
  // Enrichment asked of a knowledge object marked do_not_enrich.
  ENRICHMENT_DISABLED: { status: 409, trpc: 'CONFLICT' },
  PRECONDITION_FAILED: { status: 412, trpc: 'PRECONDITION_FAILED' },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: 'PAYLOAD_TOO_LARGE' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: 'UNSUPPORTED_MEDIA_TYPE' },
  // Answered by the HTTP parser's clientError hook, never by a procedure: the tRPC code is nominal.
  HEADERS_TOO_LARGE: { status: 431, trpc: 'BAD_REQUEST' },
  // Also the parser's: a client that did not finish sending its request within the server's timeout.
  REQUEST_TIMEOUT: { status: 408, trpc: 'TIMEOUT' },
  RATE_LIMITED: { status: 429, trpc: 'TOO_MANY_REQUESTS' },
  QUOTA_EXCEEDED: { status: 429, trpc: 'TOO_MANY_REQUESTS' },
  DEPENDENCY_UNAVAILABLE: { status: 503, trpc: 'SERVICE_UNAVAILABLE' },
  INTERNAL: { status: 500, trpc: 'INTERNAL_SERVER_ERROR' },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY }>;

export type ErrorCode = keyof typeof errorCatalog;

export interface FieldIssue {
  field: string;
  message: string;
}

/** The only error type services throw. */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: { fields?: FieldIssue[]; retryAfterSeconds?: number },
  ) {
    super(message);
  }
  get status(): number {
    return errorCatalog[this.code].status;
  }
}

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const unauthenticated = (message = 'authentication required') => new AppError('UNAUTHENTICATED', message);
export const forbidden = (message: string) => new AppError('FORBIDDEN', message);
export const validation = (field: string, message: string) =>
  new AppError('VALIDATION_FAILED', `${field}: ${message}`, { fields: [{ field, message }] });

/** tRPC's own codes, for errors not raised by our services (e.g. its input parser). */
export const codeForTrpc: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  BAD_REQUEST: 'VALIDATION_FAILED',
  PARSE_ERROR: 'MALFORMED_JSON',
  UNAUTHORIZED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  PRECONDITION_FAILED: 'PRECONDITION_FAILED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  TOO_MANY_REQUESTS: 'RATE_LIMITED',
  METHOD_NOT_SUPPORTED: 'NOT_FOUND',
  SERVICE_UNAVAILABLE: 'DEPENDENCY_UNAVAILABLE',
};

/** The JSON error body (docs/decisions.md#errors). */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  request_id: string;
  fields?: FieldIssue[];
}
