import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  agent.destroy();
  await server?.close();
});

/** Methods Node's parser accepts that no route answers. */
const oddMethods = ['PROPFIND', 'PURGE', 'MKCOL', 'REPORT', 'LOCK', 'SEARCH'];

/** The i-th hostile request: an unknown path, an unknown procedure, a real route with a fresh id, or an odd method. */
function request(i: number): [string, string] {
  switch (i % 4) {
    case 0:
      return ['GET', `/no-such-path-${i}/${randomUUID()}`];
    case 1:
      return ['POST', `/trpc/unknown.procedure${i}`];
    case 2:
      return ['GET', `/memories/${randomUUID()}`];
    default:
      return [oddMethods[i % oddMethods.length]!, `/odd/${i}`];
  }
}

/** Kept-alive connections: 2,000 requests stay cheap for the client too. */
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

function status(method: string, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpRequest(server.url + url, { method, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

async function send(from: number, to: number): Promise<void> {
  const answers = await Promise.all(
    Array.from({ length: to - from }, async (_, k) => {
      const [method, url] = request(from + k);
      return { what: `${method} ${url}`, status: await status(method, url) };
    }),
  );
  for (const { what, status } of answers) expect(status, what).toBeLessThan(500);
}

async function scrape() {
  const text = (await http(server.url, 'GET', '/metrics')).text;
  const series = text.split('\n').filter((l) => l.startsWith('http_request_duration_seconds_count'));
  const values = (name: string) => new Set(series.map((l) => new RegExp(`${name}="([^"]*)"`).exec(l)?.[1]));
  return { size: text.length, routes: values('route'), methods: values('method') };
}

describe('/metrics under requests for paths and methods nobody serves', () => {
  it('keeps its route and method labels, and so its size, bounded', async () => {
    await send(0, 100);
    await scrape(); // so that the scrape's own series exists in both
    const before = await scrape();
    await send(100, 2_000);
    const after = await scrape();
    // 2,000 distinct targets add no label: unknown paths and procedures are `unmatched`, ids collapse into the template.
    expect([...after.routes].sort()).toEqual(['/memories/{id}', '/metrics', 'unmatched']);
    expect([...after.methods].sort()).toEqual(['GET', 'OTHER', 'POST']);
    expect(after.routes).toEqual(before.routes);
    // Only counters' digits change.
    expect(after.size).toBeLessThan(before.size + 2_000);
  });
});
