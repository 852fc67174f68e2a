/**
 * What every `bench:knowledge` part sets up: a fresh data directory, a `tenant-memory serve` child
 * process over it, a tenant with a key, setup calls with a few in flight, and (for seeding) the
 * services of the same data directory opened in this process, as a second process of `serve
 * --processes N` would open them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../server/config.js';
import { createContainer, type Services } from '../../server/container.js';
import { createLogger } from '../../server/logger.js';
import { json, tenantWithKey } from '../support/api.js';
import { spawnServer, UNLIMITED_PLAN_LIMITS, type SpawnedServer } from '../support/server.js';

export const KNOWLEDGE_SCOPES = ['knowledge:read', 'knowledge:write', 'memories:read', 'memories:write', 'usage:read'] as const;

export interface BenchServer {
  server: SpawnedServer;
  dataDir: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The server a part measures, over a fresh DATA_DIR; `workerMode` inline runs consolidation and enrichment jobs in it. */
export async function startServer(
  label: string,
  options: { processes: number; logLevel: string; workerMode: 'inline' | 'external' },
): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `tm-bench-knowledge-${label}-`));
  const env = {
    LOG_LEVEL: options.logLevel,
    EMBEDDINGS_PROVIDER: 'local',
    PLAN_LIMITS: UNLIMITED_PLAN_LIMITS,
    NODE_ENV: 'production',
    SIGNUP_RATE_LIMIT: '0',
    DATA_DIR: dataDir,
    WORKER_MODE: options.workerMode,
  };
  const server = await spawnServer(dataDir, options.processes, env);
  return {
    server,
    dataDir,
    env,
    close: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BenchTenant {
  tenantId: string;
  key: string;
}

/** Sign-up of a fresh tenant and a key with the knowledge and memory scopes. */
export const signUp = (url: string): Promise<BenchTenant> => tenantWithKey(url, KNOWLEDGE_SCOPES);

/** A JSON call with the tenant's key; throws unless the status is `expected`. Retried once on a socket error (a pooled connection the server closed). */
export async function call(url: string, key: string, method: string, route: string, body: unknown, expected: number): Promise<any> {
  const init: RequestInit = {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
  const res = await json(`${url}${route}`, init).catch(() => json(`${url}${route}`, init));
  if (res.status !== expected) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** `work(item, index)` over `items` with at most `inFlight` running at once, in order of start. */
export async function pool<T, R>(items: readonly T[], inFlight: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!, i);
      }
    }),
  );
  return out;
}

/** The services over `dataDir` in this process, workers off, its logs discarded. */
export async function openServices(dataDir: string): Promise<Services> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    EMBEDDINGS_PROVIDER: 'local',
    WORKER_MODE: 'external',
    PLAN_LIMITS: UNLIMITED_PLAN_LIMITS,
    NODE_ENV: 'production',
  });
  return createContainer(config, createLogger('warn', new Writable({ write: (_c, _e, cb) => cb() })), { workers: false });
}

export const round1 = (v: number) => Math.round(v * 10) / 10;
export const round2 = (v: number) => Math.round(v * 100) / 100;
