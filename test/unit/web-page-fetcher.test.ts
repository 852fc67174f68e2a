import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPageFetcher, type PageFetcher, type PageFetcherOptions } from '../../adapters/web/page-fetcher.js';
import { createAddressPolicy } from '../../adapters/web/address-policy.js';
import { BlockedAddressError, guardedConnector, guardedLookup } from '../../adapters/web/guarded-connect.js';
import type { WebPageResult } from '../../server/ports/web-pages.js';

/**
 * The web engine's SSRF boundary against real loopback HTTP servers on port 0: which addresses are
 * refused (IP literals, names resolving to them, redirect hops, rebinding), and the size, time,
 * redirect and content-type limits. A host name other than `localhost` is resolved by an injected
 * resolver, so nothing here reaches the network.
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: Server[] = [];
const fetchers: PageFetcher[] = [];

afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((f) => f.close()));
  for (const s of servers.splice(0)) s.closeAllConnections();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(handler: Handler): Promise<{ port: number; base: string }> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { port, base: `http://127.0.0.1:${port}` };
}

function fetcher(options: PageFetcherOptions = {}): PageFetcher {
  const f = createPageFetcher({ timeoutMs: 2000, ...options });
  fetchers.push(f);
  return f;
}

const html =
  (body: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  };

/** A resolver that answers every name with the given addresses and counts its calls. */
function fixedResolver(...addresses: string[]) {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, calls };
}

const refusal = (r: WebPageResult) => (r.ok ? 'ok' : r.reason);

describe('addresses', () => {
  it('refuses a loopback server by default and reaches it when private addresses are allowed', async () => {
    const { base } = await serve(html('<title>hi</title>'));
    const blocked = await fetcher().fetchPage(`${base}/`);
    expect(blocked).toMatchObject({ ok: false, reason: 'blocked_address' });

    const page = await fetcher({ allowPrivateAddresses: true }).fetchPage(`${base}/about#team`);
    expect(page).toEqual({ ok: true, finalUrl: `${base}/about`, status: 200, contentType: 'text/html', body: '<title>hi</title>' });
  });

  it('refuses `localhost`, resolved by the system resolver', async () => {
    const { port } = await serve(html('x'));
    expect(refusal(await fetcher().fetchPage(`http://localhost:${port}/`))).toBe('blocked_address');
  });

  it('refuses a public-looking name that resolves to loopback (rebinding), using the one answer it checked', async () => {
    const { port } = await serve(html('secret'));
    const rebinding = fixedResolver('127.0.0.1');
    const result = await fetcher({ resolve: rebinding.resolve }).fetchPage(`http://www.public-company.example:${port}/`);
    expect(result).toMatchObject({ ok: false, reason: 'blocked_address' });
    expect(rebinding.calls).toEqual(['www.public-company.example']);

    // With the block lifted the same name reaches the server: the connection uses the resolver's
    // answer itself (resolved once), not a second lookup that could answer differently.
    const pinned = fixedResolver('127.0.0.1');
    const page = await fetcher({ resolve: pinned.resolve, allowPrivateAddresses: true }).fetchPage(
      `http://www.public-company.example:${port}/`,
    );
    expect(page).toMatchObject({ ok: true, body: 'secret' });
    expect(pinned.calls).toEqual(['www.public-company.example']);
  });

  it('refuses a name with any non-public answer, even beside a public one', async () => {
    const { port } = await serve(html('x'));
    const mixed = fixedResolver('127.0.0.1', '8.8.8.8');
    expect(refusal(await fetcher({ resolve: mixed.resolve }).fetchPage(`http://mixed.example:${port}/`))).toBe('blocked_address');
  });

  it('honours an allowed range and still refuses the rest of loopback', async () => {
    const { base, port } = await serve(html('ok'));
    const f = fetcher({ allowedRanges: ['127.0.0.1/32'] });
    expect(await f.fetchPage(`${base}/`)).toMatchObject({ ok: true, body: 'ok' });
    expect(refusal(await f.fetchPage(`http://127.0.0.2:${port}/`))).toBe('blocked_address');
  });

  // Each literal as written in a URL; WHATWG parsing turns the IPv4 shorthands into 127.0.0.1.
  const blockedLiterals = [
    'http://127.0.0.1/',
    'http://2130706433/', // 127.0.0.1 as one decimal number
    'http://0x7f.1/', // hex and shortened
    'http://017700000001/', // octal
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://0/', // 0.0.0.0
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/', // cloud metadata
    'http://100.64.0.1/', // CGNAT
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://192.0.2.1/', // documentation
    'http://198.51.100.7/',
    'http://203.0.113.9/',
    'http://198.18.0.1/', // benchmarking
    'http://240.0.0.1/', // reserved
    'http://[::1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/', // IPv4-mapped
    'http://[::ffff:a9fe:a9fe]/', // mapped metadata address
    'http://[64:ff9b::7f00:1]/', // NAT64 of loopback
    'http://[2002:7f00:1::]/', // 6to4 of loopback
    'http://[2001::1]/', // Teredo
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[fe80::1]/',
    'http://[ff02::1]/',
    'http://[2001:db8::1]/', // documentation
    'http://[4000::1]/', // outside global unicast
  ];
  it.each(blockedLiterals)('refuses %s without resolving or connecting', async (url) => {
    const resolver = fixedResolver('8.8.8.8');
    const result = await fetcher({ resolve: resolver.resolve }).fetchPage(url);
    expect(result).toMatchObject({ ok: false, reason: 'blocked_address' });
    expect(resolver.calls).toEqual([]);
  });

  const badUrls = [
    'ftp://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html,<title>x</title>',
    'http://user:secret@example.com/',
    'http://:secret@example.com/',
    'example.com',
    'http://[fe80::1%25eth0]/',
    `http://example.com/${'a'.repeat(3000)}`,
  ];
  it.each(badUrls)('refuses %s as a bad URL', async (url) => {
    expect(refusal(await fetcher().fetchPage(url))).toBe('bad_url');
  });
});

