import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../server/errors.js';
import { toErrorBody } from '../../server/error-body.js';

const zodErrorOf = (value: unknown) => {
  const parsed = z.object({ action: z.enum(['data.export']) }).safeParse(value);
  if (parsed.success) throw new Error('expected a parse failure');
  return parsed.error;
};

describe('toErrorBody', () => {
  it('reports input that failed its schema as VALIDATION_FAILED naming the fields', () => {
    const error = new TRPCError({ code: 'BAD_REQUEST', cause: zodErrorOf({ action: 'x' }) });
    expect(toErrorBody(error, 'req-1')).toMatchObject({ code: 'VALIDATION_FAILED', request_id: 'req-1', fields: [{ field: 'action' }] });
  });

  it('reports a response that failed its own schema as INTERNAL, without describing the response', () => {
    // tRPC wraps output validation as INTERNAL_SERVER_ERROR: the server is wrong, not the client.
    const error = new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Output validation failed', cause: zodErrorOf({ action: 'x' }) });
    expect(toErrorBody(error, 'req-2')).toEqual({ code: 'INTERNAL', message: 'internal error', request_id: 'req-2' });
  });

  it('passes an AppError through with its fields, and hides unknown errors', () => {
    const fields = [{ field: 'email', message: 'taken' }];
    expect(toErrorBody(new TRPCError({ code: 'CONFLICT', cause: new AppError('CONFLICT', 'exists', { fields }) }), 'r')).toEqual({
      code: 'CONFLICT',
      message: 'exists',
      request_id: 'r',
      fields,
    });
    expect(toErrorBody(new Error('secret detail'), 'r')).toEqual({ code: 'INTERNAL', message: 'internal error', request_id: 'r' });
  });
});
