/**
 * Cost of OIDC single sign-on on our side.
 *
 *   npx tsx bench/sso.ts [--ops 20000] [--pending 10000] [--logins 200] [--json bench/results/sso.json]
 *
 * 1. In process: the embedded pending-login store, `save` and `consume` per call (µs), with
 *    `--pending` live rows already in the table.
 * 2. Over HTTP: `--logins` complete sign-ins of one returning user against a real OpenID Provider
 *    (oidc-provider) on loopback and our real server on loopback, one at a time. Timed separately:
 *    `POST /auth/sso/login` (discovery is cached after the first), the provider's own redirects and
 *    interactions (not ours; shown for scale), and `GET /auth/callback` (code exchange, ID token
 *    validation, userinfo, user lookup, session issue).
 *
 * Prints a table and writes JSON (default bench/results/sso.json, which is gitignored).
 */
import { createHash, randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { openInMemoryDatabase } from '../adapters/embedded/database.js';
import { createEmbeddedSsoStateStore } from '../adapters/embedded/sso-state.js';
import { followToCallback, startTestIdentityProvider } from '../test/support/oidc-provider.js';
import { startTestServer } from '../test/support/server.js';
import { noteIfLoaded, writeJsonResult } from './support/report.js';
import { summariseNsAsUs as summarise, type MicrosRow as Row } from './support/stats.js';
import { benchArgs } from './support/args.js';

const USAGE = `Usage: npm run bench:sso -- [options]

Cost of OIDC single sign-on on our side: the pending-login store per call, then complete sign-ins
against a real OpenID Provider on loopback.

Options:
  --ops N            save/consume calls on the pending-login store (default 20000)
  --pending N        live pending logins already in the table (default 10000)
  --logins N         complete sign-ins over HTTP (default 200)
  --json FILE        where the result goes (default bench/results/sso.json)
  --help             this text
`;

const args = benchArgs(USAGE, {
  ops: { type: 'string', default: '20000' },
  pending: { type: 'string', default: '10000' },
  logins: { type: 'string', default: '200' },
  json: { type: 'string', default: 'bench/results/sso.json' },
});
const OPS = Number(args.ops);
const PENDING = Number(args.pending);
const LOGINS = Number(args.logins);

const elapsed = (start: bigint) => Number(process.hrtime.bigint() - start);

async function storeRows(): Promise<Row[]> {
  const db = openInMemoryDatabase();
  const store = createEmbeddedSsoStateStore(db);
  const now = Date.now();
  const login = () => ({
    stateHash: createHash('sha256').update(randomBytes(32)).digest('hex'),
    providerId: 'acme',
    nonce: randomBytes(32).toString('base64url'),
    codeVerifier: randomBytes(32).toString('base64url'),
    redirectUri: 'https://tm.example/auth/callback',
    createdAt: new Date(now),
    expiresAt: new Date(now + 600_000),
  });
  for (let i = 0; i < PENDING; i++) await store.save(login());
  const logins = Array.from({ length: OPS }, login);
  const saves: number[] = [];
  for (const l of logins) {
    const t = process.hrtime.bigint();
    await store.save(l);
    saves.push(elapsed(t));
  }
  const consumes: number[] = [];
  const at = new Date(now + 1000);
  for (const l of logins) {
    const t = process.hrtime.bigint();
    await store.consume(l.stateHash, at);
    consumes.push(elapsed(t));
  }
  db.close();
  return [summarise(`state store save (${PENDING} pending)`, saves), summarise(`state store consume (${PENDING} pending)`, consumes)];
}

async function httpRows(): Promise<Row[]> {
  const idp = await startTestIdentityProvider();
  idp.accounts.set('bench-sub', { sub: 'bench-sub', email: 'bench@example.test', email_verified: true, name: 'Bench' });
  const server = await startTestServer({
    LOG_LEVEL: 'warn',
    OIDC_PROVIDERS: JSON.stringify([{ id: 'loop', issuer: idp.issuer, client_id: 'tm', client_secret: 'bench-secret-0123456789' }]),
  });
  const callbackBase = `${server.url}/auth/callback`;
  idp.configure([{ client_id: 'tm', client_secret: 'bench-secret-0123456789' }], callbackBase);
  const start: number[] = [];
  const provider: number[] = [];
  const callback: number[] = [];
  try {
    for (let i = 0; i < LOGINS + 1; i++) {
      let t = process.hrtime.bigint();
      const res = await fetch(`${server.url}/auth/sso/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"provider":"loop"}',
      });
      const started = (await res.json()) as { authorization_url: string };
      const startNs = elapsed(t);
      t = process.hrtime.bigint();
      const url = await followToCallback(started.authorization_url, callbackBase, { account: 'bench-sub' });
      const providerNs = elapsed(t);
      t = process.hrtime.bigint();
      const done = await fetch(url);
      await done.arrayBuffer();
      const callbackNs = elapsed(t);
      if (done.status !== 200) throw new Error(`callback answered ${done.status}`);
      if (i === 0) continue; // the first one pays for discovery and user provisioning
      start.push(startNs);
      provider.push(providerNs);
      callback.push(callbackNs);
    }
  } finally {
    await server.close();
    await idp.close();
  }
  return [
    summarise('POST /auth/sso/login', start),
    summarise('provider redirects + interactions (not ours)', provider),
    summarise('GET /auth/callback (returning user)', callback),
  ];
}

async function main() {
  const rows = [...(await storeRows()), ...(await httpRows())];
  console.table(rows);
  const load = noteIfLoaded();
  const result = {
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    load_average_1m: Math.round(load * 100) / 100,
    ops: OPS,
    pending: PENDING,
    logins: LOGINS,
    rows,
  };
  writeJsonResult(args.json!, result);
  console.log(`wrote ${args.json}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