describe('redirects', () => {
  it('follows relative redirects to the final page', async () => {
    const { base } = await serve((req, res) => {
      if (req.url === '/') return void res.writeHead(301, { location: '/en' }).end();
      if (req.url === '/en') return void res.writeHead(302, { location: `${base}/en/home` }).end();
      html('home')(req, res);
    });
    expect(await fetcher({ allowPrivateAddresses: true }).fetchPage(`${base}/`)).toMatchObject({
      ok: true,
      finalUrl: `${base}/en/home`,
      body: 'home',
    });
  });

  it('refuses a redirect from an allowed host to a blocked address', async () => {
    const { base, port } = await serve((req, res) => {
      if (req.url === '/go') return void res.writeHead(302, { location: `http://127.0.0.2:${port}/internal` }).end();
      html('inside')(req, res);
    });
    expect(refusal(await fetcher({ allowedRanges: ['127.0.0.1/32'] }).fetchPage(`${base}/go`))).toBe('blocked_address');
  });

  it('refuses a redirect to a name that resolves to a private address', async () => {
    const { base } = await serve((_req, res) => void res.writeHead(307, { location: 'http://intranet.example/' }).end());
    const resolver = fixedResolver('10.0.0.5');
    const result = await fetcher({ allowedRanges: ['127.0.0.1/32'], resolve: resolver.resolve }).fetchPage(`${base}/`);
    expect(refusal(result)).toBe('blocked_address');
    expect(resolver.calls).toEqual(['intranet.example']);
  });

  it('refuses a redirect to another scheme or to a URL with credentials', async () => {
    for (const location of ['file:///etc/passwd', 'http://admin:pw@127.0.0.1/']) {
      const { base } = await serve((_req, res) => void res.writeHead(302, { location }).end());
      expect(refusal(await fetcher({ allowPrivateAddresses: true }).fetchPage(`${base}/`))).toBe('bad_url');
    }
  });

  it('gives up on a redirect loop after five redirects', async () => {
    let hits = 0;
    const { base } = await serve((req, res) => {
      hits++;
      res.writeHead(302, { location: req.url === '/a' ? '/b' : '/a' }).end();
    });
    expect(refusal(await fetcher({ allowPrivateAddresses: true }).fetchPage(`${base}/a`))).toBe('too_many_redirects');
    expect(hits).toBe(6);
  });

  it('sends no cookie or authorization header along a redirect, and names itself', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const { base } = await serve((req, res) => {
      seen.push(req.headers);
      if (req.url === '/') return void res.writeHead(302, { location: '/next', 'set-cookie': 'session=abc' }).end();
      html('done')(req, res);
    });
    expect(await fetcher({ allowPrivateAddresses: true }).fetchPage(`${base}/`)).toMatchObject({ ok: true });
    expect(seen).toHaveLength(2);
    for (const headers of seen) {
      expect(headers.cookie).toBeUndefined();
      expect(headers.authorization).toBeUndefined();
      expect(headers['user-agent']).toMatch(/^TenantMemoryEnrichment\//);
    }
  });
});

