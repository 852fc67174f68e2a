import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { clientErrorHandler } from '../../server/http/client-error.js';
import { createLogger } from '../../server/logger.js';

describe('clientError handler', () => {
  it('answers a request that is not received in time with 408 and the JSON error body', async () => {
    // Short timeouts so the server gives up on the unfinished request quickly (the service keeps Node's defaults).
    const server = createServer({ headersTimeout: 100, requestTimeout: 200, connectionsCheckingInterval: 20 }, (_req, res) => res.end());
    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    server.on('clientError', clientErrorHandler(createLogger('info', sink)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'); // the headers never end
      });
      expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
      expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({
        code: 'REQUEST_TIMEOUT',
        message: expect.any(String),
        request_id: expect.any(String),
      });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
