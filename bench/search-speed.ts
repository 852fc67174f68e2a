/**
 * Speed of the embedded search index, in process (no HTTP yet).
 *
 *   npx tsx bench/search-speed.ts [--sizes 10000,100000] [--neighbors 20] [--neighbor-size N]
 *                                 [--queries 200] [--json bench/results/search-speed.json]
 *
 * For each size: one tenant of that many synthetic memories (generated text, synthetic entities, 512-dim
 * vectors from the hashing embedder) is built in a fresh database file; every mode is timed with a real
 * Universal Sentence Encoder lite query embedding included (p50/p95/p99), and without it. Then
 * `--neighbors` other tenants (of `--neighbor-size` memories each, default the same size) are added and
 * the timing is repeated; the result lists must be identical to those of the tenant alone.
 * Above the ANN threshold the dense channel uses IVF: its recall@10 against the full scan is reported,
 * as are the exact-scan cost and libsql's `vector_distance_cos` scan for comparison.
 *
 * The machine's load average is printed with the results: on a shared machine the wall-clock figures
 * include time spent waiting for a core.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir, cpus } from 'node:os';
import path from 'node:path';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../adapters/embedded/database.js';
import { EmbeddedSearchIndex } from '../adapters/embedded/search-index.js';
import { HashingEmbedder } from '../adapters/embeddings/hashing.js';
import { UseLiteEmbedder } from '../adapters/embeddings/use-lite.js';
import type { IndexedMemory, SearchMode, SearchQuery } from '../server/ports/search-index.js';
import { latencyStats as timing, type LatencyStats as Timing } from './support/stats.js';
import { generateTenant, queriesFor } from './support/corpus.js';
import { benchArgs } from './support/args.js';

const USAGE = `Usage: npm run bench:search-speed -- [options]

Speed of the embedded search index in process: every mode timed per tenant size, alone and beside
other tenants, with and without the query embedding; IVF recall above the ANN threshold.

Options:
  --sizes LIST       tenant sizes, comma-separated (default 10000,100000)
  --neighbors N      other tenants added beside each (default 20)
  --neighbor-size N  memories per neighbour (default the measured size)
  --queries N        queries per mode (default 200)
  --json FILE        where the result goes
  --help             this text
`;

const DIM = 512;
const MODES: SearchMode[] = ['vector-only', 'hybrid', 'hybrid+graph'];

async function build(index: EmbeddedSearchIndex, tenant: string, seed: number, size: number, hasher: HashingEmbedder): Promise<number> {
  const t0 = performance.now();
  const chunk = 5000;
  let docs: IndexedMemory[] = [];
  for (const d of generateTenant(seed, size, hasher)) {
    docs.push(d);
    if (docs.length === chunk) {
      await index.upsertMany(tenant, docs);
      docs = [];
    }
  }
  if (docs.length) await index.upsertMany(tenant, docs);
  return performance.now() - t0;
}

async function measure(
  index: EmbeddedSearchIndex,
  tenant: string,
  queries: string[],
  qv: Float32Array[],
  use: UseLiteEmbedder,
): Promise<{
  perMode: Record<string, { withEmbedding: Timing; searchOnly: Timing; cpuWithEmbedding: Timing; cpuSearchOnly: Timing }>;
  lists: Record<string, string[][]>;
}> {
  const perMode: Record<string, { withEmbedding: Timing; searchOnly: Timing; cpuWithEmbedding: Timing; cpuSearchOnly: Timing }> = {};
  const lists: Record<string, string[][]> = {};
  for (const mode of MODES) {
    // Warm-up (cache load, statement preparation).
    for (let i = 0; i < 5; i++) await index.search(tenant, mkQuery(queries[i]!, qv[i]!, mode));
    const withEmb: number[] = [];
    const only: number[] = [];
    const cpuWith: number[] = [];
    const cpuOnly: number[] = [];
    const cpuMs = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    lists[mode] = [];
    for (let i = 0; i < queries.length; i++) {
      const c0 = cpuMs();
      const t0 = performance.now();
      const [v] = await use.embed([queries[i]!]);
      const t1 = performance.now();
      const c1 = cpuMs();
      const res = await index.search(tenant, mkQuery(queries[i]!, v!, mode));
      const t2 = performance.now();
      const c2 = cpuMs();
      withEmb.push(t2 - t0);
      only.push(t2 - t1);
      cpuWith.push(c2 - c0);
      cpuOnly.push(c2 - c1);
      lists[mode]!.push(res.hits.map((h) => h.memoryId));
    }
    perMode[mode] = {
      withEmbedding: timing(withEmb),
      searchOnly: timing(only),
      cpuWithEmbedding: timing(cpuWith),
      cpuSearchOnly: timing(cpuOnly),
    };
  }
  return { perMode, lists };
}

function mkQuery(text: string, vector: Float32Array, mode: SearchMode): SearchQuery {
  return { text, vector, mode, limit: 10, filters: { namespaces: null } };
}

function sqlScan(db: EmbeddedDatabase, tenant: string, q: Float32Array, runs: number): Timing {
  const stmt = db.prepare(
    `SELECT doc_id, vector_distance_cos(vector, ?) AS d FROM search_vectors WHERE tenant_id = ? ORDER BY d LIMIT 100`,
  );
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    stmt.all([Buffer.from(q.buffer, q.byteOffset, q.byteLength), tenant]);
    xs.push(performance.now() - t0);
  }
  return timing(xs);
}

async function main(): Promise<void> {
  const values = benchArgs(USAGE, {
    sizes: { type: 'string', default: '10000,100000' },
    neighbors: { type: 'string', default: '20' },
    'neighbor-size': { type: 'string' },
    queries: { type: 'string', default: '200' },
    json: { type: 'string' },
  });
  const sizes = values.sizes.split(',').map(Number);
  const neighbors = Number(values.neighbors);
  const nq = Number(values.queries);
  const hasher = new HashingEmbedder(DIM);
  const use = new UseLiteEmbedder();
  const tl = performance.now();
  await use.init();
  const loadMs = performance.now() - tl;
  const queries = queriesFor(nq);
  const qv = await use.embed(queries);
  // Embedding throughput at batch 32 (sentences/s).
  const te = performance.now();
  await use.embed(queries.slice(0, 128).map((q) => `a longer sentence about ${q} and what happened afterwards`));
  const useRate = 128 / ((performance.now() - te) / 1000);

  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadavgAtStart: loadavg(),
    useLite: { loadMs, sentencesPerSecondBatch32: useRate },
    runs: [] as unknown[],
  };
  console.log(
    `USE-lite: loaded in ${loadMs.toFixed(0)} ms, ${useRate.toFixed(0)} sentences/s at batch 32; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );

  for (const size of sizes) {
    const dir = mkdtempSync(path.join(tmpdir(), 'search-speed-'));
    const db = openEmbeddedDatabase(dir);
    const index = new EmbeddedSearchIndex(db, { model: hasher.model, dimension: DIM });
    const buildMs = await build(index, 'target', 1, size, hasher);
    await index.warm('target');
    const alone = await measure(index, 'target', queries, qv, use);

    // The full scan's own cost, and an IVF index over the same tenant (even below the default
    // threshold) with its recall@10 against the full scan, build time and latency per probe count.
    const annIndex = new EmbeddedSearchIndex(db, { model: hasher.model, dimension: DIM }, { annThreshold: 1000 });
    const ta = performance.now();
    await annIndex.warm('target');
    const annBuildMs = performance.now() - ta;
    const ann: { probes: number; recallAt10: number; dense: Timing }[] = [];
    const exactXs: number[] = [];
    const exactLists: string[][] = [];
    for (let i = 0; i < nq; i++) {
      const q = mkQuery(queries[i]!, qv[i]!, 'vector-only');
      const t0 = performance.now();
      exactLists.push((await index.channelSearch('target', 'dense', q, { exact: true })).hits.map((h) => h.memoryId));
      exactXs.push(performance.now() - t0);
    }
    const exactTiming = timing(exactXs);
    for (const probes of [16, 32, 64]) {
      let overlap = 0;
      const xs: number[] = [];
      for (let i = 0; i < nq; i++) {
        const q = mkQuery(queries[i]!, qv[i]!, 'vector-only');
        const t0 = performance.now();
        const approx = (await annIndex.channelSearch('target', 'dense', q, { probes })).hits.map((h) => h.memoryId);
        xs.push(performance.now() - t0);
        overlap += approx.filter((id) => exactLists[i]!.includes(id)).length / Math.max(1, exactLists[i]!.length);
      }
      ann.push({ probes, recallAt10: overlap / nq, dense: timing(xs) });
    }
    await annIndex.close();
    const sql = sqlScan(db, 'target', qv[0]!, size >= 100_000 ? 5 : 20);

    const nSize = values['neighbor-size'] ? Number(values['neighbor-size']) : size;
    const tb = performance.now();
    for (let t = 0; t < neighbors; t++) await build(index, `other-${t}`, 1000 + t, nSize, hasher);
    const neighborBuildMs = performance.now() - tb;
    const beside = await measure(index, 'target', queries, qv, use);
    let identical = true;
    for (const mode of MODES) {
      alone.lists[mode]!.forEach((l, i) => {
        if (JSON.stringify(l) !== JSON.stringify(beside.lists[mode]![i])) identical = false;
      });
    }
    const run = {
      size,
      buildMs,
      docsPerSecond: size / (buildMs / 1000),
      annActive: index.annReady('target'),
      exactDenseScan: exactTiming,
      ivf: { buildMs: annBuildMs, byProbes: ann },
      sqlVectorDistanceCosScan: sql,
      alone: alone.perMode,
      neighbors: { count: neighbors, size: nSize, buildMs: neighborBuildMs },
      besideOthers: beside.perMode,
      identicalResults: identical,
      loadavg: loadavg(),
    };
    (report.runs as unknown[]).push(run);

    console.log(
      `\n== ${size.toLocaleString('en')} memories in one tenant (built in ${(buildMs / 1000).toFixed(1)} s, ${run.docsPerSecond.toFixed(0)} docs/s) ==`,
    );
    console.log(
      `   dense channel in use: ${run.annActive ? 'IVF' : 'full scan'}; full dense scan p50/p95 ${exactTiming.p50.toFixed(1)}/${exactTiming.p95.toFixed(1)} ms; libsql vector_distance_cos scan p50 ${sql.p50.toFixed(1)} ms`,
    );
    console.log(
      `   IVF (built in ${(annBuildMs / 1000).toFixed(1)} s): ` +
        ann
          .map(
            (a) => `${a.probes} probes recall@10 ${a.recallAt10.toFixed(3)} p50/p95 ${a.dense.p50.toFixed(1)}/${a.dense.p95.toFixed(1)} ms`,
          )
          .join('; '),
    );
    console.log(
      '   mode           | alone: with query embedding p50/p95/p99 | search only p50/p95/p99 | beside others: with embedding p50/p95/p99 | search only p50/p95/p99',
    );
    for (const mode of MODES) {
      const a = alone.perMode[mode]!;
      const b = beside.perMode[mode]!;
      const t3 = (t: Timing) => `${t.p50.toFixed(1)}/${t.p95.toFixed(1)}/${t.p99.toFixed(1)}`;
      console.log(
        `   ${mode.padEnd(14)} | ${t3(a.withEmbedding).padStart(38)} | ${t3(a.searchOnly).padStart(23)} | ${t3(b.withEmbedding).padStart(41)} | ${t3(b.searchOnly).padStart(23)}`,
      );
    }
    console.log('   CPU time per query (what one idle core would take; wall-clock above includes waiting for a core):');
    for (const mode of MODES) {
      const a = alone.perMode[mode]!;
      const b = beside.perMode[mode]!;
      const t3 = (t: Timing) => `${t.p50.toFixed(1)}/${t.p95.toFixed(1)}/${t.p99.toFixed(1)}`;
      console.log(
        `   ${mode.padEnd(14)} | ${t3(a.cpuWithEmbedding).padStart(38)} | ${t3(a.cpuSearchOnly).padStart(23)} | ${t3(b.cpuWithEmbedding).padStart(41)} | ${t3(b.cpuSearchOnly).padStart(23)}`,
      );
    }
    console.log(
      `   beside ${neighbors} other tenants of ${nSize.toLocaleString('en')} (built in ${(neighborBuildMs / 1000).toFixed(0)} s): results identical to alone: ${identical ? 'yes' : 'NO'}`,
    );
    console.log(
      `   load average now ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    await index.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const out = values.json ?? path.join('bench', 'results', `search-speed-${new Date().toISOString().slice(0, 10)}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2));
  console.log(`\nwrote ${out}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
