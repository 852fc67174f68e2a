import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { ObjectListCursor } from '../../ports/knowledge.js';

/**
 * List cursors of knowledge objects: the last object's position in the list's order, base64url JSON.
 * They carry nothing a caller could not read on the page itself, and every read is tenant-scoped, so
 * they are not signed; a cursor is refused (400) when malformed or when it belongs to the other order
 * (with or without `completeness_lt`).
 */
const payload = z
  .object({
    s: z.number().min(0).max(1).optional(),
    c: z.iso.datetime(),
    i: z.string().min(1).max(64),
  })
  .strict();

const invalid = (why: string) => new AppError('VALIDATION_FAILED', `cursor: ${why}`, { fields: [{ field: 'cursor', message: why }] });

export function encodeObjectCursor(after: ObjectListCursor): string {
  const body = { ...(after.completenessScore === undefined ? {} : { s: after.completenessScore }), c: after.createdAt, i: after.id };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

export function decodeObjectCursor(cursor: string, byCompleteness: boolean): ObjectListCursor {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('malformed cursor');
  }
  const parsed = payload.safeParse(raw);
  if (!parsed.success) throw invalid('malformed cursor');
  if ((parsed.data.s !== undefined) !== byCompleteness) throw invalid('cursor belongs to a list with different filters');
  return {
    ...(parsed.data.s === undefined ? {} : { completenessScore: parsed.data.s }),
    createdAt: parsed.data.c,
    id: parsed.data.i,
  };
}
