import { describe, expect, it } from 'vitest';
import { routeTemplates } from '../../adapters/rest/route-templates.js';
import { appRouter } from '../../routers/_app.js';
import { createRouteLabeler } from '../../server/http/route-labels.js';

const labels = createRouteLabeler({ ...routeTemplates(appRouter), fixed: ['/healthz', '/metrics', '/docs/*'] });
const id = '0190a4c2-7d1e-7b3a-9f00-1234567890ab';

describe('metric route labels', () => {
  it.each([
    ['GET', '/memories', '/memories'],
    ['GET', '/memories/?limit=5', '/memories'],
    ['GET', '/memories/search?q=x', '/memories/search'],
    ['GET', `/memories/${id}`, '/memories/{id}'],
    ['DELETE', '/memories/anything-at-all', '/memories/{id}'],
    ['GET', `/memories/${id}/versions/3`, '/memories/{id}/versions/{version}'],
    ['OPTIONS', `/memories/${id}`, '/memories/{id}'],
    ['PATCH', `/memories/${id}`, 'unmatched'],
    ['GET', '/memories/a/b/c/d', 'unmatched'],
    ['GET', '/no-such-thing-123', 'unmatched'],
    ['GET', '/healthz', '/healthz'],
    ['GET', '/healthz?x=1', '/healthz'],
    ['GET', '/docs/swagger-ui.css', '/docs/*'],
    ['GET', '/docs', '/docs/*'],
    ['GET', '/docsx', 'unmatched'],
    ['POST', '/trpc/memories.create', '/trpc/memories.create'],
    ['GET', '/trpc/search.memories?input=%7B%7D', '/trpc/search.memories'],
    ['GET', '/trpc/search.memories,usage.get?batch=1', '/trpc/batch'],
    ['GET', '/trpc/search.memories,nope?batch=1', 'unmatched'],
    ['POST', '/trpc/no.such.procedure', 'unmatched'],
    ['POST', '/trpc/', 'unmatched'],
  ])('%s %s → %s', (method, url, expected) => {
    expect(labels.route(method, url)).toBe(expected);
  });

  it('keeps the methods the service answers and folds every other into one', () => {
    expect(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => labels.method(m))).toEqual([
      'GET',
      'HEAD',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'OPTIONS',
    ]);
    expect(['PROPFIND', 'PURGE', 'get', undefined].map((m) => labels.method(m))).toEqual(['OTHER', 'OTHER', 'OTHER', 'OTHER']);
  });
});
