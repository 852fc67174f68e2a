/**
 * Load from `wrk` (https://github.com/wg/wrk; Debian/Ubuntu: `apt-get install wrk`), a C load generator,
 * for the throughput benches. On a 2-core machine the client shares the server's cores: autocannon, a
 * Node client, spends ~0.2 ms of CPU per request — a third of what the server spends accepting a write —
 * so with it a bench measures client and server together. wrk spends a few microseconds.
 *
 * wrk runs for a duration, not a request count; its Lua script supplies every request's body in turn
 * and, when it is done, prints one JSON line of totals and latency percentiles that `runWrk` parses.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

export interface WrkRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Request bodies, sent in turn (cycled). */
  bodies?: readonly string[];
}

export interface WrkResult {
  /** Responses completed within the duration. */
  requests: number;
  seconds: number;
  /** Responses with a status of 400 or more (wrk's count), and socket errors (connect, read, write, timeout). */
  statusErrors: number;
  socketErrors: number;
  p50Ms: number;
  p97_5Ms: number;
  p99Ms: number;
  /** CPU the wrk process used, per completed request (ms). */
  clientCpuMsPerRequest: number;
}

/** True when a `wrk` binary is on PATH. */
export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
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
  return `wrk.method = ${luaString(request.method)}
${headers}
local bodies = {${bodies.map(luaString).join(',\n')}}
local i = 0
${
  bodies.length > 0
    ? `request = function()
  i = i + 1
  return wrk.format(nil, nil, nil, bodies[(i - 1) % #bodies + 1])
end`
    : ''
}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_RESULT {"requests":%d,"duration_us":%d,"status":%d,"socket":%d,"p50":%d,"p97_5":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(97.5), latency:percentile(99)))
end
`;
}

/**
 * Runs wrk (one thread, `connections` keep-alive connections) for `seconds` against `request.url`. The
 * script goes to `scriptPath`. wrk runs under a shell that reports its CPU time afterwards, read from
 * the shell's own /proc entry (children's user + system time, in clock ticks of 10 ms).
 */
export function runWrk(request: WrkRequest, options: { connections: number; seconds: number; scriptPath: string }): WrkResult {
  writeFileSync(options.scriptPath, script(request));
  const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', options.scriptPath, request.url];
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const out = execFileSync('sh', ['-c', `wrk ${quoted}; read -r s < /proc/$$/stat; echo "SHELL_STAT $s"`], { encoding: 'utf8', maxBuffer: 16 << 20 });
  const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
  const stat = out.split('\n').find((l) => l.startsWith('SHELL_STAT '));
  if (!line || !stat) throw new Error(`wrk printed no result:\n${out}`);
  const r = JSON.parse(line.slice('WRK_RESULT '.length)) as { requests: number; duration_us: number; status: number; socket: number; p50: number; p97_5: number; p99: number };
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
    p97_5Ms: ms(r.p97_5),
    p99Ms: ms(r.p99),
    clientCpuMsPerRequest: r.requests > 0 ? Math.round((clientTicks * 10 * 1000) / r.requests) / 1000 : 0,
  };
}
