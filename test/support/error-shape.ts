import { errorCatalog, type ErrorCode } from '../../server/errors.js';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Why a response breaks the error contract (docs/decisions.md#errors), or null when it keeps it: never a 5xx, and
 * every 4xx carries `{code, message, request_id, fields?}` with a catalogued code of that status
 * and the request id of its `X-Request-ID` header.
 */
export function contractViolation(res: RawResponse): string | null {
  if (res.status >= 500) return `answered ${res.status}: ${res.text.slice(0, 300)}`;
  if (res.status < 400) return null;
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `a ${res.status} without a JSON body: ${JSON.stringify(res.text.slice(0, 200))}`;
  }
  if (typeof body !== 'object' || body === null) return `a ${res.status} whose body is not an object`;
  const entry = errorCatalog[body.code as ErrorCode] as { status: number } | undefined;
  if (!Object.hasOwn(errorCatalog, body.code) || !entry)
    return `a ${res.status} with code ${JSON.stringify(body.code)} outside the catalogue`;
  if (entry.status !== res.status) return `code ${body.code} is ${entry.status} in the catalogue but answered ${res.status}`;
  if (typeof body.message !== 'string' || body.message.length === 0) return `a ${res.status} without a message`;
  if (typeof body.request_id !== 'string' || body.request_id.length === 0) return `a ${res.status} without a request_id`;
  if (body.request_id !== res.headers.get('x-request-id'))
    return `request_id ${body.request_id} differs from X-Request-ID ${res.headers.get('x-request-id')}`;
  if (
    body.fields !== undefined &&
    !(Array.isArray(body.fields) && body.fields.every((f: any) => typeof f?.field === 'string' && typeof f?.message === 'string'))
  ) {
    return `a ${res.status} with malformed fields`;
  }
  const extra = Object.keys(body).filter((k) => !['code', 'message', 'request_id', 'fields'].includes(k));
  if (extra.length > 0) return `a ${res.status} with extra keys ${extra.join(', ')}`;
  return null;
}
