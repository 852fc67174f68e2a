import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantMemoryClient } from '../../client/index.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('HTTP surface', () => {
  it('answers health, readiness and metrics', async () => {
    expect((await http(server.url, 'GET', '/healthz')).body).toMatchObject({ status: 'ok' });
    expect((await http(server.url, 'GET', '/readyz')).body).toMatchObject({ status: 'ready', checks: { storage: 'ok' } });
    const metrics = await http(server.url, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('http_request_duration_seconds');
  });

  it('serves an OpenAPI 3.1 document with both security schemes and an interactive reference', async () => {
    const first = await http(server.url, 'GET', '/openapi.json');
    const doc = first.body;
    expect(doc.openapi).toBe('3.1.0');
    // Revalidation is free: the same tag answers 304 without a body; another tag gets the document.
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[\w-]{27}"$/);
    const again = await fetch(`${server.url}/openapi.json`, { headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await fetch(`${server.url}/openapi.json`, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(expect.arrayContaining(['bearerAuth', 'apiKeyAuth']));
    const docs = await http(server.url, 'GET', '/docs/');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('swagger');
    // The page's assets come from the swagger-ui-dist package; its start-up script reads our document.
    const init = await http(server.url, 'GET', '/docs/swagger-initializer.js');
    expect(init.text).toContain('"/openapi.json"');
    const bundle = await http(server.url, 'GET', '/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('javascript');
    const missing = await http(server.url, 'GET', '/docs/no-such-asset.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND' });
    // Paths the file server refuses (escaping its folder, undecodable) are not found, not server errors.
    for (const bad of ['/docs/%2e%2e/package.json', '/docs/..%2f..%2fpackage.json', '/docs/%zz']) {
      const res = await http(server.url, 'GET', bad);
      expect(res.status, bad).toBe(404);
      expect(res.body, bad).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('answers a body that cannot be decoded with 400, not 500', async () => {
    const res = await fetch(`${server.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: 'this is not gzip',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: expect.any(String), request_id: res.headers.get('x-request-id') });
  });

  it('answers HEAD like GET, without a body', async () => {
    const get = await fetch(`${server.url}/openapi.json`);
    const head = await fetch(`${server.url}/openapi.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
  });

  it('echoes a request id and sets security headers', async () => {
    const res = await http(server.url, 'GET', '/healthz', { headers: { 'x-request-id': 'req-test-12345' } });
    expect(res.headers.get('x-request-id')).toBe('req-test-12345');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const generated = await http(server.url, 'GET', '/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown routes with the error body', async () => {
    const res = await http(server.url, 'GET', '/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String), request_id: res.headers.get('x-request-id') });
  });

  it('calls the server end to end through the typed client', async () => {
    const client = createTenantMemoryClient({ url: server.url });
    await expect(client.system.info.query()).resolves.toEqual({ name: 'tenant-memory', version: expect.any(String), storage: 'embedded' });
  });
});
