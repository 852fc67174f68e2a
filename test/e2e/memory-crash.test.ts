import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'libsql';
import { tenantWithKey, withKey } from '../support/memory-api.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Crash safety of consolidation: thousands of writes are accepted over HTTP by a server that runs no
 * workers (WORKER_MODE=external); a separate `tenant-memory worker` process consolidates them, is
 * killed with SIGKILL in the middle, and is started again. Afterwards every write must have been
 * applied exactly once: per memory, versions 1..n with n = its accepted writes, no gap, no duplicate,
 * and the last version equal to the last accepted write.
 */

const MEMORIES = 300;
const WRITES_PER_MEMORY = 10;
const TOTAL = MEMORIES * WRITES_PER_MEMORY;
const root = path.resolve(import.meta.dirname, '../..');

let server: TestServer;
let call: ReturnType<typeof withKey>;
let tenantId: string;
const workers: ChildProcess[] = [];
const workerLogs: string[] = [];
const env = {
  EMBEDDINGS_PROVIDER: 'hash',
  LOG_LEVEL: 'warn',
  PLAN_LIMITS: JSON.stringify({ free: { writes: null, reads: null, searches: null, storage_bytes: null } }),
};

beforeAll(async () => {
  server = await startTestServer({ ...env, WORKER_MODE: 'external' });
  const t = await tenantWithKey(server.url);
  tenantId = t.user.tenantId;
  call = withKey(server.url, t.key);
});

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await server?.close();
});

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, [path.join(root, 'bin/tenant-memory.mjs'), 'worker', '--data-dir', server.dataDir], {
    cwd: root,
    env: { ...process.env, ...env, DATA_DIR: server.dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => workerLogs.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => workerLogs.push(d.toString()));
  workers.push(child);
  return child;
}

async function pending(): Promise<number> {
  const res = await call('GET', '/usage');
  expect(res.status).toBe(200);
  return res.body.pending_writes as number;
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; worker output:\n${workerLogs.join('').slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('consolidation survives a killed worker', () => {
  it(`applies ${TOTAL} queued writes exactly once across a SIGKILL and a restart`, { timeout: 180_000 }, async () => {
    const t0 = Date.now();
    const phases: Record<string, number> = {};
    // 1. Accept every write over HTTP: a create and nine updates per memory, many clients at once.
    const ids: string[] = [];
    const last = new Map<string, string>();
    for (let i = 0; i < MEMORIES; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, MEMORIES - i) }, async (_, k) => {
          const content = `Crash drill record ${i + k} revision 0: inventory count for shelf ${i + k}`;
          const res = await call('POST', '/memories', { body: { content, tags: ['drill'] } });
          expect(res.status, res.text).toBe(202);
          last.set(res.body.memory_id, content);
          return res.body.memory_id as string;
        }),
      );
      ids.push(...batch);
    }
    for (let r = 1; r < WRITES_PER_MEMORY; r++) {
      for (let i = 0; i < MEMORIES; i += 100) {
        await Promise.all(
          ids.slice(i, i + 100).map(async (id, k) => {
            const content = `Crash drill record ${i + k} revision ${r}: inventory count for shelf ${i + k} is ${r * 7 + k}`;
            const res = await call('PUT', `/memories/${id}`, { body: { content, tags: ['drill'] } });
            expect(res.status, res.text).toBe(202);
            expect(res.body.version).toBe(r + 1);
            last.set(id, content);
          }),
        );
      }
    }
    expect(await pending()).toBe(TOTAL);
    phases.accept_ms = Date.now() - t0;

    // 2. A worker starts consolidating; kill it outright once it is well under way.
    const first = startWorker();
    await waitFor(async () => (await pending()) <= TOTAL - 250, 90_000, 'the first worker to consolidate its first batch');
    // A random moment of the next batches (planning, or inside the commit transaction) from run to run.
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 400)));
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const left = await pending();
    phases.first_worker_ms = Date.now() - t0 - phases.accept_ms;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(TOTAL);

    // 3. A new worker takes over (the dead worker's job lock expires; the sweep re-triggers the tenant).
    const second = startWorker();
    await waitFor(async () => (await pending()) === 0, 120_000, 'the second worker to drain the queue');
    phases.second_worker_ms = Date.now() - t0 - phases.accept_ms - phases.first_worker_ms;
    console.log(`crash test phases: ${JSON.stringify({ ...phases, left_after_kill: left })}`);
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));

    // 4. Exactly once: read the store directly.
    const db = new Database(path.join(server.dataDir, 'tenant-memory.db'), { readonly: true } as never);
    try {
      const versions = db
        .prepare('SELECT memory_id, version, content FROM memory_versions WHERE tenant_id = ? ORDER BY memory_id, version')
        .all([tenantId]) as { memory_id: string; version: number; content: string }[];
      expect(versions).toHaveLength(TOTAL);
      const byMemory = new Map<string, { version: number; content: string }[]>();
      for (const v of versions) (byMemory.get(v.memory_id) ?? byMemory.set(v.memory_id, []).get(v.memory_id)!).push(v);
      expect(byMemory.size).toBe(MEMORIES);
      for (const id of ids) {
        const list = byMemory.get(id)!;
        expect(list.map((v) => v.version)).toEqual(Array.from({ length: WRITES_PER_MEMORY }, (_, k) => k + 1));
        expect(list.at(-1)!.content).toBe(last.get(id));
      }
      const rows = db
        .prepare(
          'SELECT COUNT(*) AS n FROM memories WHERE tenant_id = ? AND (pending_count <> 0 OR committed_version <> head_version OR head_version <> ?)',
        )
        .get([tenantId, WRITES_PER_MEMORY]) as { n: number };
      expect(rows.n).toBe(0);
      const queued = db.prepare('SELECT COUNT(*) AS n FROM memory_writes WHERE tenant_id = ?').get([tenantId]) as { n: number };
      expect(queued.n).toBe(0);
      const indexed = db.prepare('SELECT COUNT(*) AS n FROM search_docs WHERE tenant_id = ?').get([tenantId]) as { n: number };
      expect(indexed.n).toBe(MEMORIES);
    } finally {
      db.close();
    }
    const detail = await call('GET', `/memories/${ids[0]}`);
    expect(detail.body).toMatchObject({ version: WRITES_PER_MEMORY, dirty: false, pending_count: 0, content: last.get(ids[0]!) });
  });
});
