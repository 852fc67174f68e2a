import type { ServerResponse } from 'node:http';

/** What the HTTP layer learns about one exchange and later steps read: its id. */
export interface ExchangeLocals {
  requestId: string;
}

const locals = new WeakMap<ServerResponse, ExchangeLocals>();

/** The exchange's locals, created on first use (the request-id step sets the id first). */
export function localsOf(res: ServerResponse): ExchangeLocals {
  let l = locals.get(res);
  if (!l) {
    l = { requestId: 'unknown' };
    locals.set(res, l);
  }
  return l;
}
