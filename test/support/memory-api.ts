import { bearer, signUp, type SignedUpUser } from './auth.js';
import { http } from './server.js';

export const ALL_MEMORY_SCOPES = ['memories:read', 'memories:write', 'usage:read'];

/** Creates an API key over HTTP (POST /api-keys) and returns its secret; throws unless 201. */
export async function createApiKey(
  baseUrl: string,
  user: SignedUpUser,
  scopes: string[] = ALL_MEMORY_SCOPES,
  namespaces?: string[],
): Promise<string> {
  const body: Record<string, unknown> = { name: `key-${scopes.join('+')}`, scopes };
  if (namespaces) body.namespace_restrictions = namespaces;
  const res = await http(baseUrl, 'POST', '/api-keys', { body, headers: bearer(user.accessToken) });
  if (res.status !== 201) throw new Error(`api key create failed: ${res.status} ${res.text}`);
  return res.body.secret as string;
}

/** A fresh tenant (sign-up) with an API key holding `scopes`. */
export async function tenantWithKey(baseUrl: string, scopes: string[] = ALL_MEMORY_SCOPES): Promise<{ user: SignedUpUser; key: string }> {
  const user = await signUp(baseUrl);
  return { user, key: await createApiKey(baseUrl, user, scopes) };
}

/** `http` with an X-API-Key. */
export function withKey(baseUrl: string, key: string) {
  return (method: string, url: string, opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {}) =>
    http(baseUrl, method, url, { ...opts, headers: { 'x-api-key': key, ...(opts.headers ?? {}) } });
}

/** Polls GET /usage until the tenant has no queued writes (needs `usage:read`); returns the last usage body. */
export async function waitConsolidated(baseUrl: string, key: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
  const call = withKey(baseUrl, key);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call('GET', '/usage');
    if (res.status !== 200) throw new Error(`usage failed: ${res.status} ${res.text}`);
    if (res.body.pending_writes === 0) return res.body;
    if (Date.now() > deadline) throw new Error(`still ${res.body.pending_writes} pending writes after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Polls a knowledge object (GET `path` with `api`) until no enrichment run holds it; its body then. */
export async function waitSettled(
  api: (method: string, url: string) => Promise<{ body: any }>,
  path: string,
  timeoutMs = 20_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api('GET', path);
    if (res.body.status !== 'ENRICHING') return res.body;
    if (Date.now() > deadline) throw new Error(`still ENRICHING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
