/**
 * What a log line on the request path may say about an exchange. Query strings and bodies never reach
 * the logs (they carry cursors, filters, memory text and credentials), so these helpers are the only
 * way the HTTP layer names a request or an error in a log line.
 */

/** The request target's path, without its query string. */
export function pathOf(url: string | undefined): string {
  const target = url ?? '/';
  const q = target.indexOf('?');
  return q === -1 ? target : target.slice(0, q);
}

/**
 * An error as type, message and stack. Not pino's standard serialization, which copies every
 * enumerable property: body-parser's errors carry the raw body, others a URL or headers.
 */
export function errorFields(err: unknown): { type: string; message: string; stack?: string } {
  if (err instanceof Error) return { type: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
  return { type: typeof err, message: 'non-Error value thrown' };
}
