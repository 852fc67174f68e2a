import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/auth.js';
import { MAX_BODY_NESTING } from '../../server/http/body.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let apiKey: string;
beforeAll(async () => {
  server = await startTestServer();
  const owner = await signUp(server.url);
  const created = await fetch(`${server.url}/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.accessToken}` },
    body: JSON.stringify({ name: 'read only', scopes: ['memories:read'] }),
  });
  apiKey = ((await created.json()) as { secret: string }).secret;
});
afterAll(async () => {
  await server?.close();
});

async function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const res = await fetch(`${server.url}${path}`, { method, headers, body });
  return { status: res.status, requestId: res.headers.get('x-request-id')!, text: await res.text() };
}

/**
 * The REST error body, byte for byte, on each way an error reaches it: raised by trpc-to-openapi
 * before a request context exists, by authentication, by the route's scope, by input validation,
 * by a service, and by no route matching at all.
 */
describe('REST error bodies', () => {
  it('a content type the adapter refuses before any context: its message, the exchange request id', async () => {
    const res = await raw('POST', '/memories', { 'content-type': 'application/merge-patch+json', 'x-api-key': apiKey }, '{}');
    expect(res.status).toBe(415);
    expect(res.text).toBe(
      JSON.stringify({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Unsupported content-type "application/merge-patch+json',
        request_id: res.requestId,
      }),
    );
  });

  it('no credential, a missing scope, invalid input, an unknown id and no route', async () => {
    const noKey = await raw('GET', '/usage');
    expect(noKey.text).toBe(JSON.stringify({ code: 'UNAUTHENTICATED', message: 'missing X-API-Key header', request_id: noKey.requestId }));

    const noScope = await raw('GET', '/usage', { 'x-api-key': apiKey });
    expect([noScope.status, noScope.text]).toEqual([
      403,
      JSON.stringify({ code: 'SCOPE_MISSING', message: "API key lacks scope 'usage:read'", request_id: noScope.requestId }),
    ]);

    const invalid = await raw('GET', '/memories/search?q=x&k=abc', { 'x-api-key': apiKey });
    expect(invalid.status).toBe(400);
    const parsed = JSON.parse(invalid.text) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['code', 'message', 'request_id', 'fields']);
    expect(parsed).toMatchObject({
      code: 'VALIDATION_FAILED',
      request_id: invalid.requestId,
      fields: [expect.objectContaining({ field: 'k' })],
    });

    const unknown = await raw('GET', '/memories/00000000-0000-4000-8000-000000000000', { 'x-api-key': apiKey });
    expect(unknown.status).toBe(404);
    expect(Object.keys(JSON.parse(unknown.text) as object)).toEqual(['code', 'message', 'request_id']);

    const noRoute = await raw('GET', '/no-such-route');
    expect(noRoute.text).toBe(
      JSON.stringify({ code: 'NOT_FOUND', message: 'no route for GET /no-such-route', request_id: noRoute.requestId }),
    );
  });

  it('a body nested past the limit: 400 naming the limit on REST and /trpc, not a stack overflow', async () => {
    const nested = (depth: number) => '['.repeat(depth) + '"x"' + ']'.repeat(depth);
    const json = { 'content-type': 'application/json', 'x-api-key': apiKey };
    const message = `JSON must not nest deeper than ${MAX_BODY_NESTING} levels`;
    for (const [path, body] of [
      ['/memories', `{"content":"x","metadata":{"a":${nested(20_000)}}}`],
      ['/v1/knowledge/person', `{"fields":{"name":"A","email":${nested(20_000)}}}`],
      ['/trpc/memories.create', `{"json":{"content":"x","metadata":{"a":${nested(MAX_BODY_NESTING)}}}}`],
    ]) {
      const res = await raw('POST', path!, json, body);
      expect([res.status, res.text], path).toEqual([
        400,
        JSON.stringify({ code: 'VALIDATION_FAILED', message, request_id: res.requestId }),
      ]);
    }
    // At the limit the body reaches the route, whose own validation answers (and its scope first).
    const atLimit = await raw('POST', '/memories', json, `{"content":"x","metadata":{"a":${nested(MAX_BODY_NESTING - 3)}}}`);
    expect(atLimit.status).toBe(403);
  });
});
