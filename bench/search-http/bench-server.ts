/**
 * The server a `bench:search-http` run measures, and its data: the real service on a loopback port
 * over a fresh DATA_DIR, tenants made through the real sign-up route, memories loaded through the
 * storage ports (`bench/support/memory-loader.ts`).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
import { LexicalAugmentedEmbedder, StaticUseEmbedder } from '../../adapters/embeddings/index.js';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { startServer, type RunningServer } from '../../server/main.js';
import type { IndexedMemory } from '../../server/ports/search-index.js';
import { generateTenant } from '../support/corpus.js';
import { benchMemoryId, loadConsolidatedMemories } from '../support/memory-loader.js';
import { UNLIMITED_PLAN_LIMITS } from '../support/server.js';
import { f1, fmtLa, la } from './figures.js';

export interface Bench {
  server: RunningServer;
  port: number;
  dataDir: string;
}

export async function startBenchServer(logLevel: string): Promise<Bench> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'search-http-'));
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: logLevel,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    EMBEDDINGS_PROVIDER: 'local',
    SIGNUP_RATE_LIMIT: '0', // every tenant is signed up from loopback
    PLAN_LIMITS: UNLIMITED_PLAN_LIMITS, // a run makes more searches than the free plan's month allows
  });
  // Request logs are produced (pino-http, as in production) and discarded.
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const server = await startServer(config, createLogger(config.LOG_LEVEL, sink), { workers: false });
  await server.services.embedder.init();
  return { server, port: Number(new URL(server.url).port), dataDir };
}

export async function closeBench(b: Bench): Promise<void> {
  await b.server.close();
  rmSync(b.dataDir, { recursive: true, force: true });
}

export function dbBytes(b: Bench): number {
  let n = 0;
  for (const f of readdirSync(b.dataDir)) n += statSync(path.join(b.dataDir, f)).size;
  return n;
}

export function embeddedIndex(b: Bench): EmbeddedSearchIndex {
  const idx = b.server.services.ports.searchIndex;
  if (!(idx instanceof EmbeddedSearchIndex)) throw new Error('the embedded profile was expected');
  return idx;
}

/** A setup call on a fresh connection (a pooled one may have been closed by the server's keep-alive timeout). */
function postJson(b: Bench, url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: b.port,
        path: url,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface Tenant {
  label: string;
  tenantId: string;
  key: string | null;
  seed: number;
  size: number;
}

/** A tenant made through the real sign-up route, with a read-only search key when `withKey`. */
export async function createTenant(b: Bench, label: string, seed: number, size: number, withKey: boolean): Promise<Tenant> {
  const su = await postJson(b, '/auth/signup', {
    email: `bench-${label}-${seed}-${Date.now()}@example.test`,
    password: `pw-${seed}-bench-search-http-${Math.random()}`,
  });
  if (su.status !== 201) throw new Error(`signup failed: ${su.status} ${JSON.stringify(su.body)}`);
  let key: string | null = null;
  if (withKey) {
    const k = await postJson(
      b,
      '/api-keys',
      { name: `search-bench-${label}`, scopes: ['memories:read'] },
      { authorization: `Bearer ${su.body.access_token}` },
    );
    if (k.status !== 201) throw new Error(`api key failed: ${k.status} ${JSON.stringify(k.body)}`);
    key = k.body.secret as string;
  }
  return { label, tenantId: su.body.tenant_id as string, key, seed, size };
}

const staticUse = new StaticUseEmbedder();
export const localModel = new LexicalAugmentedEmbedder(staticUse);
/** The served model's vector of a memory, synchronously (the generator is synchronous). */
const localVectorizer = { embedOne: (text: string) => localModel.combine(staticUse.embedOne(text), text) };

function* corpus(seed: number, size: number): Generator<IndexedMemory> {
  let i = 0;
  for (const d of generateTenant(seed, size, localVectorizer)) yield { ...d, memoryId: benchMemoryId(seed, i++) };
}

export interface LoadRecord {
  tenant: string;
  size: number;
  ms: number;
  perSecond: number;
  bytesAfter: number;
}

/** Loads the tenant's memories as consolidated ones, printing progress; the record joins `loads`. */
export async function load(b: Bench, t: Tenant, loads: LoadRecord[]): Promise<LoadRecord> {
  const t0 = performance.now();
  let lastPrint = t0;
  await loadConsolidatedMemories(b.server.services.ports, t.tenantId, corpus(t.seed, t.size), {
    batch: 2000,
    onProgress: (n) => {
      const now = performance.now();
      if (now - lastPrint > 15_000) {
        lastPrint = now;
        process.stdout.write(
          `    ${t.label}: ${n.toLocaleString('en')}/${t.size.toLocaleString('en')} (${((n / (now - t0)) * 1000).toFixed(0)}/s, load avg ${fmtLa(la())})\n`,
        );
      }
    },
  });
  const ms = performance.now() - t0;
  const rec = { tenant: t.label, size: t.size, ms, perSecond: t.size / (ms / 1000), bytesAfter: dbBytes(b) };
  loads.push(rec);
  console.log(
    `  loaded ${t.label}: ${t.size.toLocaleString('en')} memories in ${f1(ms / 1000)} s (${rec.perSecond.toFixed(0)}/s); database ${(rec.bytesAfter / 1e9).toFixed(2)} GB`,
  );
  return rec;
}