describe('limits', () => {
  it('stops reading a body past the size limit (no Content-Length to trust)', async () => {
    let written = 0;
    const total = 64 * 1024 * 1024;
    const closed = new Promise<void>((resolveClosed) => {
      void serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          while (written < total && !res.destroyed) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => resolveClosed());
        pump();
      }).then(({ base }) =>
        fetcher({ allowPrivateAddresses: true, maxBytes: 100_000 })
          .fetchPage(`${base}/`)
          .then((r) => expect(refusal(r)).toBe('too_large')),
      );
    });
    await closed;
    expect(written).toBeLessThan(total / 4);
  });

  it('refuses an announced Content-Length past the limit before reading', async () => {
    const { base } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(5_000_000) });
      res.write('<html>');
    });
    expect(refusal(await fetcher({ allowPrivateAddresses: true, maxBytes: 1_000_000 }).fetchPage(`${base}/`))).toBe('too_large');
  });

  it('accepts a body of exactly the limit', async () => {
    const { base } = await serve(html('b'.repeat(1000)));
    expect(await fetcher({ allowPrivateAddresses: true, maxBytes: 1000 }).fetchPage(`${base}/`)).toMatchObject({ ok: true });
  });

  it('times out on a server that never answers', async () => {
    const { base } = await serve(() => {});
    const result = await fetcher({ allowPrivateAddresses: true, timeoutMs: 300 }).fetchPage(`${base}/`);
    expect(result).toMatchObject({ ok: false, reason: 'timeout' });
  });

  it('times out on a body that trickles in: the limit is for the whole fetch, not per read', async () => {
    const { base } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(timer));
    });
    expect(refusal(await fetcher({ allowPrivateAddresses: true, timeoutMs: 400 }).fetchPage(`${base}/`))).toBe('timeout');
  });

  it("stops when the caller's signal aborts", async () => {
    const { base } = await serve(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await fetcher({ allowPrivateAddresses: true, timeoutMs: 5000 }).fetchPage(`${base}/`, { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, reason: 'timeout', detail: 'aborted by the caller' });
  });
});

describe('answers', () => {
  it.each([
    ['application/pdf', 'not_html'],
    ['image/png', 'not_html'],
    ['text/plain', 'not_html'],
    ['', 'not_html'],
    ['application/ld+json', 'ok'],
    ['application/xhtml+xml; charset=utf-8', 'ok'],
    ['TEXT/HTML', 'ok'],
  ])('content type %j → %s', async (type, expected) => {
    const { base } = await serve((_req, res) => {
      if (type) res.setHeader('content-type', type);
      res.end('{}');
    });
    expect(refusal(await fetcher({ allowPrivateAddresses: true }).fetchPage(`${base}/`))).toBe(expected);
  });

  it('reports an error status as http_error', async () => {
    const { base } = await serve((_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('gone'));
    expect(await fetcher({ allowPrivateAddresses: true }).fetchPage(`${base}/`)).toMatchObject({
      ok: false,
      reason: 'http_error',
      detail: expect.stringContaining('404'),
    });
  });

  it('decodes the declared charset', async () => {
    const { base } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' });
      res.end(Buffer.from([0x4d, 0xfc, 0x6e, 0x63, 0x68, 0x65, 0x6e])); // "München" in Latin-1
    });
    expect(await fetcher({ allowPrivateAddresses: true }).fetchPage(`${base}/`)).toMatchObject({ ok: true, body: 'München' });
  });

  it('reports a refused connection as network', async () => {
    const { port } = await serve(html('x'));
    servers[0]!.close();
    servers.splice(0);
    await new Promise((r) => setTimeout(r, 20));
    expect(refusal(await fetcher({ allowPrivateAddresses: true }).fetchPage(`http://127.0.0.1:${port}/`))).toBe('network');
  });
});

describe('the connection guard on its own', () => {
  const strict = createAddressPolicy();

  it('checks the peer of the socket actually opened, even when no lookup ran (IP literal)', async () => {
    const { port } = await serve(html('x'));
    const connect = guardedConnector(fixedResolver('8.8.8.8').resolve, strict, 1000);
    const error = await new Promise<Error | null>((resolve) =>
      connect({ hostname: '127.0.0.1', host: `127.0.0.1:${port}`, protocol: 'http:', port: String(port) } as never, (err, socket) => {
        socket?.destroy();
        resolve(err);
      }),
    );
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect(error).toMatchObject({ address: '127.0.0.1', range: 'loopback' });
  });

  const lookupCases: Array<[string, string[], object, unknown]> = [
    ['one public answer', ['8.8.8.8'], {}, ['8.8.8.8', 4]],
    [
      'all answers when asked for all',
      ['2001:4860::1', '8.8.8.8'],
      { all: true },
      [
        [
          { address: '2001:4860::1', family: 6 },
          { address: '8.8.8.8', family: 4 },
        ],
      ],
    ],
    ['the asked family first', ['2001:4860::1', '8.8.8.8'], { family: 4 }, ['8.8.8.8', 4]],
    ['a private answer refuses the name', ['8.8.8.8', '192.168.0.10'], { all: true }, 'blocked'],
    ['a mapped loopback refuses the name', ['::ffff:127.0.0.1'], {}, 'blocked'],
    ['no answer is a resolution failure', [], {}, 'ENOTFOUND'],
  ];
  it.each(lookupCases)('lookup: %s', async (_name, answers, options, expected) => {
    const lookup = guardedLookup(fixedResolver(...answers).resolve, strict);
    const outcome = await new Promise((resolve) =>
      lookup(
        'company.example',
        options as never,
        ((err: Error | null, ...rest: unknown[]) =>
          resolve(err instanceof BlockedAddressError ? 'blocked' : err ? (err as { code?: string }).code : rest)) as never,
      ),
    );
    expect(outcome).toEqual(expected);
  });
});
