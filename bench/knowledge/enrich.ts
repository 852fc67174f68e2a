/**
 * Part `enrich` of `bench:knowledge`: enrichment with the offline engines (rule, kg) over a tenant
 * holding `--memories` (10,000) memories, against a server child process whose in-process workers
 * (WORKER_MODE=inline) consolidate the memories and run the `knowledge.enrich` jobs.
 *
 *  1. the memories (bench/memory-data.ts, seeded) are written over HTTP (POST /memories, autocannon,
 *     16 connections) and the bench waits until GET /usage shows none pending (consolidated, indexed);
 *  2. `--objects` persons and organisations whose names the memories mention most are created over
 *     HTTP (organisations, half of them with a website for the rule engine);
 *  3. one search loads the tenant's search cache and one run of an extra object starts the fact thread
 *     (each once per process; that run's time is reported apart), then every object is triggered (POST .../enrich, `--trigger-concurrency` in flight), the send time
 *     of each kept; the bench polls the ENRICHING counts until both are 0;
 *  4. each object's settled time is the `created_at` of its run's log entries (the run's one write):
 *     per-object latency = settled − trigger sent; throughput = objects / (last settled − first sent).
 */
import { generateMemories } from '../memory-data.js';
import { cpuMsOf } from '../support/server.js';
import { latencyStats } from '../support/stats.js';
import { driveLoad } from './http-load.js';
import { profileEngines, type EngineProfile } from './enrich-profile.js';
import { mentionedNames } from './mentioned-names.js';
import { call, pool, round1, signUp, startServer } from './setup.js';

export interface EnrichResult {
  memories: number;
  seedSeconds: number;
  objects: number;
  persons: number;
  organizations: number;
  /** The process's first run, which starts the fact thread (not in the figures below it). */
  firstRunMs: number;
  seconds: number;
  perSecond: number;
  latency: { p50_ms: number; p95_ms: number; p99_ms: number; max_ms: number };
  serverCpuMsPerObject: number | null;
  committedFields: number;
  logEntries: number;
  outcomes: Record<string, number>;
  profile: EngineProfile | null;
}

export async function runEnrich(options: {
  processes: number;
  logLevel: string;
  memories: number;
  objects: number;
  triggerConcurrency: number;
  profile: boolean;
}): Promise<EnrichResult> {
  const bench = await startServer('enrich', { processes: options.processes, logLevel: options.logLevel, workerMode: 'inline' });
  try {
    const { url } = bench.server;
    const { tenantId, key } = await signUp(url);
    const headers = { 'content-type': 'application/json', 'x-api-key': key };

    const data = generateMemories(options.memories, 17);
    const seedStart = performance.now();
    await driveLoad(
      bench.server,
      {
        method: 'POST',
        paths: ['/memories'],
        headers,
        bodies: data.map((m) => JSON.stringify({ content: m.content, tags: m.tags, ...(m.title ? { title: m.title } : {}) })),
      },
      202,
      { client: 'autocannon', connections: 16, seconds: 0, requests: data.length },
    );
    for (;;) {
      const usage = await call(url, key, 'GET', '/usage', undefined, 200);
      if (usage.pending_writes === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const seedSeconds = (performance.now() - seedStart) / 1000;

    const names = mentionedNames(data.map((m) => m.content));
    const organizations = names.organizations.slice(0, Math.min(names.organizations.length, Math.ceil(options.objects / 10)));
    const people = names.people.slice(0, options.objects - organizations.length);
    const slug = (s: string) => s.toLowerCase().replace(/[^a-z]+/g, '');
    const specs = [
      ...organizations.map((name, i) => ({
        type: 'organization',
        fields: i % 2 === 0 ? { name, website: `https://www.${slug(name)}.example.com/about` } : { name },
      })),
      ...people.map((name) => ({ type: 'person', fields: { name } })),
    ];
    const objects = await pool(specs, 8, async (s) => ({
      type: s.type,
      id: (await call(url, key, 'POST', `/v1/knowledge/${s.type}`, { fields: s.fields }, 201)).id as string,
    }));

    // Once per process, before the clock: the tenant's in-memory search cache (its first search) and the
    // kg engine's fact thread (its first run). The first run's time is reported on its own.
    await call(url, key, 'GET', '/memories/search?q=warm%20up&k=1', undefined, 200);
    const warm = (await call(url, key, 'POST', '/v1/knowledge/person', { fields: { name: people[0] ?? 'Warm Up' } }, 201)).id as string;
    const coldStart = performance.now();
    await call(url, key, 'POST', `/v1/knowledge/person/${warm}/enrich`, undefined, 202);
    while ((await call(url, key, 'GET', `/v1/knowledge/person/${warm}`, undefined, 200)).status === 'ENRICHING') {
      await new Promise((r) => setTimeout(r, 20));
    }
    const firstRunMs = Math.round(performance.now() - coldStart);
    const cpu0 = cpuMsOf(bench.server.child.pid);
    const sent = await pool(objects, options.triggerConcurrency, async (o) => {
      const at = Date.now();
      await call(url, key, 'POST', `/v1/knowledge/${o.type}/${o.id}/enrich`, undefined, 202);
      return at;
    });
    const pollStart = Date.now();
    for (;;) {
      const counts = await Promise.all(
        ['person', 'organization'].map((t) => call(url, key, 'GET', `/v1/knowledge/${t}?limit=1&status=ENRICHING`, undefined, 200)),
      );
      if (counts.every((c) => c.total === 0)) break;
      if (Date.now() - pollStart > 30 * 60_000) throw new Error('enrichment did not settle within 30 minutes');
      await new Promise((r) => setTimeout(r, 50));
    }
    const cpu1 = cpuMsOf(bench.server.child.pid);

    const outcomes: Record<string, number> = {};
    let logEntries = 0;
    const settled = await pool(objects, 8, async (o) => {
      const log = (await call(url, key, 'GET', `/v1/knowledge/${o.type}/${o.id}/enrichment-log`, undefined, 200)) as {
        created_at: string;
        outcome: string;
      }[];
      if (log.length === 0) throw new Error(`${o.type} ${o.id} settled without a log entry`);
      logEntries += log.length;
      for (const e of log) outcomes[e.outcome] = (outcomes[e.outcome] ?? 0) + 1;
      return Math.max(...log.map((e) => Date.parse(e.created_at)));
    });
    const latencies = settled.map((s, i) => s - sent[i]!);
    const seconds = (Math.max(...settled) - Math.min(...sent)) / 1000;
    const s = latencyStats(latencies);
    const profile = options.profile ? await profileEngines(bench.dataDir, tenantId, objects.slice(0, 100)) : null;
    return {
      memories: data.length,
      seedSeconds: round1(seedSeconds),
      objects: objects.length,
      persons: people.length,
      organizations: organizations.length,
      firstRunMs,
      seconds: round1(seconds),
      perSecond: round1(objects.length / seconds),
      latency: { p50_ms: Math.round(s.p50), p95_ms: Math.round(s.p95), p99_ms: Math.round(s.p99), max_ms: Math.max(...latencies) },
      serverCpuMsPerObject: cpu0 !== null && cpu1 !== null ? round1((cpu1 - cpu0) / objects.length) : null,
      committedFields: outcomes.committed ?? 0,
      logEntries,
      outcomes,
      profile,
    };
  } finally {
    await bench.close();
  }
}
