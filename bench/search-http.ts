/**
 * Search latency over HTTP on the embedded profile (issue "Retrieval"): `GET /memories/search` at 10k
 * and 100k memories in one tenant, p50/p95/p99 and req/s with 8 concurrent keep-alive clients, per mode
 * (vector-only, hybrid, hybrid+graph), the tenant alone and beside other tenants; whether the result
 * lists are identical in both cases; ANN recall against the full scan at 100k; and, per stage, where a
 * request's time goes.
 *
 *   npm run bench:search-http -- [--quick] [--requests 600] [--concurrency 8] [--neighbors 20]
 *                                [--neighbor-size N] [--small 10000] [--large 100000] [--max-load-minutes 30]
 *                                [--profile-requests 60] [--clustered-recall | --skip-clustered-recall]
 *                                [--processes N] [--client wrk|node] [--seconds 10] [--warmup-seconds 20]
 *                                [--json bench/results/search-http.json]
 *
 * ANN recall: when the large tenant is above the index's ANN threshold (its dense channel is IVF), recall
 * against the full scan is measured on it and, unless `--skip-clustered-recall`, on a clustered
 * synthetic set of the same size. Between the first-pass threshold (50k) and the ANN threshold the dense
 * channel is the binary first pass with exact rescoring: its recall against the full scan is measured on
 * the served queries, for the large tenant and for a small one that size (`--small 100000`). Below both
 * the served dense channel is the full scan (recall 1 by construction); `--clustered-recall` still
 * measures what IVF would give on the clustered set.
 *
 * `--quick`: the small tenant only (alone, then beside `--neighbors` tenants of `--small`). A full run
 * puts both tenants beside `--neighbors` tenants of `--large` (~20 min of loading and ~17 GB at
 * 20 × 100k). `--neighbor-size` sets another size; any size whose load estimate exceeds
 * `--max-load-minutes` or 90% of the free disk falls back to `--small`.
 *
 * `--processes N` (N > 1): every measurement is repeated against `tenant-memory serve --processes N`
 * started as a child process on the same data directory (node:cluster, one listening socket; each
 * process keeps its own tenant caches), as one would serve on N cores. Its rows are labelled
 * `… · N processes`, and their result lists are compared with the in-process server's.
 *
 * The pieces live in `bench/search-http/`: options, the server and its data, the load generator and its
 * worker thread, measurement, stage profile, ANN recall and the closing report.
 *
 * How it runs (nothing is mocked):
 *  - The real service (`startServer`) listens on an ephemeral loopback port over a fresh temporary
 *    DATA_DIR with EMBEDDINGS_PROVIDER=local: every query is embedded by the default model (static
 *    USE-lite token vectors + hashed lexical features) inside the measured request. Job workers are off (nothing is queued; see the loader).
 *  - Tenants are made by `POST /auth/signup`, search keys by `POST /api-keys` (scope memories:read), and
 *    every search carries `X-API-Key`, as in production.
 *  - Memories come from the shared synthetic corpus (`bench/support/corpus.ts`) and are loaded through
 *    the storage ports (write queue + consolidation commit, `bench/support/memory-loader.ts`): they are
 *    consolidated memories in the memory store and in the index, written in the same transactions as in
 *    production. Each memory carries the served model's own vector of its content (the default local
 *    model, ~0.2 ms per text), so queries and memories are embedded alike and the dense scan reads the
 *    blocks a real query reads. The ANN (IVF) recall depends on the vectors' distribution, so it is
 *    also reported on a clustered synthetic set (see `annRecall`).
 *  - The timed load comes from `wrk` (`--client wrk`, the default when it is on PATH: `apt-get install
 *    wrk`), `--concurrency` connections for `--seconds` per mode over the same queries: a C client
 *    spends ~0.03 ms of CPU per request on the two cores it shares with the server. Before the first
 *    mode of each server, wrk loads it for `--warmup-seconds` with other queries of every mode, not
 *    timed: a server just started (each of `--processes N` loads the tenant's cache on its first
 *    search, and V8 is still compiling) spent 10-20% more CPU per search over the next 10-20 seconds than
 *    afterwards, and the first mode measured paid for it alone. The result lists
 *    (alone vs beside other tenants, one process vs N) always come from the Node load generator, a
 *    worker thread (8 loops, one keep-alive `http.Agent` each) that costs ~0.4 ms per request; with
 *    `--client node` its pass is also the timed one.
 *
 * The machine's load average is printed beside every figure: other processes on the same cores inflate
 * wall-clock latencies.
 */
import { readSettings } from './search-http/options.js';

// Options first, the service's modules after: `--help` and a misspelt flag answer without loading them.
const settings = readSettings();
const { runSearchHttpBench } = await import('./search-http/run.js');
try {
  await runSearchHttpBench(settings);
  process.exit(0);
} catch (err) {
  console.error(err);
  process.exit(1);
}
