import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import type { ServiceOptions } from '../../server/container.js';
import { startServer, type RunningServer } from '../../server/main.js';

export interface TestServer extends RunningServer {
  dataDir: string;
  /** Every JSON log line the server wrote, for tests that check what reached the logs. */
  logs: string[];
}

/**
 * Starts the real service on an ephemeral loopback port over a fresh embedded data directory.
 * Each call is isolated: its own database file, secret and logs.
 */
/**
 * `env` overrides the test defaults; a variable set to `undefined` is left to the configuration's own
 * default (e.g. `EMBEDDINGS_PROVIDER: undefined` serves the default local model instead of `hash`).
 */
export async function startTestServer(env: Record<string, string | undefined> = {}, options: ServiceOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-test-'));
  // Address budgets off: suites sign up and start SSO sign-ins many times from loopback (their own
  // tests turn them on).
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    EMBEDDINGS_PROVIDER: 'hash',
    SIGNUP_RATE_LIMIT: '0',
    SSO_START_RATE_LIMIT: '0',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      cb();
    },
  });
  const running = await startServer(config, createLogger(config.LOG_LEVEL, sink), options);
  return {
    ...running,
    dataDir,
    logs,
    async close() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** fetch against the server with JSON in and out; returns status, headers and the parsed body. */
export async function http(
  base: string,
  method: string,
  url: string,
  opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {},
) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + url, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, body: json, text };
}
