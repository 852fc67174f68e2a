/**
 * Part `list` of `bench:knowledge`: GET /v1/knowledge/person with `completeness_lt` over `--objects`
 * (100,000) persons of one tenant, against a server child process.
 *
 * Seeding: the objects are created through the knowledge service (`KnowledgeService.create`: the same
 * validation, completeness and store write as the route) in this process over the server's data
 * directory, as a second process of `serve --processes N` would, 16 in flight; every fifth one is then
 * marked as enriched through the store (`KnowledgeObjectStore.update` with the state an enrichment run
 * that found nothing leaves, PARTIALLY_COMPLETE), so the `status` filter selects a minority.
 *
 * Latency is one client, one request at a time (keep-alive fetch), `--samples` per shape after a
 * warm-up: a first page, pages along a cursor walk, a page `--deep` objects down repeated, and the
 * same with `status`; then `--connections` autocannon connections on the first page for req/s.
 */
import type { Services } from '../../server/container.js';
import { rng } from '../memory-data.js';
import { derivedState } from '../../server/services/knowledge/object-state.js';
import { latencyStats } from '../support/stats.js';
import { driveLoad, type LoadOptions, type LoadRun } from './http-load.js';
import { personBodies } from './writes.js';
import { call, openServices, pool, round2, signUp, startServer } from './setup.js';

export interface ListRow {
  shape: string;
  n: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  total: number | string;
}

export interface ListResult {
  objects: number;
  seedSeconds: number;
  seedPerSecond: number;
  rows: ListRow[];
  concurrent: LoadRun;
}

interface Page {
  objects: { id: string }[];
  total: number;
  next_cursor: string | null;
}

