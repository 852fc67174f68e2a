import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let port: number;
beforeAll(async () => {
  server = await startTestServer();
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.close();
});

/**
 * Writes raw requests on a fresh connection, each after the answer to the one before has arrived
 * (the last is followed by nothing), and reads until the server closes the connection.
 */
function exchange(...raws: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let sent = 0;
    const sendNext = () => socket.write(raws[sent++]!);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (sent < raws.length && responses(Buffer.concat(chunks).toString('utf8')).length === sent) sendNext();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    sendNext();
  });
}

/** The responses in a raw answer: status, headers (lower-case names) and parsed JSON body of each. */
function responses(raw: string) {
  const out: { status: number; headers: Record<string, string>; body: any }[] = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    const text = rest.slice(end + 4, end + 4 + length);
    if (end === -1 || Buffer.byteLength(text) < length) break;
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: text ? JSON.parse(text) : undefined });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

function expectErrorBody(res: { headers: Record<string, string> | Headers; body: any }, code: string): void {
  expect(res.body).toEqual({ code, message: expect.any(String), request_id: expect.any(String) });
  const id = res.headers instanceof Headers ? res.headers.get('x-request-id') : res.headers['x-request-id'];
  expect(id).toBe(res.body.request_id);
}

describe('requests the HTTP parser refuses', () => {
  const marker = `mk${randomBytes(8).toString('hex')}`;
  const big = marker + 'x'.repeat(20 * 1024);

  it('answers headers over 16 KB with 431 and the JSON error body, over fetch', async () => {
    const res = await http(server.url, 'GET', '/healthz', { headers: { 'x-big': big } });
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toContain('application/json');
    expectErrorBody(res, 'HEADERS_TOO_LARGE');
  });

  it('answers oversized headers and malformed requests with JSON over a raw socket, then closes', async () => {
    const cases: [string, number, string][] = [
      [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
      ['NOT AN HTTP REQUEST\r\n\r\n', 400, 'VALIDATION_FAILED'],
      ['GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 400, 'VALIDATION_FAILED'],
      ['POST /memories HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello', 400, 'VALIDATION_FAILED'],
    ];
    for (const [raw, status, code] of cases) {
      const [res, ...more] = responses(await exchange(raw));
      expect(res?.status, raw.slice(0, 40)).toBe(status);
      expect(res!.headers.connection).toBe('close');
      expectErrorBody(res!, code);
      expect(more).toEqual([]);
    }
  });

  it('answers a bad request after a good one on the same connection without corrupting the first', async () => {
    const [first, second] = responses(
      await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`),
    );
    expect(first).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(second?.status).toBe(431);
    expectErrorBody(second!, 'HEADERS_TOO_LARGE');
  });

  it('survives clients that hang up before the answer, and never logs the refused bytes', async () => {
    await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => {
              socket.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`);
              socket.destroy();
            });
            socket.on('close', () => resolve());
            socket.on('error', () => undefined);
          }),
      ),
    );
    expect((await http(server.url, 'GET', '/healthz')).status).toBe(200);
    expect(server.logs.some((l) => l.includes('request refused by the HTTP parser'))).toBe(true);
    expect(server.logs.filter((l) => l.includes(marker))).toEqual([]);
  });
});
