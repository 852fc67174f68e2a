import type { Services } from '../../server/container.js';
import type { RequestContext } from '../../server/context.js';

/**
 * The inner request context for caller tests (tRPC's `createContextInner` pattern): plain values in,
 * a `RequestContext` out, for `createCallerFactory(router)(ctx)`. A test passes only the services its
 * procedures use; touching any other fails loudly, naming it, instead of reading `undefined`.
 */
export function createInnerContext(
  options: {
    services?: Partial<Services>;
    headers?: Record<string, string | undefined>;
    query?: Record<string, string | undefined>;
    ip?: string;
    userAgent?: string | null;
    origin?: string | null;
    requestId?: string;
  } = {},
): RequestContext {
  const headers = Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    requestId: options.requestId ?? 'req-test',
    ip: options.ip ?? '127.0.0.1',
    userAgent: options.userAgent ?? null,
    header: (name) => headers[name.toLowerCase()],
    query: (name) => options.query?.[name],
    origin: () => options.origin ?? null,
    services: onlyServices(options.services ?? {}),
    response: { headers: {}, cookies: [] },
  };
}

/** The services given; any other one throws when a procedure reaches for it. */
function onlyServices(given: Partial<Services>): Services {
  const services = new Proxy(given, {
    get(target, name, receiver) {
      if (typeof name === 'string' && !(name in target))
        throw new Error(`this test's context has no "${name}" service; pass it to createInnerContext`);
      return Reflect.get(target, name, receiver);
    },
  });
  return services as Services;
}
