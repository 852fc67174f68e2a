import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { until } from '../support/job-fixtures.js';
import { runCli } from '../support/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('job workers', () => {
  it('run inside serve by default (WORKER_MODE=inline) and not with WORKER_MODE=external', async () => {
    const inline = await startTestServer();
    const external = await startTestServer({ WORKER_MODE: 'external' });
    try {
      expect(inline.services.jobs.isProcessing).toBe(true);
      expect(external.services.jobs.isProcessing).toBe(false);
      expect(external.services.jobs.backendName).toBe('libsql');
    } finally {
      await inline.close();
      await external.close();
    }
    expect(inline.services.jobs.isProcessing).toBe(false); // close() stopped them
  });

  it('`tenant-memory worker` runs the workers without HTTP and stops gracefully on SIGTERM', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-worker-'));
    dirs.push(dataDir);
    const w = runCli(['worker', '--data-dir', dataDir]);
    await until(
      () => {
        if (w.child.exitCode !== null) throw new Error(`worker exited: ${w.stderr()}`);
        return w.lines.some((l) => l.msg === 'tenant-memory worker running');
      },
      'the worker to start',
      60_000,
    );
    expect(w.lines.find((l) => l.msg === 'tenant-memory worker running')).toMatchObject({ storage: 'embedded', dataDir });
    expect(w.lines.some((l) => l.msg === 'tenant-memory listening')).toBe(false);
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect(w.lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['stopping: no new jobs, waiting for running ones', 'job workers stopped']),
    );
  });

  it('`tenant-memory worker` refuses a bad --stop-timeout', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-worker-'));
    dirs.push(dataDir);
    const w = runCli(['worker', '--data-dir', dataDir, '--stop-timeout', 'soon']);
    expect(await w.exited).toBe(78);
    expect(w.stderr()).toContain('--stop-timeout');
  });
});
