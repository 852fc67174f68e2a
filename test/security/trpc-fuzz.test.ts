import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../routers/_app.js';
import { errorCatalog, type ErrorCode } from '../../server/errors.js';
import { bearer, logIn, signUp, type SignedUpUser } from '../support/auth.js';
import { deepJson, hostileJson, prototypeObjects } from '../support/hostile-values.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * The same procedures as the REST fuzz, reached through `/trpc` (the typed client's door, with
 * superjson and batching): hostile inputs and hostile superjson metadata never answer 5xx, and
 * every error carries the catalogued body under `data.app` with the response's request id.
 */

const SEED = 20_2620;
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: 'query' | 'mutation' } }>).map(
  ([name, p]) => ({
    name,
    type: p._def.type,
  }),
);

let server: TestServer;
let owner: SignedUpUser;
let apiKey: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url);
  const key = await http(server.url, 'POST', '/api-keys', {
    headers: bearer(owner.accessToken),
    body: { name: 'trpc-fuzz', scopes: ['memories:read', 'memories:write', 'usage:read'] },
  });
  apiKey = key.body.secret;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** superjson envelopes: the input as `json`, plus metadata naming prototype members and bogus types. */
const hostileEnvelope: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileJson.map((j) => `{"json":${j}}`) },
  { weight: 1, arbitrary: hostileJson },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('__proto__', 'constructor', 'constructor.prototype', 'a', '', 'json'),
        fc.constantFrom(
          '["Date"]',
          '["undefined"]',
          '["bigint"]',
          '["regexp"]',
          '["class","X"]',
          '["custom","x"]',
          '"set"',
          '[["map",{}]]',
          '{}',
          '[]',
        ),
      )
      .map(([path, type]) => `{"json":{"a":"2020"},"meta":{"values":{${JSON.stringify(path)}:${type}},"v":1}}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ...prototypeObjects.map((o) => `{"json":${o}}`),
      '{"json":{},"meta":{"referentialEqualities":{"__proto__":["a"]}}}',
      '{"json":{"a":{}},"meta":{"referentialEqualities":{"a":["a.b.c"]}}}',
    ),
  },
  { weight: 1, arbitrary: deepJson.map((d) => `{"json":${d}}`) },
);

interface TrpcResponse {
  status: number;
  headers: Headers;
  text: string;
}

async function call(url: string, method: 'GET' | 'POST', input: string, headers: Record<string, string>): Promise<TrpcResponse> {
  const res =
    method === 'GET'
      ? await fetch(`${server.url}${url}${url.includes('?') ? '&' : '?'}input=${encodeURIComponent(input)}`, { headers })
      : await fetch(`${server.url}${url}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: input });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Why a /trpc answer breaks the contract, or null: no 5xx, each error with a catalogued `data.app` body. */
function violation(res: TrpcResponse): string | null {
  if (res.status >= 500) return `answered ${res.status}: ${res.text.slice(0, 300)}`;
  if (res.status < 400 && res.status !== 207) return null;
  let parsed: any;
  try {
    parsed = JSON.parse(res.text);
  } catch {
    return `a ${res.status} without a JSON body`;
  }
  for (const entry of Array.isArray(parsed) ? parsed : [parsed]) {
    if (!entry?.error) continue;
    const app = entry.error.json?.data?.app;
    if (!app || !Object.hasOwn(errorCatalog, app.code))
      return `an error without a catalogued data.app: ${JSON.stringify(entry).slice(0, 300)}`;
    if (errorCatalog[app.code as ErrorCode].status >= 500) return `a ${app.code} error: ${JSON.stringify(entry).slice(0, 300)}`;
    if (app.request_id !== res.headers.get('x-request-id')) return `request_id ${app.request_id} differs from X-Request-ID`;
  }
  return null;
}

async function expectHealthy() {
  expect((await http(server.url, 'GET', '/healthz')).status).toBe(200);
  expect((await http(server.url, 'GET', '/auth/tenants', { headers: bearer(owner.accessToken) })).status).toBe(200);
  expect((await http(server.url, 'GET', '/memories?limit=1', { headers: { 'x-api-key': apiKey } })).status).toBe(200);
}

describe('tRPC fuzz: no 5xx, the catalogued error body', () => {
  for (const proc of procedures) {
    it(
      proc.name,
      async () => {
        // Revoking ends the session presented; that procedure gets a session of its own.
        const token = proc.name === 'auth.revoke' ? (await logIn(server.url, owner.email, owner.password)).access_token : owner.accessToken;
        const method = proc.type === 'query' ? 'GET' : 'POST';
        for (const authenticated of [true, false]) {
          const headers: Record<string, string> = authenticated ? { authorization: `Bearer ${token}`, 'x-api-key': apiKey } : {};
          await fc.assert(
            fc.asyncProperty(hostileEnvelope, async (input) => {
              const problem = violation(await call(`/trpc/${proc.name}`, method, input, headers));
              if (problem) throw new Error(`${proc.name}${authenticated ? '' : ' (no credentials)'}: ${problem}`);
            }),
            { seed: SEED, numRuns: authenticated ? 10 : 3, endOnFailure: true },
          );
        }
        await expectHealthy();
      },
      30_000,
    );
  }

  it('a batch of hostile calls to every query procedure answers per call, never 5xx', async () => {
    const queries = procedures.filter((p) => p.type === 'query').map((p) => p.name);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          hostileJson.filter((j) => j.length < 2_000),
          { minLength: queries.length, maxLength: queries.length },
        ),
        async (inputs) => {
          const batch = `{${inputs.map((j, i) => `"${i}":{"json":${j}}`).join(',')}}`;
          const res = await call(`/trpc/${queries.join(',')}?batch=1`, 'GET', batch, bearer(owner.accessToken));
          const problem = violation(res);
          if (problem) throw new Error(`batch: ${problem}`);
        },
      ),
      { seed: SEED, numRuns: 5, endOnFailure: true },
    );
    await expectHealthy();
  });
});
