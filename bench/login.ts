/**
 * What a password sign-in costs, and what the argon2id parameters cost.
 *
 *   npx tsx bench/login.ts [--sequential 60] [--concurrent 120] [--concurrency 4] [--failures 20] [--json bench/results/login.json]
 *
 * 1. In process: one argon2id verification at the shipped OWASP parameters (m=19 MiB, t=2, p=1)
 *    and at stronger alternatives, so the choice is made on measured numbers for this machine.
 * 2. Over HTTP against a real `tenant-memory serve` child process (embedded profile, production
 *    logging to /dev/null): `--sequential` logins one after another, then `--concurrent` logins from
 *    `--concurrency` clients at once (p50/p95/p99 and logins per second); then `--failures` failed
 *    sign-ins each for a wrong password and an unknown email, whose latencies should match (the
 *    unknown email verifies against a dummy hash so timing does not reveal whether an account
 *    exists); then refresh and an authenticated bearer call, for scale.
 *
 * Prints a table and writes JSON (default bench/results/login.json, which is gitignored).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createPasswordHasher, defaultArgon2Params, type Argon2Params } from '../server/services/passwords.js';
import { formatTable, writeJsonResult } from './support/report.js';
import { freePort, waitReady } from './support/server.js';
import { latencyStats } from './support/stats.js';
import { benchArgs } from './support/args.js';

const USAGE = `Usage: npm run bench:login -- [options]

What a password sign-in costs: argon2id at the shipped and stronger parameters in process, then
logins, failed sign-ins, refresh and a bearer call over HTTP against a real server.

Options:
  --sequential N     logins one after another (default 60)
  --concurrent N     logins from --concurrency clients at once (default 120)
  --concurrency N    concurrent clients (default 4)
  --failures N       failed sign-ins per kind; 2 × N must stay under the throttle (default 20)
  --hash-samples N   argon2id verifications per parameter set (default 20)
  --json FILE        where the result goes (default bench/results/login.json)
  --help             this text
`;

const args = benchArgs(USAGE, {
  sequential: { type: 'string', default: '60' },
  concurrent: { type: 'string', default: '120' },
  concurrency: { type: 'string', default: '4' },
  // Keep failures under the per-address throttle (50 per 15 min): 2 × failures must stay below it.
  failures: { type: 'string', default: '20' },
  'hash-samples': { type: 'string', default: '20' },
  json: { type: 'string', default: 'bench/results/login.json' },
});
const SEQUENTIAL = Number(args.sequential);
const CONCURRENT = Number(args.concurrent);
const CONCURRENCY = Number(args.concurrency);
const FAILURES = Math.min(Number(args.failures), 24);
const HASH_SAMPLES = Number(args['hash-samples']);

interface Row {
  case: string;
  n: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  mean_ms: number;
  per_s?: number;
}

const round = (v: number) => Math.round(v * 100) / 100;
function summarise(name: string, samplesMs: number[], wallMs?: number, parallel = 1): Row {
  const s = latencyStats(samplesMs);
  const row: Row = {
    case: name,
    n: samplesMs.length,
    p50_ms: round(s.p50),
    p95_ms: round(s.p95),
    p99_ms: round(s.p99),
    mean_ms: round(s.mean),
  };
  if (wallMs !== undefined) row.per_s = round((samplesMs.length / wallMs) * 1000);
  else if (parallel === 1 && row.mean_ms > 0) row.per_s = round(1000 / row.mean_ms);
  return row;
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

async function argon2Rows(): Promise<Row[]> {
  const candidates: Array<[string, Argon2Params]> = [
    ['argon2id verify m=19MiB t=2 p=1 (shipped, OWASP)', defaultArgon2Params],
    ['argon2id verify m=46MiB t=1 p=1 (OWASP alt.)', { memoryCost: 47_104, timeCost: 1, parallelism: 1 }],
    ['argon2id verify m=64MiB t=3 p=1 (RFC 9106 2nd)', { memoryCost: 65_536, timeCost: 3, parallelism: 1 }],
  ];
  const rows: Row[] = [];
  for (const [name, params] of candidates) {
    const hasher = createPasswordHasher(params);
    const h = await hasher.hash('benchmark password 123');
    await hasher.verify(h, 'benchmark password 123'); // warm-up
    const samples: number[] = [];
    for (let i = 0; i < HASH_SAMPLES; i++) {
      const t0 = process.hrtime.bigint();
      await hasher.verify(h, 'benchmark password 123');
      samples.push(ms(t0));
    }
    rows.push(summarise(name, samples));
  }
  return rows;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, string>;
  return { status: res.status, json };
}

async function httpRows(): Promise<Row[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-bench-login-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    ['bin/tenant-memory.mjs', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir],
    {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        EMBEDDINGS_PROVIDER: 'hash',
        NODE_ENV: 'production',
        WORKER_MODE: 'external',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const rows: Row[] = [];
  try {
    await waitReady(url);
    const password = 'benchmark password 123';
    const email = 'bench@example.com';
    const signup = await post(`${url}/auth/signup`, { email, password });
    if (signup.status !== 201) throw new Error(`signup answered ${signup.status}`);
    const login = async () => {
      const t0 = process.hrtime.bigint();
      const res = await post(`${url}/auth/login`, { email, password });
      if (res.status !== 200) throw new Error(`login answered ${res.status}`);
      return { ms: ms(t0), tokens: res.json };
    };
    await login(); // warm-up

    const sequential: number[] = [];
    let last: Record<string, string> = {};
    for (let i = 0; i < SEQUENTIAL; i++) {
      const r = await login();
      sequential.push(r.ms);
      last = r.tokens;
    }
    rows.push(summarise('HTTP login, sequential', sequential));

    const concurrent: number[] = [];
    let issued = 0;
    const start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (issued < CONCURRENT) {
          issued++;
          concurrent.push((await login()).ms);
        }
      }),
    );
    rows.push(summarise(`HTTP login, ${CONCURRENCY} concurrent`, concurrent, ms(start)));

    // Failed sign-ins: wrong password for an existing account vs an email nobody has.
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < FAILURES; i++) {
      let t0 = process.hrtime.bigint();
      if ((await post(`${url}/auth/login`, { email, password: `wrong ${i} password` })).status !== 401) throw new Error('expected 401');
      wrong.push(ms(t0));
      t0 = process.hrtime.bigint();
      if ((await post(`${url}/auth/login`, { email: `nobody-${i}@example.com`, password: 'wrong password' })).status !== 401)
        throw new Error('expected 401');
      unknown.push(ms(t0));
      if (i % 4 === 3) await login(); // a success clears the per-account count, so the 5-failure lock-out never triggers
    }
    rows.push(summarise('HTTP login failed: wrong password', wrong));
    rows.push(summarise('HTTP login failed: unknown email', unknown));

    const refresh: number[] = [];
    let refreshToken = last.refresh_token!;
    for (let i = 0; i < SEQUENTIAL; i++) {
      const t0 = process.hrtime.bigint();
      const r = await post(`${url}/auth/refresh`, {}, { authorization: `Bearer ${refreshToken}` });
      if (r.status !== 200) throw new Error(`refresh answered ${r.status}`);
      refresh.push(ms(t0));
      refreshToken = r.json.refresh_token!;
    }
    rows.push(summarise('HTTP refresh (rotation)', refresh));

    const bearerCall: number[] = [];
    for (let i = 0; i < SEQUENTIAL * 5; i++) {
      const t0 = process.hrtime.bigint();
      const res = await fetch(`${url}/auth/gettenant`, { headers: { authorization: `Bearer ${last.access_token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`gettenant answered ${res.status}`);
      bearerCall.push(ms(t0));
    }
    rows.push(summarise('HTTP bearer call (JWT + live session check)', bearerCall));
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

function printTable(rows: Row[]): void {
  const header = ['case', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms', 'per s'];
  const body = rows.map((r) => [
    r.case,
    String(r.n),
    r.p50_ms.toFixed(2),
    r.p95_ms.toFixed(2),
    r.p99_ms.toFixed(2),
    r.mean_ms.toFixed(2),
    r.per_s?.toFixed(1) ?? '',
  ]);
  console.log(formatTable(header, body));
}

const rows = [...(await argon2Rows()), ...(await httpRows())];
printTable(rows);
const result = {
  bench: 'login',
  at: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadavg: loadavg(), node: process.version },
  params: { sequential: SEQUENTIAL, concurrent: CONCURRENT, concurrency: CONCURRENCY, failures: FAILURES, argon2: defaultArgon2Params },
  rows,
};
writeJsonResult(args.json!, result, { trailingNewline: true });
console.log(`\nwrote ${args.json}`);
