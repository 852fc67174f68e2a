/** Helpers for benches that drive a real server over HTTP on loopback. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** PLAN_LIMITS for a bench server: the free plan without limits, so a load run is never refused with 429. */
export const UNLIMITED_PLAN_LIMITS = JSON.stringify({ free: { writes: null, reads: null, searches: null, storage_bytes: null } });

/** A TCP port free on 127.0.0.1 right now (the OS picks it; there is a small race until it is reused). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `${url}/healthz` every 100 ms until it answers 2xx; throws after `timeoutMs`. */
export async function waitReady(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('server did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface SpawnedServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * `tenant-memory serve --processes N` as a child process on a free loopback port over `dataDir`, with
 * `env` added to this process's environment; resolves once /healthz answers. A `--cpu-prof` flag of
 * this process is passed on (profiles of the server).
 */
export async function spawnServer(
  dataDir: string,
  processes: number,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<SpawnedServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [
    'bin/tenant-memory.mjs',
    'serve',
    '--processes',
    String(processes),
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--data-dir',
    dataDir,
  ];
  const child = spawn(process.execPath, [...process.execArgv.filter((a) => a.startsWith('--cpu-prof')), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  };
  try {
    await waitReady(url, timeoutMs);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, child, stop };
}

/** CPU time (ms) a process and its children (the processes of `--processes N`) have used so far, from /proc (Linux); null elsewhere. */
export function cpuMsOf(pid: number | undefined): number | null {
  const ticks = (p: number | string) => {
    const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { ppid: Number(fields[1]), cpu: Number(fields[11]) + Number(fields[12]) }; // utime + stime
  };
  try {
    let total = ticks(pid!).cpu;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const t = ticks(entry);
        if (t.ppid === pid) total += t.cpu;
      } catch {
        /* exited meanwhile */
      }
    }
    return (total * 1000) / 100; // clock ticks of 10 ms
  } catch {
    return null;
  }
}

/** Resident memory (MB) of a process and its children (the processes of `--processes N`), from /proc (Linux); null elsewhere. */
export function rssMbOf(pid: number | undefined): number | null {
  const rssKb = (p: number | string) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
  const parentOf = (p: string) => Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  try {
    let total = rssKb(pid!);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (parentOf(entry) === pid) total += rssKb(entry);
      } catch {
        /* exited meanwhile */
      }
    }
    return total / 1024;
  } catch {
    return null;
  }
}
