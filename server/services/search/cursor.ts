import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../errors.js';

/**
 * Search pagination cursors: opaque to clients, tamper-proof (HMAC-SHA256), and tied to the query
 * that produced them, so a cursor replayed against another query, tenant or key is refused with 400.
 */
export interface CursorBinding {
  tenantId: string;
  /** Everything that shapes the ranking: query text, mode, k, filters. */
  query: Record<string, unknown>;
}

interface CursorPayload {
  /** Offset of the next page. */
  o: number;
  /** Digest of the binding. */
  b: string;
}

function bindingDigest(binding: CursorBinding): string {
  const canonical = JSON.stringify([
    binding.tenantId,
    Object.keys(binding.query)
      .sort()
      .map((k) => [k, binding.query[k] ?? null]),
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

export function createCursorCodec(secret: string) {
  const key = createHmac('sha256', secret).update('search-cursor-v1').digest();
  const sign = (body: string) => createHmac('sha256', key).update(body).digest('base64url');

  return {
    encode(binding: CursorBinding, nextOffset: number): string {
      const body = Buffer.from(JSON.stringify({ o: nextOffset, b: bindingDigest(binding) } satisfies CursorPayload)).toString('base64url');
      return `${body}.${sign(body)}`;
    },

    /** The offset a cursor stands for; 400 naming `cursor` when malformed, forged, from another query or past `maxOffset`. */
    decode(cursor: string, binding: CursorBinding, maxOffset = Number.MAX_SAFE_INTEGER): number {
      const invalid = (why: string) => new AppError('VALIDATION_FAILED', `cursor: ${why}`, { fields: [{ field: 'cursor', message: why }] });
      const [body, mac, extra] = cursor.split('.');
      if (!body || !mac || extra !== undefined) throw invalid('malformed cursor');
      const expected = Buffer.from(sign(body));
      const given = Buffer.from(mac);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid('cursor was not issued by this service');
      let payload: CursorPayload;
      try {
        payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorPayload;
      } catch {
        throw invalid('malformed cursor');
      }
      if (payload.b !== bindingDigest(binding)) throw invalid('cursor belongs to a different query');
      if (!Number.isInteger(payload.o) || payload.o < 0) throw invalid('malformed cursor');
      if (payload.o > maxOffset) throw invalid(`pages start at offset ${maxOffset} at most`);
      return payload.o;
    },
  };
}

export type CursorCodec = ReturnType<typeof createCursorCodec>;
