/**
 * Everything agents do at once, against a real `tenant-memory serve` child process on the embedded
 * profile: `--clients` keep-alive connections (autocannon) split between writes (POST /memories),
 * reads (GET /memories/{id} of memories written before the run), searches (GET /memories/search,
 * hybrid, 2–3 words of the written texts) and lists (GET /memories?limit=20), for `--seconds`, in one
 * tenant. Reported per worker mode, with every answer that was not the expected status counted as an
 * error (the run exits 1 when there is one) and the server's resident memory at start, after seeding
 * and at the end:
 *
 *  - `inline` (the default): the serving process also consolidates, so the searched index grows and
 *    every consolidation batch competes with the requests on the same event loop;
 *  - `external`: workers off (a separate `tenant-memory worker` would consolidate), the acceptance path
 *    and the read paths alone.
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateMemories } from './memory-data.js';
import { json, tenantKey } from './support/api.js';
import { formatTable, noteIfLoaded, writeJsonResult } from './support/report.js';
import { cpuMsOf, rssMbOf, spawnServer, UNLIMITED_PLAN_LIMITS, type SpawnedServer } from './support/server.js';

const usage = `usage: npm run bench:mixed-load -- [options]
  --seconds N        length of the timed run (default 60)
  --clients N        connections in all (default 50), split writes / reads / searches / lists
  --mix W,R,S,L      the split, as shares (default 3,3,2,2)
  --seed N           memories written and consolidated before the run, read by the readers (default 1000)
  --modes LIST       worker modes to run, comma-separated: inline, external (default inline)
  --json FILE        where the result goes (default bench/results/mixed-load.json)
  --help             this text`;

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    clients: { type: 'string', default: '50' },
    mix: { type: 'string', default: '3,3,2,2' },
    seed: { type: 'string', default: '1000' },
    modes: { type: 'string', default: 'inline' },
    json: { type: 'string', default: 'bench/results/mixed-load.json' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const SECONDS = Number(args.seconds);
const CLIENTS = Number(args.clients);
const SEED = Number(args.seed);
const SHARES = args.mix!.split(',').map(Number);
if (!(SECONDS > 0) || !(CLIENTS >= 4) || !(SEED >= 1) || SHARES.length !== 4 || SHARES.some((s) => !(s > 0))) {
  console.error(usage);
  process.exit(2);
}

const KINDS = ['writes', 'reads', 'searches', 'lists'] as const;
type Kind = (typeof KINDS)[number];

/** Connections per kind: the shares of `total`, each at least one, summing to `total`. */
function split(total: number, shares: number[]): Record<Kind, number> {
  const sum = shares.reduce((a, b) => a + b, 0);
  const counts = shares.map((s) => Math.max(1, Math.floor((total * s) / sum)));
  for (let i = 0; counts.reduce((a, b) => a + b, 0) < total; i = (i + 1) % counts.length) counts[i]!++;
  return Object.fromEntries(KINDS.map((k, i) => [k, counts[i]!])) as Record<Kind, number>;
}

interface Side {
  connections: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Writes `contents` with 16 requests in flight and waits until all are consolidated; returns their ids. */
async function seed(url: string, key: string, contents: string[]): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const writer = async () => {
    while (next < contents.length) {
      const content = contents[next++]!;
      const res = await json(`${url}/memories`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ content }),
      });
      if (res.status !== 202) throw new Error(`seed write: ${res.status} ${JSON.stringify(res.body)}`);
      ids.push(res.body.memory_id as string);
    }
  };
  await Promise.all(Array.from({ length: 16 }, writer));
  const deadline = Date.now() + 10 * 60_000;
  while ((await json(`${url}/usage`, { headers: { 'x-api-key': key } })).body.pending_writes !== 0) {
    if (Date.now() > deadline) throw new Error('seed writes were not consolidated within 10 minutes');
    await new Promise((r) => setTimeout(r, 200));
  }
  return ids;
}

