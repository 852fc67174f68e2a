import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { until } from '../support/job-fixtures.js';
import { tenantWithKey, waitConsolidated } from '../support/memory-api.js';
import { freePort } from '../../bench/support/server.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function serve(args: string[]) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-processes-'));
  dirs.push(dataDir);
  return runCli(['serve', '--host', '127.0.0.1', '--data-dir', dataDir, ...args]);
}

/** One request on a connection of its own, so node:cluster hands each to the next process in turn. */
function fresh(url: string, headers: Record<string, string>, post?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const options =
      post === undefined
        ? { agent: false, headers }
        : { agent: false, method: 'POST', headers: { ...headers, 'content-type': 'application/json' } };
    const req = request(url, options, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(post === undefined ? undefined : JSON.stringify(post));
  });
}

describe('serve --processes N', () => {
  it('runs N processes on one port over one store: every process sees every write and every revocation', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const s = serve(['--port', String(port), '--processes', '2']);
    try {
      await until(
        () => {
          if (s.child.exitCode !== null) throw new Error(`serve exited: ${s.stderr()}`);
          return s.lines.filter((l) => l.msg === 'tenant-memory listening').length === 2;
        },
        'two HTTP processes to listen',
        60_000,
      );
      const listening = s.lines.filter((l) => l.msg === 'tenant-memory listening');
      expect(new Set(listening.map((l) => l.pid)).size).toBe(2);
      expect(s.lines.find((l) => l.msg === 'tenant-memory primary supervising HTTP processes')).toMatchObject({
        processes: 2,
        pid: s.child.pid,
      });

      const { user, key } = await tenantWithKey(base);
      const write = await fetch(`${base}/memories`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ content: 'The deploy window for the billing service is Tuesday at 14:00' }),
      });
      expect(write.status).toBe(202);
      const { memory_id: id } = (await write.json()) as { memory_id: string };
      await waitConsolidated(base, key);

      // Consecutive fresh connections alternate between the processes: all of them find the memory.
      const logged = s.lines.length;
      for (let i = 0; i < 6; i++) {
        const read = await fresh(`${base}/memories/${id}`, { 'x-api-key': key });
        expect(read.status).toBe(200);
        expect(read.body.dirty).toBe(false);
        const found = await fresh(`${base}/memories/search?q=${encodeURIComponent('billing deploy window')}`, { 'x-api-key': key });
        expect(found.status).toBe(200);
        expect(found.body.results.map((r: { memory_id: string }) => r.memory_id)).toContain(id);
      }
      // …and both processes answered some of them (their request logs carry their pids).
      await until(
        () =>
          new Set(
            s.lines
              .slice(logged)
              .filter((l) => l.msg === 'request completed')
              .map((l) => l.pid),
          ).size === 2,
        'requests answered by both processes',
      );

      const keys = await fetch(`${base}/api-keys`, { headers: { authorization: `Bearer ${user.accessToken}` } });
      const keyId = ((await keys.json()) as { keys: { key_id: string }[] }).keys[0]!.key_id;
      const revoke = await fetch(`${base}/api-keys/${keyId}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${user.accessToken}` },
      });
      expect(revoke.status).toBeLessThan(300);
      for (let i = 0; i < 6; i++) expect((await fresh(`${base}/memories/${id}`, { 'x-api-key': key })).status).toBe(401);

      // Failed sign-ins count in the store, not per process: the sixth attempt is refused whichever
      // process takes it (5 failures per address and email are allowed).
      const wrong = { email: user.email, password: 'not-the-password-1' };
      for (let i = 0; i < 5; i++) expect((await fresh(`${base}/auth/login`, {}, wrong)).status).toBe(401);
      const locked = await fresh(`${base}/auth/login`, {}, { email: user.email, password: user.password });
      expect(locked.status).toBe(429);
      expect(locked.body.code).toBe('RATE_LIMITED');

      // A process that dies after it started is replaced; the service keeps answering meanwhile.
      const victim = listening[0]!.pid as number;
      process.kill(victim, 'SIGKILL');
      await until(
        () => s.lines.some((l) => l.msg === 'an HTTP process died; starting a replacement' && l.code === null),
        'the primary to notice',
        20_000,
      );
      await until(() => s.lines.filter((l) => l.msg === 'tenant-memory listening').length === 3, 'a replacement to listen', 60_000);
      for (let i = 0; i < 4; i++) expect((await fresh(`${base}/healthz`, {})).status).toBe(200);
    } finally {
      s.child.kill('SIGTERM');
    }
    expect(await s.exited).toBe(0);
    expect(s.lines.some((l) => l.msg === 'stopping HTTP processes')).toBe(true);
    // Three processes start from source (tsx) here; on a loaded two-core machine that alone took ~25 s.
  }, 90_000);

  it('gives up, with a failing status, when its processes cannot start (the port is taken)', async () => {
    const port = await freePort();
    const first = serve(['--port', String(port)]);
    try {
      await until(() => first.lines.some((l) => l.msg === 'tenant-memory listening'), 'the first server', 60_000);
      const second = serve(['--port', String(port), '--processes', '2']);
      expect(await second.exited).not.toBe(0);
      expect(second.lines.some((l) => l.msg === 'an HTTP process failed at start-up; stopping the others')).toBe(true);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  });

  it('refuses a process count that is not a positive integer', async () => {
    const s = serve(['--processes', '0']);
    expect(await s.exited).toBe(78);
    expect(s.stderr()).toContain('HTTP_PROCESSES');
  });
});