export async function runList(
  options: LoadOptions & { processes: number; logLevel: string; objects: number; samples: number; deep: number },
): Promise<ListResult> {
  const bench = await startServer('list', { processes: options.processes, logLevel: options.logLevel, workerMode: 'external' });
  try {
    const { url } = bench.server;
    const { tenantId, key } = await signUp(url);
    const seedStart = performance.now();
    const services = await openServices(bench.dataDir);
    let seedSeconds: number;
    let inProcess: ListRow;
    try {
      await seed(services, tenantId, options.objects);
      seedSeconds = (performance.now() - seedStart) / 1000;
      inProcess = await serviceCalls(services, tenantId, options.samples);
    } finally {
      await services.close();
    }

    const get = (route: string) => call(url, key, 'GET', route, undefined, 200) as Promise<Page>;
    /** `samples` timed GETs of `route` (after a tenth as many untimed). */
    async function timed(shape: string, route: string): Promise<ListRow> {
      for (let i = 0; i < Math.ceil(options.samples / 10); i++) await get(route);
      const ms: number[] = [];
      let total = 0;
      for (let i = 0; i < options.samples; i++) {
        const t = performance.now();
        total = (await get(route)).total;
        ms.push(performance.now() - t);
      }
      return row(shape, ms, total);
    }
    /** Timed pages along a cursor walk of `pages` pages; the last cursor is returned. */
    async function walk(shape: string, route: string, pages: number): Promise<{ row: ListRow; cursor: string | null }> {
      const ms: number[] = [];
      let cursor: string | null = null;
      let total = 0;
      for (let i = 0; i < pages; i++) {
        const t = performance.now();
        const page: Page = await get(`${route}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        ms.push(performance.now() - t);
        total = page.total;
        cursor = page.next_cursor;
        if (!cursor) break;
      }
      return { row: row(shape, ms, total), cursor };
    }

    const rows: ListRow[] = [];
    const lt = '/v1/knowledge/person?limit=20&completeness_lt=0.6';
    rows.push(await timed('no filter, first page', '/v1/knowledge/person?limit=20'));
    rows.push(await timed('completeness_lt=0.6, first page', lt));
    rows.push(await timed('completeness_lt=0.9, first page', '/v1/knowledge/person?limit=20&completeness_lt=0.9'));
    rows.push(await timed('completeness_lt=0.6, limit=100, first page', '/v1/knowledge/person?limit=100&completeness_lt=0.6'));
    const walked = await walk(
      `completeness_lt=0.9, cursor walk (${options.deep / 20} pages)`,
      '/v1/knowledge/person?limit=20&completeness_lt=0.9',
      options.deep / 20,
    );
    rows.push(walked.row);
    if (walked.cursor)
      rows.push(
        await timed(
          `completeness_lt=0.9, page ${options.deep.toLocaleString('en')} objects deep`,
          `/v1/knowledge/person?limit=20&completeness_lt=0.9&cursor=${encodeURIComponent(walked.cursor)}`,
        ),
      );
    const withStatus = '/v1/knowledge/person?limit=20&completeness_lt=0.9&status=PARTIALLY_COMPLETE';
    rows.push(await timed('completeness_lt=0.9 + status=PARTIALLY_COMPLETE, first page', withStatus));
    rows.push((await walk('same + status, cursor walk (250 pages)', withStatus, 250)).row);
    rows.push(await timed('completeness_lt=0.6 + status=INCOMPLETE, first page', `${lt}&status=INCOMPLETE`));
    rows.push(inProcess);

    await driveLoad(bench.server, { method: 'GET', paths: [lt], headers: { 'x-api-key': key } }, 200, {
      ...options,
      seconds: 1,
      requests: 500,
    });
    const concurrent = await driveLoad(bench.server, { method: 'GET', paths: [lt], headers: { 'x-api-key': key } }, 200, options);
    return {
      objects: options.objects,
      seedSeconds: round2(seedSeconds),
      seedPerSecond: Math.round(options.objects / seedSeconds),
      rows,
      concurrent,
    };
  } finally {
    await bench.close();
  }
}

function row(shape: string, ms: number[], total: number): ListRow {
  const s = latencyStats(ms);
  return { shape, n: ms.length, p50_ms: round2(s.p50), p95_ms: round2(s.p95), p99_ms: round2(s.p99), total };
}

/** The first completeness_lt=0.6 page as `KnowledgeService.list` in this process (no HTTP): what the store and service cost. */
async function serviceCalls(services: Services, tenantId: string, samples: number): Promise<ListRow> {
  const list = () => services.knowledge.list(tenantId, 'person', { limit: 20, completenessLt: 0.6 });
  for (let i = 0; i < Math.ceil(samples / 10); i++) await list();
  const ms: number[] = [];
  let total = 0;
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    total = (await list()).total;
    ms.push(performance.now() - t);
  }
  return row('(same first page through KnowledgeService.list in process, no HTTP)', ms, total);
}

/** `n` persons through the knowledge service; every fifth marked as enriched (PARTIALLY_COMPLETE unless complete). */
async function seed(services: Services, tenantId: string, n: number): Promise<void> {
  const definition = (await services.knowledge.catalog.active(tenantId, 'person')).definition;
  const store = services.ports.knowledgeObjects;
  const bodies = personBodies(10_000, 31);
  const r = rng(5);
  const ids = Array.from({ length: n }, (_, i) => i);
  let done = 0;
  await pool(ids, 16, async (i) => {
    const fields = JSON.parse(bodies[i % bodies.length]!).fields as Record<string, string>;
    fields.name = `${fields.name}-${i}`;
    if (r() < 0.1) Object.assign(fields, { phone: '+44 20 7946 0000', manager: 'Ada Okafor', employer: 'Northwind' });
    const created = await services.knowledge.create(tenantId, 'person', { fields });
    if (i % 5 === 0) {
      const record = created.record;
      const run = { enrichedAt: record.createdAt, enrichment: null };
      const { missingFields: _m, ...derived } = derivedState(definition, record.fields, run);
      const outcome = await store.update({ ...record, ...derived, ...run, revision: record.revision + 1 }, record.revision, {
        storageBytes: null,
      });
      if (outcome !== 'ok') throw new Error(`marking ${record.id} enriched: ${outcome}`);
    }
    if (++done % 20_000 === 0) process.stderr.write(`  seeded ${done.toLocaleString('en')} objects\n`);
  });
}
