/**
 * Load from `wrk` (https://github.com/wg/wrk; Debian/Ubuntu: `apt-get install wrk`), a C load generator,
 * for the throughput benches. On a 2-core machine the client shares the server's cores: autocannon, a
 * Node client, spends ~0.2 ms of CPU per request — a third of what the server spends accepting a write —
 * so with it a bench measures client and server together. wrk spends a few microseconds.
 *
 * wrk runs for a duration, not a request count; its Lua script supplies every request's body in turn
 * and, when it is done, prints one JSON line of totals and latency percentiles that `runWrk` parses.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface WrkRequest {
  /** The server's base URL plus the path of every request (unless `paths` is given). */
  url: string;
  method: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  /** Request bodies, sent in turn (cycled). */
  bodies?: readonly string[];
  /** Request paths (with their query strings), sent in turn (cycled); default: the URL's. */
  paths?: readonly string[];
}

export interface WrkResult {
  /** Responses completed within the duration. */
  requests: number;
  seconds: number;
  /** Responses with a status of 400 or more (wrk's count), and socket errors (connect, read, write, timeout). */
  statusErrors: number;
  socketErrors: number;
  p50Ms: number;
  p95Ms: number;
  p97_5Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  /** CPU the wrk process used, per completed request (ms). */
  clientCpuMsPerRequest: number;
}

/** True when a `wrk` binary is on PATH. */
export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

/**
 * The load client a bench uses: `requested` (its `--client`) when given, else wrk when installed,
 * else `fallback`. Refuses an unknown name, or wrk when it is not on PATH.
 */
export function pickClient<F extends string>(requested: string | undefined, fallback: F): 'wrk' | F {
  const installed = wrkAvailable();
  const client = requested ?? (installed ? 'wrk' : fallback);
  if (client !== 'wrk' && client !== fallback) throw new Error(`--client must be wrk or ${fallback}, not ${client}`);
  if (client === 'wrk' && !installed) throw new Error('--client wrk: no wrk on PATH (apt-get install wrk)');
  return client as 'wrk' | F;
}

/**
 * A Lua string literal. JSON's escapes are Lua's (\\ \" \n \t…) except \uXXXX, which JSON.stringify
 * emits only for control characters and lone surrogates; the texts here are headers and JSON request
 * bodies, which contain neither raw.
 */
const luaString = (s: string) => JSON.stringify(s);

function script(request: WrkRequest): string {
  const headers = Object.entries(request.headers ?? {})
    .map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`)
    .join('\n');
  const bodies = request.bodies ?? [];
  const paths = request.paths ?? [];
  const perRequest = bodies.length > 0 || paths.length > 0;
  return `wrk.method = ${luaString(request.method)}
${headers}
local bodies = {${bodies.map(luaString).join(',\n')}}
local paths = {${paths.map(luaString).join(',\n')}}
local i = 0
${
  perRequest
    ? `request = function()
  i = i + 1
  local path = nil
  local body = nil
  if #paths > 0 then path = paths[(i - 1) % #paths + 1] end
  if #bodies > 0 then body = bodies[(i - 1) % #bodies + 1] end
  return wrk.format(nil, path, nil, body)
end`
    : ''
}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_RESULT {"requests":%d,"duration_us":%d,"status":%d,"socket":%d,"p50":%d,"p95":%d,"p97_5":%d,"p99":%d,"mean":%d,"max":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(97.5), latency:percentile(99), math.floor(latency.mean), latency.max))
end
`;
}

/**
 * Runs wrk (one thread, `connections` keep-alive connections) for `seconds` against `request.url`, its
 * Lua script in a temporary directory. wrk runs under a shell that reports its CPU time afterwards, read from
 * the shell's own /proc entry (children's user + system time, in clock ticks of 10 ms). Asynchronous:
 * the server under load may be in this very process.
 */
export async function runWrk(request: WrkRequest, options: { connections: number; seconds: number }): Promise<WrkResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-wrk-'));
  let out: string;
  try {
    const scriptPath = path.join(dir, 'load.lua');
    writeFileSync(scriptPath, script(request));
    const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', scriptPath, request.url];
    const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    ({ stdout: out } = await promisify(execFile)('sh', ['-c', `wrk ${quoted}; read -r s < /proc/$$/stat; echo "SHELL_STAT $s"`], {
      encoding: 'utf8',
      maxBuffer: 16 << 20,
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
  const stat = out.split('\n').find((l) => l.startsWith('SHELL_STAT '));
  if (!line || !stat) throw new Error(`wrk printed no result:\n${out}`);
  const r = JSON.parse(line.slice('WRK_RESULT '.length)) as {
    requests: number;
    duration_us: number;
    status: number;
    socket: number;
    p50: number;
    p95: number;
    p97_5: number;
    p99: number;
    mean: number;
    max: number;
  };
  // Fields after "(comm) ": state is 0, so cutime and cstime (stat fields 16 and 17) are at 13 and 14.
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  const clientTicks = Number(fields[13]) + Number(fields[14]);
  const ms = (us: number) => Math.round(us / 10) / 100;
  return {
    requests: r.requests,
    seconds: r.duration_us / 1e6,
    statusErrors: r.status,
    socketErrors: r.socket,
    p50Ms: ms(r.p50),
    p95Ms: ms(r.p95),
    p97_5Ms: ms(r.p97_5),
    p99Ms: ms(r.p99),
    meanMs: ms(r.mean),
    maxMs: ms(r.max),
    clientCpuMsPerRequest: r.requests > 0 ? Math.round((clientTicks * 10 * 1000) / r.requests) / 1000 : 0,
  };
}
