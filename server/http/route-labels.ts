/** A REST operation as the routers declare it: its method and path template (`/memories/{id}`). */
export interface RouteTemplate {
  method: string;
  path: string;
}

export interface RouteCatalogue {
  /** REST operations in declaration order. */
  rest: RouteTemplate[];
  /** Every tRPC procedure path (`memories.create`). */
  procedures: string[];
  /** Paths the HTTP layer serves itself (`/healthz`); a trailing `/*` serves everything below it. */
  fixed: string[];
}

/** The one label of every request that no route serves: a client cannot mint new series. */
export const UNMATCHED = 'unmatched';
/** The one label of every method outside the HTTP methods the service answers. */
export const OTHER_METHOD = 'OTHER';

const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Bounded metric labels: a request is labelled by the route template it matched (`/memories/{id}`,
 * `/trpc/memories.create`, `/healthz`), everything else by `unmatched`, so the number of series is
 * fixed by the code, not by what clients send. Matching follows trpc-to-openapi's (case-insensitive,
 * trailing slash ignored); a CORS preflight takes the label of the path it asks about.
 */
export function createRouteLabeler(catalogue: RouteCatalogue) {
  const exact = new Map<string, string>();
  const templated: { method: string; pattern: RegExp; label: string }[] = [];
  for (const { method, path } of catalogue.rest) {
    const label = normalize(path);
    if (label.includes('{')) {
      templated.push({ method, pattern: new RegExp(`^${label.replace(/\{[^}]+\}/g, '[^/]+')}$`, 'i'), label });
    } else {
      exact.set(`${method} ${label.toLowerCase()}`, label);
    }
  }
  const procedures = new Set(catalogue.procedures);
  const fixed = new Set(catalogue.fixed.filter((p) => !p.endsWith('/*')));
  const prefixes = catalogue.fixed.filter((p) => p.endsWith('/*')).map((p) => p.slice(0, -2));

  function restLabel(method: string, path: string): string | undefined {
    const key = path.toLowerCase();
    const methods = method === 'OPTIONS' ? [...knownMethods] : [method];
    for (const m of methods) {
      const hit = exact.get(`${m} ${key}`);
      if (hit) return hit;
    }
    return templated.find((t) => (method === 'OPTIONS' || t.method === method) && t.pattern.test(path))?.label;
  }

  /** `/trpc/a.b` for a known procedure, `/trpc/batch` for a batch of known procedures. */
  function trpcLabel(names: string): string | undefined {
    const calls = names.split(',');
    if (!calls.every((name) => procedures.has(name))) return undefined;
    return calls.length === 1 ? `/trpc/${calls[0]}` : '/trpc/batch';
  }

  return {
    /** The route label of a request target (its query string is ignored). */
    route(method: string | undefined, url: string | undefined): string {
      const target = url ?? '/';
      const q = target.indexOf('?');
      const path = q === -1 ? target : target.slice(0, q);
      if (fixed.has(path)) return path;
      for (const prefix of prefixes) if (path === prefix || path.startsWith(`${prefix}/`)) return `${prefix}/*`;
      if (path.startsWith('/trpc/')) return trpcLabel(path.slice('/trpc/'.length)) ?? UNMATCHED;
      return restLabel(method ?? '', normalize(path)) ?? UNMATCHED;
    },
    /** The method label: one of the methods the service answers, or `OTHER`. */
    method(method: string | undefined): string {
      return method !== undefined && knownMethods.has(method) ? method : OTHER_METHOD;
    },
  };
}

export type RouteLabeler = ReturnType<typeof createRouteLabeler>;

/** trpc-to-openapi's path normalization: one leading slash, no trailing one. */
function normalize(path: string): string {
  return `/${path.replace(/^\/|\/$/g, '')}`;
}
