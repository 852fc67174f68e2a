/**
 * Writes and searches at the same time, as agents do, against a real `tenant-memory serve` child
 * process on the embedded profile: `--write-connections` keep-alive connections POST /memories while
 * `--search-connections` others GET /memories/search (hybrid, 2–3 words of the written texts), both
 * driven by autocannon for `--seconds`, in one tenant. Reported per worker mode:
 *
 *  - `inline` (the default): the serving process also consolidates, so the searched index grows and
 *    every consolidation batch competes with the requests on the same event loop;
 *  - `external`: workers off (a separate `tenant-memory worker` would consolidate), the acceptance path
 *    and the search path alone; the searched index stays as it was (empty here), so searches are cheap.
 *
 * What it shows that the single-purpose benches cannot: how the two paths share one process and one
 * SQLite write lock (every search writes its usage counter).
 *
 *   npx tsx bench/mixed-load.ts [--seconds 15] [--write-connections 16] [--search-connections 8]
 *                               [--modes inline,external] [--json bench/results/mixed-load.json]
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateMemories } from './memory-data.js';
import { tenantKey } from './support/api.js';
import { formatTable, noteIfLoaded, writeJsonResult } from './support/report.js';
import { cpuMsOf, spawnServer, UNLIMITED_PLAN_LIMITS, type SpawnedServer } from './support/server.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    'write-connections': { type: 'string', default: '16' },
    'search-connections': { type: 'string', default: '8' },
    modes: { type: 'string', default: 'inline,external' },
    json: { type: 'string', default: 'bench/results/mixed-load.json' },
  },
});
const SECONDS = Number(args.seconds);


interface Side {
  perSecond: number;
  p50: number;
  p97_5: number;
  p99: number;
}

async function measure(server: SpawnedServer, key: string, contents: string[], queries: string[]) {
  let w = 0;
  let q = 0;
  const unexpected: string[] = [];
  const check = (expected: number) => (status: number) => void (status !== expected && unexpected.push(String(status)));
  const cpu0 = cpuMsOf(server.child.pid);
  const [writes, searches] = await Promise.all([
    autocannon({
      url: `${server.url}/memories`,
      connections: Number(args['write-connections']),
      duration: SECONDS,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      requests: [{ setupRequest: (r) => ({ ...r, body: JSON.stringify({ content: `${contents[w % contents.length]} (${w++})` }) }), onResponse: check(202) }],
    }),
    autocannon({
      url: `${server.url}/memories/search`,
      connections: Number(args['search-connections']),
      duration: SECONDS,
      headers: { 'x-api-key': key },
      requests: [{ setupRequest: (r) => ({ ...r, path: `/memories/search?mode=hybrid&q=${encodeURIComponent(queries[q++ % queries.length]!)}` }), onResponse: check(200) }],
    }),
  ]);
  const cpu1 = cpuMsOf(server.child.pid);
  if (unexpected.length > 0 || writes.errors + searches.errors > 0) throw new Error(`unexpected answers: ${unexpected.slice(0, 5).join(', ')}; errors ${writes.errors + searches.errors}`);
  const side = (r: autocannon.Result): Side => ({ perSecond: Math.round(r.requests.total / SECONDS), p50: r.latency.p50, p97_5: r.latency.p97_5, p99: r.latency.p99 });
  return { writes: side(writes), searches: side(searches), serverCpuMsPerSecond: cpu0 !== null && cpu1 !== null ? Math.round((cpu1 - cpu0) / SECONDS) : null };
}

const contents = generateMemories(4000, 5).map((m) => m.content);
const queries = contents.slice(0, 300).map((c) => c.split(' ').slice(2, 5).join(' '));
const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
for (const mode of args.modes!.split(',')) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-mixed-'));
  const server = await spawnServer(dataDir, 1, { WORKER_MODE: mode, LOG_LEVEL: 'warn', PLAN_LIMITS: UNLIMITED_PLAN_LIMITS, NODE_ENV: 'production', SIGNUP_RATE_LIMIT: '0' });
  try {
    results[mode] = await measure(server, await tenantKey(server.url, ['memories:read', 'memories:write']), contents, queries);
    noteIfLoaded(` (workers ${mode})`);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const row = (mode: string, what: string, s: Side) => [`${what}, workers ${mode}`, String(s.perSecond), String(s.p50), String(s.p97_5), String(s.p99)];
console.log(
  formatTable(
    ['measure (one process, at the same time)', 'req/s', 'p50 ms', 'p97.5 ms', 'p99 ms'],
    Object.entries(results).flatMap(([mode, r]) => [row(mode, 'POST /memories', r.writes), row(mode, 'GET /memories/search', r.searches)]),
  ),
);
writeJsonResult(args.json!, { date: new Date().toISOString(), seconds: SECONDS, writeConnections: Number(args['write-connections']), searchConnections: Number(args['search-connections']), results });
console.log(`wrote ${args.json}`);
