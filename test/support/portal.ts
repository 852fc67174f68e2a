import { http } from './server.js';

/** A signed-in portal browser, as tests hold it: the cookie pair to send back and the session's CSRF token. */
export interface PortalBrowser {
  /** `name=value`, as a browser would send it in `Cookie`. */
  cookie: string;
  csrf: string;
  userId: string;
  tenantId: string;
  /** The login response body. */
  session: any;
}

/** Signs in through POST /api/portal/login; throws unless 200 with a cookie. */
export async function portalLogin(
  base: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<PortalBrowser> {
  const res = await http(base, 'POST', '/api/portal/login', { body: { email, password }, headers });
  const setCookie = res.headers.get('set-cookie');
  if (res.status !== 200 || !setCookie) throw new Error(`portal login failed: ${res.status} ${res.text}`);
  return {
    cookie: setCookie.split(';')[0]!,
    csrf: res.body.csrf_token,
    userId: res.body.user_id,
    tenantId: res.body.tenant_id,
    session: res.body,
  };
}

/**
 * A portal call as the signed-in browser makes it: the cookie, the CSRF token on anything but GET, and
 * `X-Tenant-ID` when given. `headers` go last, so a test can drop or forge any of them.
 */
export function portalCall(
  base: string,
  browser: PortalBrowser,
  method: string,
  url: string,
  opts: { body?: unknown; tenantId?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { cookie: browser.cookie };
  if (method !== 'GET') headers['x-csrf-token'] = browser.csrf;
  if (opts.tenantId) headers['x-tenant-id'] = opts.tenantId;
  return http(base, method, url, { body: opts.body, headers: { ...headers, ...opts.headers } });
}

/** A step-up token earned in the portal session (`POST /api/portal/step-up` with the password); throws unless 200. */
export async function portalStepUp(
  base: string,
  browser: PortalBrowser,
  action: string,
  password: string,
  tenantId?: string,
): Promise<string> {
  const res = await portalCall(base, browser, 'POST', '/api/portal/step-up', { body: { action, password }, tenantId });
  if (res.status !== 200) throw new Error(`portal step-up failed: ${res.status} ${res.text}`);
  return res.body.step_up_token;
}
