/**
 * Knowledge API speed on the embedded profile (issue #23), against a real `tenant-memory serve` child
 * process over a fresh data directory per part:
 *
 *  - `writes`: POST /v1/knowledge/person and PATCH /v1/knowledge/person/{id} throughput and latency
 *    (bench/knowledge/writes.ts);
 *  - `list`: GET /v1/knowledge/person?completeness_lt=… at 100,000 objects in one tenant, first pages,
 *    a cursor walk, a deep page, with `status` (bench/knowledge/list.ts); target p95 ≤ 20 ms;
 *  - `enrich`: enrichment with the offline engines over a tenant of 10,000 memories, objects per
 *    second to settled status and per-object latency from trigger to settled, then where an object's
 *    time goes (bench/knowledge/enrich.ts, enrich-profile.ts); target ≥ 50 objects/s.
 *
 *   npm run bench:knowledge -- [--part writes,list,enrich] [--client wrk|autocannon] [--seconds 10]
 *                              [--requests 5000] [--connections 32] [--processes 1] [--objects 100000]
 *                              [--samples 300] [--deep 50000] [--memories 10000] [--enrich-objects 200]
 *                              [--trigger-concurrency 8] [--skip-profile] [--json bench/results/knowledge.json]
 *
 * Prints tables and writes JSON (bench/results/ is gitignored).
 */
import { cpus } from 'node:os';
import { benchArgs } from './support/args.js';
import { formatTable, noteIfLoaded, writeJsonResult } from './support/report.js';
import { pickClient } from './support/wrk.js';

const USAGE = `Usage: npm run bench:knowledge -- [options]

Knowledge API speed on the embedded profile: create and PATCH throughput over HTTP, list with
completeness_lt at 100k objects, offline enrichment over a tenant of 10k memories.

Options:
  --part LIST              writes, list, enrich, comma-separated (default all three)
  --client wrk|autocannon  load client for writes and the concurrent list run (default wrk when on PATH)
  --seconds N              with wrk: seconds per load run (default 10)
  --requests N             with autocannon: requests per load run (default 5000)
  --connections N          keep-alive connections of a load run (default 32)
  --processes N            server processes sharing the port (default 1)
  --objects N              list: persons in the tenant (default 100000)
  --samples N              list: timed requests per shape, one at a time (default 300)
  --deep N                 list: objects the cursor walk goes down (default 50000)
  --memories N             enrich: memories in the tenant (default 10000)
  --enrich-objects N       enrich: persons and organisations enriched (default 200)
  --trigger-concurrency N  enrich: triggers in flight (default 8)
  --skip-profile           enrich: no per-step breakdown afterwards
  --log-level LEVEL        server log level (default info)
  --json FILE              where the result goes (default bench/results/knowledge.json)
  --help                   this text
`;

const args = benchArgs(USAGE, {
  part: { type: 'string', default: 'writes,list,enrich' },
  client: { type: 'string' },
  seconds: { type: 'string', default: '10' },
  requests: { type: 'string', default: '5000' },
  connections: { type: 'string', default: '32' },
  processes: { type: 'string', default: '1' },
  objects: { type: 'string', default: '100000' },
  samples: { type: 'string', default: '300' },
  deep: { type: 'string', default: '50000' },
  memories: { type: 'string', default: '10000' },
  'enrich-objects': { type: 'string', default: '200' },
  'trigger-concurrency': { type: 'string', default: '8' },
  'skip-profile': { type: 'boolean', default: false },
  'log-level': { type: 'string', default: 'info' },
  json: { type: 'string', default: 'bench/results/knowledge.json' },
});

const LIST_TARGET_P95_MS = 20;
const ENRICH_TARGET_PER_SECOND = 50;
const parts = new Set(args.part!.split(',').map((p) => p.trim()));
for (const p of parts) if (!['writes', 'list', 'enrich'].includes(p)) throw new Error(`--part: unknown part '${p}'`);
const client = pickClient(args.client, 'autocannon');
const load = {
  client,
  connections: Number(args.connections),
  seconds: Number(args.seconds),
  requests: Number(args.requests),
  processes: Number(args.processes),
  logLevel: args['log-level']!,
};
const num = (v: number | null) => (v === null ? '–' : String(v));

// The service's modules load after the options: --help and a misspelt flag answer at once.
const { runWrites } = await import('./knowledge/writes.js');
const { runList } = await import('./knowledge/list.js');
const { runEnrich } = await import('./knowledge/enrich.js');

const result: Record<string, unknown> = {
  bench: 'knowledge',
  at: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpu_model: cpus()[0]?.model ?? 'unknown',
  client,
  connections: load.connections,
  processes: load.processes,
  ...(client === 'wrk' ? { seconds: load.seconds } : { requests: load.requests }),
};

