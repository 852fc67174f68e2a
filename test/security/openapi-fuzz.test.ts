import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../adapters/rest/openapi-document.js';
import { appRouter } from '../../routers/_app.js';
import { version } from '../../server/version.js';
import { bearer, logIn, signUp, type SignedUpUser } from '../support/auth.js';
import { contractViolation, type RawResponse } from '../support/error-shape.js';
import { edgeStrings, encodeLoose, hostileBodies, hostileHeader, hostileJson, hostileUrlComponent } from '../support/hostile-values.js';
import { exampleOf, fillPath, operationsOf, type Operation, type OperationParam } from '../support/openapi-operations.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Fuzzes every REST operation of the OpenAPI document, parameter by parameter, with hostile values
 * (fast-check, fixed seed): the service must never answer 5xx, every 4xx must carry the catalogued
 * error body, and the service must still be healthy after each route. Each request keeps every
 * other input valid (the document's examples) so the hostile value reaches past validation of the rest.
 */

const SEED = 20_2620;
/** Runs per parameter with credentials, and without. Bounded so the file stays within its budget. */
const AUTHENTICATED_RUNS = 8;
const ANONYMOUS_RUNS = 2;

/** Headers the service reads on every route (none is declared per operation in the document). */
const readHeaders = ['authorization', 'x-api-key', 'x-tenant-id', 'idempotency-key', 'if-match', 'x-request-id', 'user-agent'] as const;

// Test names come from the same generator the server serves; `beforeAll` checks the served copy matches.
const operations = operationsOf(buildOpenApiDocument(appRouter, '', version) as any);

let server: TestServer;
let owner: SignedUpUser;
let apiKey: string;
/** Ids that exist in the fuzzing tenant, so a hostile body reaches the service behind a valid path. */
const knownIds: Record<string, string> = {};

async function createKey(name: string, token: string) {
  const res = await http(server.url, 'POST', '/api-keys', {
    headers: bearer(token),
    body: { name, scopes: ['memories:read', 'memories:write', 'knowledge:read', 'knowledge:write', 'knowledge:admin', 'usage:read'] },
  });
  expect(res.status).toBe(201);
  return res.body as { key_id: string; secret: string };
}

beforeAll(async () => {
  server = await startTestServer();
  const served = await http(server.url, 'GET', '/openapi.json');
  expect(operationsOf(served.body).map((o) => `${o.method} ${o.path}`)).toEqual(operations.map((o) => `${o.method} ${o.path}`));
  owner = await signUp(server.url);
  apiKey = (await createKey('fuzz', owner.accessToken)).secret;
  // A key the rotate and revoke routes may destroy without cutting the fuzz off.
  knownIds['/api-keys/{id}'] = (await createKey('fuzz-victim', owner.accessToken)).key_id;
  const person = await http(server.url, 'POST', '/v1/knowledge/person', {
    headers: { 'x-api-key': apiKey },
    body: { fields: { name: 'Fuzz Baseline' } },
  });
  expect(person.status).toBe(201);
  knownIds['/v1/knowledge/{type}/{id}'] = person.body.id;
}, 60_000);

/** A memory of the fuzzing tenant; each memory route gets its own, as one of them deletes it. */
async function freshMemory() {
  const memory = await http(server.url, 'POST', '/memories', {
    headers: { 'x-api-key': apiKey },
    body: { content: 'fuzz baseline memory' },
  });
  expect(memory.status).toBe(202);
  knownIds['/memories/{id}'] = memory.body.memory_id;
}

afterAll(async () => {
  await server?.close();
});

interface Request {
  path: Record<string, string>;
  /** Encoded `key=value` pairs. */
  query: string[];
  headers: Record<string, string>;
  /** Raw body text, or undefined for none. */
  body?: string;
  contentType?: string;
}

function pathValue(op: Operation, p: OperationParam): string {
  if (p.name === 'id') for (const [prefix, id] of Object.entries(knownIds)) if (op.path.startsWith(prefix)) return id;
  if (p.name === 'version') return '1';
  if (p.name === 'name') return 'viewer';
  if (p.name === 'type') return 'person';
  return '00000000-0000-4000-8000-000000000000';
}

/** A request every part of which is valid, carrying the credential the operation takes (or none). */
function baseline(op: Operation, authenticated: boolean, token: string): Request {
  const req: Request = { path: {}, query: [], headers: {} };
  for (const p of op.params) {
    if (p.in === 'path') req.path[p.name] = pathValue(op, p);
    else if (p.in === 'query' && p.required) req.query.push(`${p.name}=${encodeLoose(String(exampleOf(p.schema)))}`);
  }
  if (authenticated) {
    req.headers.authorization = `Bearer ${token}`;
    req.headers['x-api-key'] = apiKey;
  }
  if (op.body) {
    // Step-up verifies a password only when one is sent: send the right one, so the other fields are what is judged.
    const overrides = op.path === '/auth/step-up' ? { password: owner.password } : {};
    req.body = JSON.stringify({ ...(exampleOf(op.body) as object), ...overrides });
    req.contentType = 'application/json';
  }
  return req;
}

async function send(op: Operation, req: Request): Promise<RawResponse> {
  const url = fillPath(op.path, req.path) + (req.query.length ? `?${req.query.join('&')}` : '');
  const headers: Record<string, string> = { ...req.headers };
  if (req.contentType) headers['content-type'] = req.contentType;
  const res = await fetch(server.url + url, { method: op.method, headers, body: op.method === 'GET' ? undefined : req.body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function expectContract(op: Operation, req: Request, what: string) {
  const res = await send(op, req);
  const violation = contractViolation(res);
  if (violation) throw new Error(`${op.method} ${op.path} with ${what}: ${violation}`);
}

/** One way to spoil one input of a request: the fuzz runs each for every operation. */
interface Slot {
  name: string;
  arbitrary: fc.Arbitrary<(req: Request) => void>;
}

function replaceQuery(req: Request, name: string, pairs: string[]) {
  req.query = req.query.filter((q) => q.split('=')[0] !== name).concat(pairs);
}

/** Scalars written as arrays, repeated keys, bracket syntax, keys with no value. */
const queryShape = (name: string) =>
  fc
    .tuple(hostileUrlComponent, hostileUrlComponent, fc.constantFrom('one', 'repeated', 'brackets', 'indexed', 'bare', 'empty'))
    .map(([a, b, shape]) => {
      switch (shape) {
        case 'repeated':
          return [`${name}=${a}`, `${name}=${b}`];
        case 'brackets':
          return [`${name}[]=${a}`];
        case 'indexed':
          return [`${name}[0]=${a}`, `${name}[x]=${b}`];
        case 'bare':
          return [name];
        case 'empty':
          return [`${name}=`];
        default:
          return [`${name}=${a}`];
      }
    });

function slotsOf(op: Operation): Slot[] {
  const slots: Slot[] = [];
  for (const p of op.params) {
    if (p.in === 'path') {
      slots.push({
        name: `path ${p.name}`,
        arbitrary: hostileUrlComponent.filter((v) => v.length > 0).map((v) => (req) => void (req.path[p.name] = v)),
      });
    } else if (p.in === 'query') {
      slots.push({ name: `query ${p.name}`, arbitrary: queryShape(p.name).map((pairs) => (req) => replaceQuery(req, p.name, pairs)) });
    } else {
      slots.push({ name: `header ${p.name}`, arbitrary: hostileHeader.map((v) => (req) => void (req.headers[p.name.toLowerCase()] = v)) });
    }
  }
  slots.push({
    name: 'a header the service reads',
    arbitrary: fc.tuple(fc.constantFrom(...readHeaders), hostileHeader).map(
      ([h, v]) =>
        (req) =>
          void (req.headers[h] = v),
    ),
  });
  if (op.method !== 'GET') {
    const props = Object.keys(op.body?.properties ?? {});
    for (const prop of props) {
      slots.push({ name: `body ${prop}`, arbitrary: hostileJson.map((v) => (req) => void (req.body = withProperty(req.body, prop, v))) });
    }
    slots.push({
      name: 'an extra body property',
      arbitrary: fc
        .tuple(
          fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', ''), fc.constantFrom(...edgeStrings)),
          hostileJson,
        )
        .map(
          ([k, v]) =>
            (req) =>
              void (req.body = withProperty(req.body ?? '{}', k, v)),
        ),
    });
    slots.push({
      name: 'the whole body',
      arbitrary: fc
        .tuple(
          hostileBodies,
          fc.constantFrom(
            'application/json',
            'application/json',
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/json; charset=latin1',
            '',
          ),
        )
        .map(([body, type]) => (req) => {
          req.body = body;
          req.contentType = type || undefined;
        }),
    });
  }
  return slots;
}

/** Sets one property of a JSON object text to raw JSON text (which may be a duplicate or a prototype key). */
function withProperty(objectText: string | undefined, key: string, valueText: string): string {
  const parsed = JSON.parse(objectText ?? '{}') as Record<string, unknown>;
  const rest = Object.entries(parsed)
    .filter(([k]) => k !== key)
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `{${[...rest, `${JSON.stringify(key)}:${valueText}`].join(',')}}`;
}

/** Deterministic cases: each required input missing, a body over the size limit. */
function fixedCases(op: Operation): Array<{ what: string; spoil: (req: Request) => void }> {
  const cases: Array<{ what: string; spoil: (req: Request) => void }> = [];
  for (const p of op.params.filter((q) => q.in === 'query' && q.required)) {
    cases.push({ what: `query ${p.name} missing`, spoil: (req) => replaceQuery(req, p.name, []) });
  }
  for (const prop of (op.body?.required as string[] | undefined) ?? []) {
    cases.push({
      what: `body ${prop} missing`,
      spoil: (req) => {
        const body = JSON.parse(req.body ?? '{}') as Record<string, unknown>;
        delete body[prop];
        req.body = JSON.stringify(body);
      },
    });
  }
  if (op.method !== 'GET') {
    cases.push({
      what: 'a body over BODY_LIMIT_BYTES',
      spoil: (req) => void (req.body = JSON.stringify({ content: 'a'.repeat(1_100_000) })),
    });
  }
  return cases;
}

async function expectHealthy(token: string) {
  expect((await http(server.url, 'GET', '/healthz')).status).toBe(200);
  expect((await http(server.url, 'GET', '/auth/tenants', { headers: bearer(token) })).status).toBe(200);
  expect((await http(server.url, 'GET', '/memories?limit=1', { headers: { 'x-api-key': apiKey } })).status).toBe(200);
}

describe('OpenAPI-driven fuzz: no 5xx, the error body on every 4xx, healthy after each route', () => {
  it('covers a document with routes of every credential', () => {
    expect(new Set(operations.map((o) => o.credential))).toEqual(new Set(['none', 'bearer', 'apiKey']));
  });

  for (const op of operations) {
    it(`${op.method} ${op.path}`, async () => {
      // Revoking ends the session presented; that route gets a session of its own.
      const token = op.path === '/auth/revoke' ? (await logIn(server.url, owner.email, owner.password)).access_token : owner.accessToken;
      if (op.path.startsWith('/memories/{id}')) await freshMemory();
      const valid = await send(op, baseline(op, true, token));
      // The valid request gets past authentication (a refresh takes a refresh token, not the access token
      // sent); a step-up demand means it did.
      const passed = !(valid.status === 401 || (valid.status === 403 && JSON.parse(valid.text).code !== 'STEP_UP_REQUIRED'));
      if (op.credential !== 'none' && op.path !== '/auth/refresh') expect(passed, valid.text.slice(0, 300)).toBe(true);
      for (const slot of slotsOf(op)) {
        for (const authenticated of [true, false]) {
          await fc.assert(
            fc.asyncProperty(slot.arbitrary, async (spoil) => {
              const req = baseline(op, authenticated, token);
              spoil(req);
              await expectContract(op, req, `hostile ${slot.name}${authenticated ? '' : ' (no credentials)'}`);
            }),
            { seed: SEED, numRuns: authenticated ? AUTHENTICATED_RUNS : ANONYMOUS_RUNS, endOnFailure: true },
          );
        }
      }
      for (const { what, spoil } of fixedCases(op)) {
        const req = baseline(op, true, token);
        spoil(req);
        await expectContract(op, req, what);
      }
      await expectHealthy(owner.accessToken);
    }, 60_000);
  }
});

/** Query keys named like members of Object.prototype: the REST edge must treat them as any unknown key. */
const prototypeKeys = ['constructor=1', 'toString=1', '__proto__=x', 'hasOwnProperty=1', 'valueOf=1', '__defineGetter__=x'];

describe('prototype-named query keys', () => {
  for (const op of operations) {
    const name = `${op.method} ${op.path}: no 5xx, the error body`;
    it(name, async () => {
      for (const key of prototypeKeys) {
        const req = baseline(op, true, owner.accessToken);
        req.query.push(key);
        await expectContract(op, req, `query ${key}`);
      }
    });
  }
});

it('a request head over 16 KB answers 431 HEADERS_TOO_LARGE with the error body', async () => {
  const res = await fetch(`${server.url}/healthz`, { headers: { 'x-padding': 'x'.repeat(17_000) } });
  const raw: RawResponse = { status: res.status, headers: res.headers, text: await res.text() };
  expect(raw.status).toBe(431);
  expect(contractViolation(raw)).toBeNull();
  expect(JSON.parse(raw.text).code).toBe('HEADERS_TOO_LARGE');
});
