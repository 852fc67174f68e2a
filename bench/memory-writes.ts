/**
 * The memory write path over HTTP on the embedded profile, against a real `tenant-memory serve` child
 * process:
 *
 *  1. accepted writes per second: `--writes` POST /memories (202) from `--concurrency` keep-alive
 *     clients, with the server's workers off (WORKER_MODE=external, the acceptance path alone) and
 *     again with in-process workers consolidating at the same time (WORKER_MODE=inline);
 *  2. time from 202 to searchable: `--probes` writes sent one at a time (with `--background` writes per
 *     second of other traffic), each followed by polling GET /memories/{id} until `dirty` is false
 *     (consolidated = in the search index), p50/p95/p99.
 *
 *   npx tsx bench/memory-writes.ts [--writes 10000] [--concurrency 32] [--probes 200] [--json bench/results/memory-writes.json]
 *
 * Prints a table and writes JSON (bench/results/ is gitignored). Target: ≥ 2,000 accepted writes/s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { percentile } from './harness/metrics.js';
import { generateMemories } from './memory-data.js';
import { noteIfLoaded, writeJsonResult } from './support/report.js';
import { freePort, waitReady } from './support/server.js';

const { values: args } = parseArgs({
  options: {
    writes: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '32' },
    probes: { type: 'string', default: '200' },
    json: { type: 'string', default: 'bench/results/memory-writes.json' },
    'log-level': { type: 'string', default: 'info' },
    'only-external': { type: 'boolean', default: false },
  },
});
const WRITES = Number(args.writes);
const CONCURRENCY = Number(args.concurrency);
const PROBES = Number(args.probes);
const TARGET = 2000;

interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function serve(dataDir: string, env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...process.execArgv.filter((a) => a.startsWith('--cpu-prof')), 'bin/tenant-memory.mjs', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitReady(url, 120_000);
  return {
    url,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Sign-up and an API key for a fresh tenant. */
async function tenant(url: string): Promise<string> {
  const email = `bench-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  const signup = await json(`${url}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'bench-password-123' }) });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${JSON.stringify(signup.body)}`);
  const key = await json(`${url}/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${signup.body.access_token}` },
    body: JSON.stringify({ name: 'bench', scopes: ['memories:read', 'memories:write', 'usage:read'] }),
  });
  if (key.status !== 201) throw new Error(`api key: ${key.status} ${JSON.stringify(key.body)}`);
  return key.body.secret as string;
}

/** CPU time (ms) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuMsOf(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return null;
  }
}

interface Run {
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  /** Server CPU per request (ms), when measurable. */
  serverCpuMs: number | null;
}

async function drive(server: Server, n: number, request: (i: number) => Promise<Response>, expected: number): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  const cpu0 = cpuMsOf(server.child.pid);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        const res = await request(i);
        await res.arrayBuffer();
        if (res.status !== expected) throw new Error(`request answered ${res.status}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const cpu1 = cpuMsOf(server.child.pid);
  const round = (v: number) => Math.round(v * 100) / 100;
  return {
    perSecond: Math.round(n / seconds),
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    serverCpuMs: cpu0 !== null && cpu1 !== null ? round((cpu1 - cpu0) / n) : null,
  };
}

const acceptWrites = (server: Server, key: string, n: number, contents: string[]) =>
  drive(
    server,
    n,
    (i) =>
      fetch(`${server.url}/memories`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ content: contents[i % contents.length], tags: ['bench'] }),
      }),
    202,
  );

const healthz = (server: Server, n: number) => drive(server, n, () => fetch(`${server.url}/healthz`), 200);

