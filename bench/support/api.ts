/** The few HTTP calls the load benches make around their measured traffic (sign-up, keys, checks). */

/** A fetch whose JSON body (if any) is parsed. */
export async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Sign-up of a fresh tenant and an API key with `scopes`; returns the key's secret. */
export async function tenantKey(url: string, scopes: readonly string[]): Promise<string> {
  return (await tenantWithKey(url, scopes)).key;
}

/** Sign-up of a fresh tenant and an API key with `scopes`: the tenant's id and the key's secret. */
export async function tenantWithKey(url: string, scopes: readonly string[]): Promise<{ tenantId: string; key: string }> {
  const email = `bench-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  const signup = await json(`${url}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'bench-password-123' }),
  });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${JSON.stringify(signup.body)}`);
  const key = await json(`${url}/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${signup.body.access_token}` },
    body: JSON.stringify({ name: 'bench', scopes }),
  });
  if (key.status !== 201) throw new Error(`api key: ${key.status} ${JSON.stringify(key.body)}`);
  return { tenantId: signup.body.tenant_id as string, key: key.body.secret as string };
}
