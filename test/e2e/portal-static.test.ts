import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPortalHandler } from '../../server/http/portal.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** `/portal/`: the built single-page app (vitest's globalSetup builds it when stale). */
let server: TestServer;
let indexHtml: string;
let entryScript: string;

beforeAll(async () => {
  server = await startTestServer();
  indexHtml = readFileSync(new URL('../../dist/portal/index.html', import.meta.url), 'utf8');
  entryScript = /src="(\/portal\/assets\/[^"]+\.js)"/.exec(indexHtml)![1]!;
});
afterAll(async () => {
  await server?.close();
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(server.url + path, { method, headers, redirect: 'manual' });

describe('serving the web portal', () => {
  it('/portal redirects to /portal/ (keeping the query); index.html is revalidated and locked down by its CSP', async () => {
    const bare = await get('/portal?sso_error=x');
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/portal/?sso_error=x');

    const page = await get('/portal/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const csp = page.headers.get('content-security-policy')!;
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
      "object-src 'none'",
      "base-uri 'none'",
    ])
      expect(csp).toContain(directive);
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(await page.text()).toBe(indexHtml);
    expect((await get('/portal/', {}, 'HEAD')).status).toBe(200);
  });

  it('every app path under /portal/ gets index.html (SPA fallback); a missing file is a 404', async () => {
    for (const path of ['/portal/t/6f1c2a7e-0000-4000-8000-000000000000/members', '/portal/sign-in', '/portal/index.html']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toBe(indexHtml);
    }
    for (const path of [
      '/portal/favicon.ico',
      '/portal/assets/missing.js',
      '/portal/assets/..%2f..%2fpackage.json',
      `${entryScript}.br`,
      '/portal/assets/.build-stamp',
    ]) {
      expect((await get(path)).status, path).toBe(404);
    }
  });

  it('hashed assets are immutable and sent precompressed as the client accepts (br, then gzip, else plain)', async () => {
    const plain = await get(entryScript, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('vary')).toContain('Accept-Encoding');
    const source = Buffer.from(await plain.arrayBuffer());

    const { request } = await import('node:http');
    const raw = (encoding: string) =>
      new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
        request(server.url + entryScript, { headers: { 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        })
          .on('error', reject)
          .end();
      });
    const br = await raw('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(brotliDecompressSync(br.body).equals(source)).toBe(true);
    expect(br.body.length).toBeLessThan(source.length / 2);

    const gz = await raw('gzip, br;q=0');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(source)).toBe(true);
  });

  it('requests are labelled /portal/* in the metrics (no series per URL)', async () => {
    await get('/portal/t/abc/def');
    const metrics = await (await get('/metrics')).text();
    expect(metrics).toContain('route="/portal/*"');
    expect(metrics).not.toContain('/portal/t/abc');
  });

  it('answers 503 with a clear message when the portal has not been built', async () => {
    const handler = createPortalHandler('/nonexistent/dist/portal');
    const bare: Server = createServer((req, res) => {
      if (!handler(req, res, req.url!.split('?')[0]!, '', () => res.writeHead(404).end())) res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
      for (const path of ['/portal/', '/portal/t/x/dashboard', '/portal/assets/index-abc.js']) {
        const res = await fetch(base + path);
        expect(res.status, path).toBe(503);
        expect(await res.text()).toMatch(/not been built.*npm run build:portal/);
      }
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
  });
});
