import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBench } from '../../bench/run.js';
import { tenantWithKey, withKey } from '../support/memory-api.js';
import { startTestServer, type TestServer } from '../support/server.js';

const root = path.resolve(import.meta.dirname, '../..');

function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The CLI's entry function in this process, for the cases that need no separate process. */
async function runInProcess(args: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) => new Writable({ write: (c: Buffer, _e, cb) => (append(c.toString()), cb()) });
  const code = await runBench(args, {
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
    env: { ...process.env, ...env },
  });
  return { code, stdout, stderr };
}

let server: TestServer;
let harnessDir: string;
let tenant: Awaited<ReturnType<typeof tenantWithKey>>;
// A closed loopback port: the download fails at once and the run falls back to synthetic data.
const offline = { LOCOMO_URL: 'http://127.0.0.1:9/locomo10.json' };

beforeAll(async () => {
  server = await startTestServer();
  harnessDir = mkdtempSync(path.join(tmpdir(), 'tm-harness-'));
  tenant = await tenantWithKey(server.url);
});
afterAll(async () => {
  await server?.close();
  rmSync(harnessDir, { recursive: true, force: true });
});

describe('tenant-memory bench (end to end on the synthetic dataset)', () => {
  it('ingests, waits for consolidation, scores and prints the spec JSON', async () => {
    const args = [
      'bin/tenant-memory.mjs',
      'bench',
      '--api-url',
      server.url,
      '--tenant',
      tenant.user.tenantId,
      '--harness-dir',
      harnessDir,
      '--search-mode',
      'hybrid+graph',
    ];
    const res = await run(process.execPath, args, { SERVICE_API_KEY: tenant.key, ...offline });
    expect(res.stderr).toContain('synthetic');
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({ mode: 'hybrid+graph', graph: true, dataset: 'synthetic', passed: expect.any(Boolean) });
    expect(Object.keys(out.scores).sort()).toEqual(['mrr', 'ndcg@10', 'recall@10']);
    for (const v of Object.values(out.scores)) expect(v).toBeGreaterThanOrEqual(0);
    expect(out.total_queries).toBeGreaterThan(0);
    expect(out.per_category).toBeTypeOf('object');
    expect(out.latency_ms).toMatchObject({ p50: expect.any(Number), p95: expect.any(Number) });
    // The synthetic questions are answerable from their evidence turns: a working search passes.
    expect(out.passed).toBe(true);
    expect(res.code).toBe(0);

    const before = (await withKey(server.url, tenant.key)('GET', '/usage')).body.memory_count;
    const again = await runInProcess([...args.slice(2), '--output-format', 'text'], { SERVICE_API_KEY: tenant.key, ...offline });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/recall@10/);
    expect((await withKey(server.url, tenant.key)('GET', '/usage')).body.memory_count).toBe(before);
  }, 180_000);

  it('exits 2 on usage errors, a foreign tenant and an unreachable service', async () => {
    expect((await runInProcess(['--tenant', 'x'], {})).code).toBe(2);
    const foreign = await runInProcess(
      ['--api-url', server.url, '--tenant', '00000000-0000-4000-8000-000000000000', '--harness-dir', harnessDir],
      { SERVICE_API_KEY: tenant.key, ...offline },
    );
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain('belongs to tenant');
    const down = await runInProcess(['--api-url', 'http://127.0.0.1:9', '--tenant', 't', '--harness-dir', harnessDir], {
      SERVICE_API_KEY: 'tmk_x',
      ...offline,
    });
    expect(down.code).toBe(2);
    expect(down.stderr).toContain('cannot reach the service');
  }, 120_000);

  it('is reachable as the spec module form python -m scripts.run_locomo', async () => {
    const res = await run('python3', ['-m', 'scripts.run_locomo', '--help'], {});
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('--search-mode');
  }, 60_000);
});
