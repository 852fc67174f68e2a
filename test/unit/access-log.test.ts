import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAccessLog } from '../../server/http/access-log.js';
import { localsOf } from '../../server/http/locals.js';
import { createLogger } from '../../server/logger.js';

/** A real HTTP server on an ephemeral port whose every request goes through the access log, and the log lines it wrote. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  const logger = createLogger('info', sink);
  const log = createAccessLog(logger);
  const server: Server = createServer((req, res) => {
    localsOf(res).requestId = 'req-12345678';
    log(req, res);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** Waits until a line `matching` has been written: the access line is written when the response finishes, after the client has it. */
  const logged = (matching: (line: Record<string, any>) => boolean) =>
    vi.waitFor(
      () => {
        if (!lines.some(matching)) throw new Error('the line is not written yet');
      },
      { timeout: 5_000, interval: 5 },
    );
  return { url, lines, logger, logged, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('access log', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it('logs id, method, path without the query, status and time; on a failure only the error type and message', async () => {
    const s = await serve((_req, res) => {
      // What pino's standard error serializer would copy verbatim: every enumerable property.
      (res as { err?: unknown }).err = Object.assign(new TypeError('boom'), {
        secret: 'sk-live-123',
        headers: { authorization: 'Bearer tok-456' },
      });
      res.statusCode = 500;
      res.end();
    });
    close = s.close;
    await fetch(`${s.url}/memories/search?q=private&cursor=abc`, {
      headers: { authorization: 'Bearer tok-456', 'x-api-key': 'sk-live-123' },
    });
    await s.logged((l) => l.msg === 'request errored' || l.res);
    const line = s.lines.find((l) => l.msg === 'request errored' || l.res);
    expect(line).toMatchObject({
      level: 50,
      req: { id: 'req-12345678', method: 'GET', url: '/memories/search?…' },
      res: { statusCode: 500 },
      err: { type: 'TypeError', message: 'boom' },
    });
    expect(Object.keys(line!.err).sort()).toEqual(['message', 'type']);
    const text = JSON.stringify(s.lines);
    for (const secret of ['sk-live-123', 'tok-456', 'private', 'cursor=abc']) expect(text).not.toContain(secret);
  });

  it('leaves handlers no unredacted logger on the request or the response', async () => {
    let seen: unknown[] = [];
    const s = await serve((req, res) => {
      seen = [(req as { log?: unknown }).log, (res as { log?: unknown }).log];
      res.statusCode = 202;
      res.end();
    });
    close = s.close;
    await fetch(`${s.url}/memories`, { method: 'POST' });
    await s.logged((l) => l.res);
    expect(seen).toEqual([undefined, undefined]);
    expect(s.lines.at(-1)).toMatchObject({ level: 30, req: { method: 'POST', url: '/memories' }, res: { statusCode: 202 } });
  });

  it('keeps redaction on the logger handlers use', async () => {
    const s = await serve((_req, res) => res.end());
    close = s.close;
    s.logger.child({ reqId: 'r' }).info({ body: { password: 'hunter2-secret' } }, 'handler line');
    await s.logged((l) => l.msg === 'handler line');
    expect(JSON.stringify(s.lines)).not.toContain('hunter2-secret');
    expect(s.lines.at(-1)).toMatchObject({ body: { password: '[redacted]' } });
  });
});