try {
  if (parts.has('writes')) {
    const w = await runWrites(load);
    console.log(`\nKnowledge writes over HTTP (${load.connections} connections, ${client}, ${load.processes} process(es), workers off)`);
    console.log(
      formatTable(
        ['request', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'server CPU ms/req', 'client CPU ms/req'],
        [
          ['POST /v1/knowledge/person (201)', w.create],
          ['PATCH /v1/knowledge/person/{id} (200)', w.patch],
        ].map(([label, r]) => {
          const run = r as typeof w.create;
          return [
            label as string,
            String(run.perSecond),
            String(run.p50Ms),
            String(run.p95Ms),
            String(run.p99Ms),
            num(run.serverCpuMs),
            String(run.clientCpuMs),
          ];
        }),
      ),
    );
    result.writes = w;
  }

  if (parts.has('list')) {
    const l = await runList({ ...load, objects: Number(args.objects), samples: Number(args.samples), deep: Number(args.deep) });
    console.log(
      `\nKnowledge lists at ${l.objects.toLocaleString('en')} persons in one tenant (seeded through the service in ${l.seedSeconds} s, ${l.seedPerSecond}/s); one client, one request at a time`,
    );
    console.log(
      formatTable(
        ['GET /v1/knowledge/person?…', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'total'],
        l.rows.map((r) => [r.shape, String(r.n), String(r.p50_ms), String(r.p95_ms), String(r.p99_ms), String(r.total)]),
      ),
    );
    const c = l.concurrent;
    console.log(
      `completeness_lt=0.6 first page, ${load.connections} connections (${client}): ${c.perSecond} req/s, p50 ${c.p50Ms} ms, p95 ${c.p95Ms} ms, p99 ${c.p99Ms} ms, server CPU ${num(c.serverCpuMs)} ms/req`,
    );
    const worst = Math.max(
      ...l.rows.filter((r) => r.shape.startsWith('completeness_lt') && !r.shape.includes('limit=100')).map((r) => r.p95_ms),
    );
    console.log(
      `target: list p95 ≤ ${LIST_TARGET_P95_MS} ms at 100k — ${worst <= LIST_TARGET_P95_MS ? 'met' : 'MISSED'} (worst completeness_lt shape with limit=20, over HTTP: p95 ${worst} ms)`,
    );
    result.list = { ...l, worst_p95_ms: worst, target_p95_ms: LIST_TARGET_P95_MS, target_met: worst <= LIST_TARGET_P95_MS };
  }

  if (parts.has('enrich')) {
    const e = await runEnrich({
      processes: load.processes,
      logLevel: load.logLevel,
      memories: Number(args.memories),
      objects: Number(args['enrich-objects']),
      triggerConcurrency: Number(args['trigger-concurrency']),
      profile: !args['skip-profile'],
    });
    console.log(
      `\nOffline enrichment (rule + kg) over ${e.memories.toLocaleString('en')} memories (written over HTTP and consolidated in ${e.seedSeconds} s): ${e.objects} objects (${e.persons} persons, ${e.organizations} organisations)`,
    );
    console.log(
      formatTable(
        ['measure', 'value'],
        [
          ['first run of the process, trigger → settled (ms; starts the fact thread)', String(e.firstRunMs)],
          ['objects/s, first trigger → last settled', String(e.perSecond)],
          ['wall time (s)', String(e.seconds)],
          ['trigger → settled p50 (ms)', String(e.latency.p50_ms)],
          ['trigger → settled p95 (ms)', String(e.latency.p95_ms)],
          ['trigger → settled p99 / max (ms)', `${e.latency.p99_ms} / ${e.latency.max_ms}`],
          ['server CPU per object (ms)', num(e.serverCpuMsPerObject)],
          ['log entries / committed fields', `${e.logEntries} / ${e.committedFields}`],
          [
            'outcomes',
            Object.entries(e.outcomes)
              .map(([k, v]) => `${k} ${v}`)
              .join(', '),
          ],
        ],
      ),
    );
    console.log(
      `target: ≥ ${ENRICH_TARGET_PER_SECOND} objects/s — ${e.perSecond >= ENRICH_TARGET_PER_SECOND ? 'met' : 'MISSED'} (${e.perSecond}/s)`,
    );
    if (e.profile) {
      console.log(
        `\nWhere an object's time goes (in process, ${e.profile.steps[0]?.n} objects; search cache load ${e.profile.cacheLoadMs} ms untimed; ${e.profile.meanMemoriesRead} memories read per object)`,
      );
      console.log(
        formatTable(
          ['step', 'n', 'p50 ms', 'p95 ms', 'mean ms'],
          e.profile.steps.map((s) => [s.step, String(s.n), String(s.p50_ms), String(s.p95_ms), String(s.mean_ms)]),
        ),
      );
    }
    result.enrich = { ...e, target_per_second: ENRICH_TARGET_PER_SECOND, target_met: e.perSecond >= ENRICH_TARGET_PER_SECOND };
  }
  result.load_average_1m = Math.round(noteIfLoaded() * 100) / 100;
  writeJsonResult(args.json!, result);
  console.log(`wrote ${args.json}`);
  process.exit(0);
} catch (err) {
  console.error(err);
  process.exit(1);
}