async function waitIdle(url: string, key: string): Promise<void> {
  for (;;) {
    const u = await json(`${url}/usage`, { headers: { 'x-api-key': key } });
    if (u.body.pending_writes === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Time from the 202 of a write to its record reading `dirty: false` (consolidated and indexed). */
async function timeToSearchable(url: string, key: string, contents: string[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < PROBES; i++) {
    const res = await json(`${url}/memories`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ content: `${contents[i % contents.length]} (probe ${i})` }),
    });
    const accepted = performance.now();
    for (;;) {
      const m = await json(`${url}/memories/${res.body.memory_id}`, { headers: { 'x-api-key': key } });
      if (m.body.dirty === false) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    out.push(performance.now() - accepted);
  }
  return out;
}

async function main() {
  const contents = generateMemories(5000, 3).map((m) => m.content);
  const unlimited = JSON.stringify({ free: { writes: null, reads: null, searches: null, storage_bytes: null } });
  const base = { LOG_LEVEL: args['log-level']!, EMBEDDINGS_PROVIDER: 'hash', PLAN_LIMITS: unlimited, NODE_ENV: 'production' };
  const rows: Record<string, unknown>[] = [];
  const result: Record<string, unknown> = {
    bench: 'memory-writes',
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    writes: WRITES,
    concurrency: CONCURRENCY,
    server_log_level: args['log-level'],
    target_writes_per_second: TARGET,
  };

  for (const mode of args['only-external'] ? (['external'] as const) : (['external', 'inline'] as const)) {
    const dataDir = mkdtempSync(path.join(tmpdir(), `tm-bench-writes-${mode}-`));
    const server = await serve(dataDir, { ...base, DATA_DIR: dataDir, WORKER_MODE: mode });
    try {
      const key = await tenant(server.url);
      if (mode === 'external') {
        await healthz(server, 1000);
        const floor = await healthz(server, WRITES);
        rows.push({ measure: 'GET /healthz (the HTTP floor: express, no auth, no storage)', 'req/s': floor.perSecond, p50_ms: floor.p50, p95_ms: floor.p95, p99_ms: floor.p99, server_cpu_ms_per_req: floor.serverCpuMs });
        result.healthz_per_second = floor.perSecond;
        result.healthz_server_cpu_ms = floor.serverCpuMs;
      }
      await acceptWrites(server, key, Math.min(1000, WRITES), contents); // warm-up
      const r = await acceptWrites(server, key, WRITES, contents);
      rows.push({ measure: `POST /memories accepted (202), workers ${mode === 'inline' ? 'in-process' : 'off'}`, 'req/s': r.perSecond, p50_ms: r.p50, p95_ms: r.p95, p99_ms: r.p99, server_cpu_ms_per_req: r.serverCpuMs });
      result[`writes_per_second_${mode}`] = r.perSecond;
      result[`server_cpu_ms_per_write_${mode}`] = r.serverCpuMs;
      if (r.serverCpuMs) result[`writes_per_server_cpu_second_${mode}`] = Math.round(1000 / r.serverCpuMs);
      if (mode === 'inline') {
        await waitIdle(server.url, key);
        const probe = await tenant(server.url);
        const lat = await timeToSearchable(server.url, probe, contents);
        const round = (v: number) => Math.round(v * 10) / 10;
        const summary = { p50_ms: round(percentile(lat, 50)), p95_ms: round(percentile(lat, 95)), p99_ms: round(percentile(lat, 99)) };
        rows.push({ measure: `202 → consolidated and searchable (${PROBES} probes, idle server)`, 'req/s': '', ...summary });
        result.time_to_searchable_ms = summary;
      }
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  console.table(rows);
  const load = noteIfLoaded();
  const best = Number(result.writes_per_second_external);
  const perCpu = Number(result.writes_per_server_cpu_second_external ?? 0);
  console.log(`target: ≥ ${TARGET} accepted writes/s — ${best >= TARGET ? 'met' : 'MISSED'} (${best}/s with workers off; the /healthz floor was ${result.healthz_per_second}/s)`);
  if (perCpu) console.log(`server CPU per accepted write: ${result.server_cpu_ms_per_write_external} ms → ${perCpu} writes per server CPU-second`);
  result.load_average_1m = Math.round(load * 100) / 100;
  result.target_met = best >= TARGET;
  result.rows = rows;
  writeJsonResult(args.json!, result);
  console.log(`wrote ${args.json}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
