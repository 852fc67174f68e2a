/**
 * Fetches one public web page for the web enrichment engine (issue #23, engine `web`). Implemented in
 * `adapters/web/`. The implementation is the SSRF boundary: it refuses non-public addresses (checked on
 * the address actually connected to, on every redirect hop), credentials in URLs, oversized bodies,
 * slow servers and non-HTML answers, and reports each refusal as a fact the engine logs.
 */
export interface WebPageFetcher {
  /** Never throws for a refusal or a network failure: the outcome says what happened. */
  fetchPage(url: string, opts?: { signal?: AbortSignal }): Promise<WebPageResult>;
}

export type WebPageResult = WebPageFetched | WebPageRefused;

export interface WebPageFetched {
  ok: true;
  /** The URL after redirects: the page the body belongs to (JSON-LD `url`s are resolved against it). */
  finalUrl: string;
  status: number;
  /** The media type without parameters, lower case (`text/html`). */
  contentType: string;
  body: string;
}

export const WEB_PAGE_REFUSALS = [
  /** The host is, or resolves to, a private, loopback, link-local, multicast, reserved ... address. */
  'blocked_address',
  /** Not an absolute http(s) URL, or it carries credentials. */
  'bad_url',
  /** The body passed the size limit (reading stopped there). */
  'too_large',
  /** The whole fetch, redirects included, passed its time limit (or the caller aborted). */
  'timeout',
  'too_many_redirects',
  /** The final answer was not 2xx. */
  'http_error',
  /** The answer is neither HTML nor JSON-LD. */
  'not_html',
  /** DNS failure, refused connection, TLS error, reset ... */
  'network',
] as const;
export type WebPageRefusal = (typeof WEB_PAGE_REFUSALS)[number];

export interface WebPageRefused {
  ok: false;
  reason: WebPageRefusal;
  /** For the enrichment log and operators; never shown to other tenants. */
  detail: string;
}
