/**
 * Closed-loop HTTP load for `bench:knowledge`: `connections` keep-alive connections against a server
 * child process, by wrk when it is on PATH (a C client; `apt-get install wrk`) or autocannon (a Node
 * client in this process, ~0.14 ms of CPU per request on the cores the server uses). Every request's
 * path and body are taken in turn from the lists given; any status other than `expected` fails the run.
 */
import autocannon from 'autocannon';
import { cpuMsOf, type SpawnedServer } from '../support/server.js';
import { latencyStats } from '../support/stats.js';
import { runWrk } from '../support/wrk.js';

export type LoadClient = 'wrk' | 'autocannon';

export interface LoadRequest {
  method: 'GET' | 'POST' | 'PATCH';
  /** Paths (with their query strings) taken in turn. */
  paths: readonly string[];
  headers: Record<string, string>;
  /** Bodies taken in turn (none for GET). */
  bodies?: readonly string[];
}

export interface LoadRun {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** Server CPU per request (ms, the process and its children), when /proc tells. */
  serverCpuMs: number | null;
  /** The load client's CPU per request (ms). */
  clientCpuMs: number;
}

export interface LoadOptions {
  client: LoadClient;
  connections: number;
  /** wrk: seconds of load. */
  seconds: number;
  /** autocannon: requests sent. */
  requests: number;
}

const round2 = (v: number) => Math.round(v * 100) / 100;

export async function driveLoad(server: SpawnedServer, request: LoadRequest, expected: number, options: LoadOptions): Promise<LoadRun> {
  const cpu0 = cpuMsOf(server.child.pid);
  const run = options.client === 'wrk' ? await byWrk(server, request, options) : await byAutocannon(server, request, expected, options);
  const cpu1 = cpuMsOf(server.child.pid);
  return { ...run, serverCpuMs: cpu0 !== null && cpu1 !== null ? round2((cpu1 - cpu0) / run.requests) : null };
}

async function byWrk(server: SpawnedServer, request: LoadRequest, options: LoadOptions): Promise<Omit<LoadRun, 'serverCpuMs'>> {
  const r = await runWrk(
    { url: server.url + request.paths[0]!, method: request.method, headers: request.headers, paths: request.paths, bodies: request.bodies },
    { connections: options.connections, seconds: options.seconds },
  );
  // wrk counts only statuses of 400 or more; the callers check the effect another way (counts, reads).
  if (r.statusErrors > 0 || r.socketErrors > 0)
    throw new Error(`${request.method} ${request.paths[0]}: ${r.statusErrors} answers of 400 or more, ${r.socketErrors} socket errors`);
  return {
    requests: r.requests,
    perSecond: Math.round(r.requests / r.seconds),
    p50Ms: r.p50Ms,
    p95Ms: r.p95Ms,
    p99Ms: r.p99Ms,
    clientCpuMs: r.clientCpuMsPerRequest,
  };
}

/** autocannon's own summary has no p95, so every response time is kept from its `response` events. */
async function byAutocannon(
  server: SpawnedServer,
  request: LoadRequest,
  expected: number,
  options: LoadOptions,
): Promise<Omit<LoadRun, 'serverCpuMs'>> {
  const client0 = process.cpuUsage();
  const latencies: number[] = [];
  const unexpected: number[] = [];
  let i = 0;
  const started = performance.now();
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: server.url,
        connections: options.connections,
        amount: options.requests,
        method: request.method,
        headers: request.headers,
        requests: [
          {
            setupRequest: (req) => {
              const k = i++;
              const body = request.bodies ? { body: request.bodies[k % request.bodies.length] } : {};
              return { ...req, path: request.paths[k % request.paths.length]!, ...body };
            },
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      lastAnswer = performance.now();
      latencies.push(ms);
      if (status !== expected) unexpected.push(status);
    });
  });
  if (unexpected.length > 0 || result.errors > 0)
    throw new Error(
      `${request.method} ${request.paths[0]}: ${unexpected.length} answers other than ${expected} (first ${unexpected[0]}), ${result.errors} errors`,
    );
  const client = process.cpuUsage(client0);
  const s = latencyStats(latencies);
  // Timed here up to the last answer: autocannon notices `amount` only on its one-second tick.
  return {
    requests: latencies.length,
    perSecond: Math.round(latencies.length / ((lastAnswer - started) / 1000)),
    p50Ms: round2(s.p50),
    p95Ms: round2(s.p95),
    p99Ms: round2(s.p99),
    clientCpuMs: Math.round((client.user + client.system) / latencies.length) / 1000,
  };
}