async function measure(server: SpawnedServer, key: string, ids: string[], contents: string[], queries: string[]) {
  const connections = split(CLIENTS, SHARES);
  const errors: Record<Kind, number> = { writes: 0, reads: 0, searches: 0, lists: 0 };
  const samples: Record<Kind, string[]> = { writes: [], reads: [], searches: [], lists: [] };
  const check = (kind: Kind, expected: number) => (status: number) => {
    if (status === expected) return;
    errors[kind]++;
    if (samples[kind].length < 5) samples[kind].push(String(status));
  };
  let w = 0;
  let r = 0;
  let q = 0;
  const headers = { 'x-api-key': key };
  const run = (kind: Kind, options: Omit<autocannon.Options, 'url' | 'connections' | 'duration'>, pathname: string) =>
    autocannon({ url: `${server.url}${pathname}`, connections: connections[kind], duration: SECONDS, ...options });
  const cpu0 = cpuMsOf(server.child.pid);
  const [writes, reads, searches, lists] = await Promise.all([
    run(
      'writes',
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        requests: [
          {
            setupRequest: (req) => ({ ...req, body: JSON.stringify({ content: `${contents[w % contents.length]} (${w++})` }) }),
            onResponse: check('writes', 202),
          },
        ],
      },
      '/memories',
    ),
    run(
      'reads',
      {
        headers,
        requests: [{ setupRequest: (req) => ({ ...req, path: `/memories/${ids[r++ % ids.length]}` }), onResponse: check('reads', 200) }],
      },
      '/memories',
    ),
    run(
      'searches',
      {
        headers,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              path: `/memories/search?mode=hybrid&q=${encodeURIComponent(queries[q++ % queries.length]!)}`,
            }),
            onResponse: check('searches', 200),
          },
        ],
      },
      '/memories/search',
    ),
    run(
      'lists',
      { headers, requests: [{ setupRequest: (req) => ({ ...req, path: '/memories?limit=20' }), onResponse: check('lists', 200) }] },
      '/memories',
    ),
  ]);
  const cpu1 = cpuMsOf(server.child.pid);
  const side = (kind: Kind, res: autocannon.Result): Side => ({
    connections: connections[kind],
    perSecond: Math.round(res.requests.total / SECONDS),
    p50: res.latency.p50,
    p99: res.latency.p99,
    // Connection errors and time-outs count as errors too, not only unexpected statuses.
    errors: errors[kind] + res.errors + res.timeouts,
  });
  return {
    sides: {
      writes: side('writes', writes),
      reads: side('reads', reads),
      searches: side('searches', searches),
      lists: side('lists', lists),
    },
    errorSamples: samples,
    serverCpuMsPerSecond: cpu0 !== null && cpu1 !== null ? Math.round((cpu1 - cpu0) / SECONDS) : null,
  };
}

const contents = generateMemories(SEED + 4000, 5).map((m) => m.content);
const queries = contents.slice(0, 300).map((c) => c.split(' ').slice(2, 5).join(' '));
type Result = Awaited<ReturnType<typeof measure>> & { rssMb: { start: number | null; seeded: number | null; end: number | null } };
const results: Record<string, Result> = {};
for (const mode of args.modes!.split(',')) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-mixed-'));
  const server = await spawnServer(dataDir, 1, {
    WORKER_MODE: 'inline',
    LOG_LEVEL: 'warn',
    PLAN_LIMITS: UNLIMITED_PLAN_LIMITS,
    NODE_ENV: 'production',
    SIGNUP_RATE_LIMIT: '0',
  });
  try {
    let start = rssMbOf(server.child.pid);
    const key = await tenantKey(server.url, ['memories:read', 'memories:write', 'usage:read']);
    const ids = await seed(server.url, key, contents.slice(0, SEED));
    // Seeding consolidates in line; the `external` run then stops workers by restarting without them.
    let measured = server;
    if (mode === 'external') {
      await server.stop();
      measured = await spawnServer(dataDir, 1, {
        WORKER_MODE: 'external',
        LOG_LEVEL: 'warn',
        PLAN_LIMITS: UNLIMITED_PLAN_LIMITS,
        NODE_ENV: 'production',
        SIGNUP_RATE_LIMIT: '0',
      });
      start = rssMbOf(measured.child.pid); // the measured process starts over the seeded file
    }
    try {
      const seeded = measured === server ? rssMbOf(server.child.pid) : null;
      const result = await measure(measured, key, ids, contents.slice(SEED), queries);
      results[mode] = { ...result, rssMb: { start, seeded, end: rssMbOf(measured.child.pid) } };
      noteIfLoaded(` (workers ${mode})`);
    } finally {
      if (measured !== server) await measured.stop();
    }
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const paths: Record<Kind, string> = {
  writes: 'POST /memories',
  reads: 'GET /memories/{id}',
  searches: 'GET /memories/search (hybrid)',
  lists: 'GET /memories?limit=20',
};
console.log(`${SECONDS} s, ${CLIENTS} connections, ${SEED} memories seeded; one server process`);
console.log(
  formatTable(
    ['workers', 'request', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors'],
    Object.entries(results).flatMap(([mode, res]) =>
      KINDS.map((k) => [
        mode,
        paths[k],
        String(res.sides[k].connections),
        String(res.sides[k].perSecond),
        String(res.sides[k].p50),
        String(res.sides[k].p99),
        String(res.sides[k].errors),
      ]),
    ),
  ),
);
const mb = (v: number | null) => (v === null ? 'n/a' : v.toFixed(0));
console.log(
  formatTable(
    ['workers', 'RSS at start MB', 'after seeding MB', 'at end MB', 'server CPU ms/s'],
    Object.entries(results).map(([mode, res]) => [
      mode,
      mb(res.rssMb.start),
      mb(res.rssMb.seeded),
      mb(res.rssMb.end),
      String(res.serverCpuMsPerSecond ?? 'n/a'),
    ]),
  ),
);
writeJsonResult(args.json!, { date: new Date().toISOString(), seconds: SECONDS, clients: CLIENTS, seed: SEED, results });
console.log(`wrote ${args.json}`);
const failed = Object.entries(results).filter(([, res]) => KINDS.some((k) => res.sides[k].errors > 0));
for (const [mode, res] of failed) console.error(`workers ${mode}: errors, first statuses ${JSON.stringify(res.errorSamples)}`);
process.exitCode = failed.length > 0 ? 1 : 0;
