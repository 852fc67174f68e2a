/**
 * What `GET /api/portal/dashboard` costs for a tenant with many memories.
 *
 *   npm run bench:portal-dashboard -- [--memories 100000] [--calls 300] [--warmup 30] [--json bench/results/portal-dashboard.json]
 *
 * A real server in this process (embedded profile, production logging discarded, hashing embedder so
 * loading is not the bench), a tenant made through sign-up, `--memories` memories loaded through the
 * storage ports (bench/support/memory-loader.ts, not HTTP), a day of reads and searches counted, then
 * the dashboard called over HTTP with the portal cookie `--calls` times one after another. Prints
 * p50/p95/p99 (target: p95 ≤ 50 ms) and writes JSON (bench/results/ is gitignored).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { HashingEmbedder } from '../adapters/embeddings/hashing.js';
import { loadConfig } from '../server/config.js';
import { createLogger } from '../server/logger.js';
import { startServer } from '../server/main.js';
import { benchArgs } from './support/args.js';
import { generateTenant } from './support/corpus.js';
import { benchMemoryId, loadConsolidatedMemories } from './support/memory-loader.js';
import { formatTable, noteIfLoaded, writeJsonResult } from './support/report.js';
import { UNLIMITED_PLAN_LIMITS } from './support/server.js';
import { latencyStats } from './support/stats.js';

const USAGE = `Usage: npm run bench:portal-dashboard -- [options]

The portal dashboard's latency over HTTP (cookie session) for a tenant with many memories, loaded
through the storage ports. Target: p95 <= 50 ms.

Options:
  --memories N   memories of the tenant (default 100000)
  --calls N      dashboard calls measured, one after another (default 300)
  --warmup N     calls before measuring (default 30)
  --json FILE    where the result goes (default bench/results/portal-dashboard.json)
  --help         this text
`;

const args = benchArgs(USAGE, {
  memories: { type: 'string', default: '100000' },
  calls: { type: 'string', default: '300' },
  warmup: { type: 'string', default: '30' },
  json: { type: 'string', default: 'bench/results/portal-dashboard.json' },
});
const MEMORIES = Number(args.memories);
const CALLS = Number(args.calls);
const WARMUP = Number(args.warmup);

const round = (v: number) => Math.round(v * 100) / 100;

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-bench-dashboard-'));
  const embedder = new HashingEmbedder();
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    EMBEDDINGS_PROVIDER: 'hash',
    SIGNUP_RATE_LIMIT: '0',
    PLAN_LIMITS: UNLIMITED_PLAN_LIMITS,
  });
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const server = await startServer(config, createLogger(config.LOG_LEVEL, sink), { workers: false, embedder });
  try {
    const json = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${server.url}${url}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as any, cookie: res.headers.get('set-cookie') };
    };
    const credentials = { email: `bench-dashboard-${Date.now()}@example.test`, password: 'bench dashboard password 1' };
    const su = await json('POST', '/auth/signup', credentials);
    if (su.status !== 201) throw new Error(`signup failed: ${su.status}`);
    const tenantId = su.body.tenant_id as string;

    const t0 = Date.now();
    const vectorizer = { embedOne: (text: string) => embedder.embedOne(text) };
    const docs = (function* () {
      let i = 0;
      for (const d of generateTenant(7, MEMORIES, vectorizer)) yield { ...d, memoryId: benchMemoryId(7, i++) };
    })();
    const loaded = await loadConsolidatedMemories(server.services.ports, tenantId, docs, {
      onProgress: (n) => n % 20_000 === 0 && console.log(`loaded ${n} memories`),
    });
    const loadMs = Date.now() - t0;

    const login = await json('POST', '/api/portal/login', credentials);
    if (login.status !== 200 || !login.cookie) throw new Error(`portal login failed: ${login.status}`);
    const cookie = login.cookie.split(';')[0]!;
    // Some period traffic, so the counters and the history have rows to read.
    const key = await json(
      'POST',
      '/api/portal/credentials',
      { name: 'bench', scopes: ['memories:read'] },
      {
        cookie,
        'x-csrf-token': login.body.csrf_token,
      },
    );
    for (let i = 0; i < 20; i++) await json('GET', '/memories/search?q=bench', undefined, { 'x-api-key': key.body.secret });

    const call = async () => {
      const start = process.hrtime.bigint();
      const res = await fetch(`${server.url}/api/portal/dashboard`, { headers: { cookie } });
      const body = (await res.json()) as { total_memories: number };
      if (res.status !== 200) throw new Error(`dashboard answered ${res.status}`);
      return { ms: Number(process.hrtime.bigint() - start) / 1e6, total: body.total_memories };
    };
    for (let i = 0; i < WARMUP; i++) await call();
    const load = noteIfLoaded();
    const samples: number[] = [];
    let total = 0;
    for (let i = 0; i < CALLS; i++) {
      const r = await call();
      samples.push(r.ms);
      total = r.total;
    }
    const s = latencyStats(samples);
    const row = { memories: total, calls: CALLS, p50_ms: round(s.p50), p95_ms: round(s.p95), p99_ms: round(s.p99), mean_ms: round(s.mean) };
    console.log(`loaded ${loaded} memories through the storage ports in ${(loadMs / 1000).toFixed(1)} s`);
    console.log(
      formatTable(
        ['GET /api/portal/dashboard', 'memories', 'calls', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms'],
        [
          [
            'cookie session',
            String(row.memories),
            String(row.calls),
            String(row.p50_ms),
            String(row.p95_ms),
            String(row.p99_ms),
            String(row.mean_ms),
          ],
        ],
      ),
    );
    console.log(`target p95 <= 50 ms: ${row.p95_ms <= 50 ? 'met' : 'NOT met'}`);
    writeJsonResult(args.json!, { ...row, load_ms: loadMs, load_average: load });
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
