import { Agent, request, type Dispatcher } from 'undici';
import type { WebPageFetcher, WebPageRefusal, WebPageResult } from '../../server/ports/web-pages.js';
import { createAddressPolicy, ipLiteralOf, type AddressPolicyOptions } from './address-policy.js';
import { BlockedAddressError, guardedConnector, systemResolve, type ResolveHost } from './guarded-connect.js';

/**
 * The web enrichment engine's page fetcher (port `WebPageFetcher`) on undici: public addresses only,
 * checked on the address each connection really uses (see guarded-connect.ts); redirects followed by
 * hand so every hop goes through the same checks; one time limit for the whole fetch; the body read
 * only up to the size limit, whatever Content-Length says. No cookies, no auth headers, no cache.
 */
export interface PageFetcherOptions extends AddressPolicyOptions {
  /** DNS resolution; tests inject one to play a public name that resolves to a private address. */
  resolve?: ResolveHost;
  /** For the whole fetch, redirects and body included. Default 5 s. */
  timeoutMs?: number;
  /** Largest body read. Default 1 MiB. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  userAgent?: string;
}

export const DEFAULT_USER_AGENT = 'TenantMemoryEnrichment/1.0 (+knowledge web engine; reads schema.org and OpenGraph data)';
const ACCEPTED_TYPES = new Set(['text/html', 'application/xhtml+xml', 'application/ld+json']);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_URL_LENGTH = 2048;

export interface PageFetcher extends WebPageFetcher {
  /** Closes pooled connections. */
  close(): Promise<void>;
}

type Hop = { next: URL } | WebPageResult;

export function createPageFetcher(options: PageFetcherOptions = {}): PageFetcher {
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const policy = createAddressPolicy(options);
  const agent = new Agent({
    connect: guardedConnector(options.resolve ?? systemResolve, policy, timeoutMs),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  async function hop(url: URL, signal: AbortSignal): Promise<Hop> {
    const literal = ipLiteralOf(url.hostname);
    const range = literal === null ? null : policy.refusal(literal);
    if (range) return refused('blocked_address', `${url.hostname} is not a public address (${range})`);

    const res = await request(url, {
      method: 'GET',
      dispatcher: agent,
      signal,
      headers: { 'user-agent': userAgent, accept: 'text/html,application/xhtml+xml,application/ld+json;q=0.9' },
    });
    if (REDIRECT_STATUSES.has(res.statusCode) && typeof res.headers.location === 'string') {
      discard(res.body);
      return { next: new URL(res.headers.location, url) };
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      discard(res.body);
      return refused('http_error', `HTTP ${res.statusCode} from ${url.href}`);
    }
    const contentType = mediaType(res.headers['content-type']);
    if (!ACCEPTED_TYPES.has(contentType.type)) {
      discard(res.body);
      return refused('not_html', `content type '${contentType.type || 'none'}' from ${url.href}`);
    }
    const body = await readCapped(res.body, maxBytes, Number(res.headers['content-length'] ?? NaN));
    if (body === null) return refused('too_large', `body of ${url.href} exceeds ${maxBytes} bytes`);
    return { ok: true, finalUrl: url.href, status: res.statusCode, contentType: contentType.type, body: decode(body, contentType.charset) };
  }

  return {
    async fetchPage(rawUrl, opts = {}) {
      let url = checkedUrl(rawUrl);
      if (!(url instanceof URL)) return url;
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
      try {
        for (let redirects = 0; ; redirects++) {
          const result = await hop(url, signal);
          if (!('next' in result)) return result;
          if (redirects >= maxRedirects) return refused('too_many_redirects', `more than ${maxRedirects} redirects from ${rawUrl}`);
          const next = checkedUrl(result.next.href);
          if (!(next instanceof URL)) return next;
          url = next;
        }
      } catch (err) {
        return classify(err, signal, deadline, timeoutMs);
      }
    },
    close: () => agent.close(),
  };
}

function refused(reason: WebPageRefusal, detail: string): WebPageResult {
  return { ok: false, reason, detail };
}

/** An absolute http(s) URL without credentials, fragment dropped; otherwise the `bad_url` refusal. */
function checkedUrl(raw: string): URL | WebPageResult {
  if (raw.length > MAX_URL_LENGTH) return refused('bad_url', `URL longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refused('bad_url', 'not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refused('bad_url', `scheme ${url.protocol} is not http(s)`);
  if (url.username || url.password) return refused('bad_url', 'credentials in the URL are refused');
  url.hash = '';
  return url;
}

function mediaType(header: string | string[] | undefined): { type: string; charset: string | null } {
  const value = Array.isArray(header) ? (header[0] ?? '') : (header ?? '');
  const [type = '', ...params] = value.split(';');
  const charset = params.map((p) => p.trim().match(/^charset\s*=\s*"?([^";\s]+)"?$/i)?.[1]).find(Boolean) ?? null;
  return { type: type.trim().toLowerCase(), charset };
}

/** The body up to `maxBytes`, or null as soon as it (or its announced length) goes past: the rest is never read. */
async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number, announced: number): Promise<Buffer | null> {
  if (announced > maxBytes) {
    discard(body);
    return null;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      discard(body);
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** Drops the rest of a body; undici reports the destroy as an abort error nobody needs to hear. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

function decode(bytes: Buffer, charset: string | null): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function classify(err: unknown, signal: AbortSignal, deadline: AbortSignal, timeoutMs: number): WebPageResult {
  const blocked = findCause(err, (e) => e instanceof BlockedAddressError);
  if (blocked) return refused('blocked_address', blocked.message);
  if (deadline.aborted) return refused('timeout', `no complete answer within ${timeoutMs} ms`);
  if (signal.aborted) return refused('timeout', 'aborted by the caller');
  const undiciTimeout = findCause(err, (e) => /Timeout/.test((e as { code?: string }).code ?? '') || /Timeout/.test(e.name));
  if (undiciTimeout) return refused('timeout', undiciTimeout.message);
  const cause = err instanceof Error ? err : new Error(String(err));
  return refused('network', `${(cause as { code?: string }).code ?? cause.name}: ${cause.message}`);
}

/** The first error along `err`'s cause chain (undici may wrap the connector's error) matching `test`. */
function findCause(err: unknown, test: (e: Error) => boolean): Error | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (test(e)) return e;
  }
  return null;
}
