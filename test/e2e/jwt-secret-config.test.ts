import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { runCli } from '../support/cli.js';

/** JWT_SECRET, the HS256 key of every access token: a weak or missing one must stop start-up, naming it. */
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-jwt-secret-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const configError = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('loadConfig accepted the configuration');
};
const mongo = { STORAGE: 'mongo', MONGODB_URL: 'mongodb://127.0.0.1:1/tm', QDRANT_URL: 'http://127.0.0.1:1' };

describe('JWT_SECRET validation', () => {
  it('refuses a secret shorter than 32 characters and accepts one of 32', () => {
    expect(configError({ DATA_DIR: freshDir(), JWT_SECRET: 'x'.repeat(31) })).toMatch(/JWT_SECRET: must be at least 32 characters/);
    expect(loadConfig({ DATA_DIR: freshDir(), JWT_SECRET: 'y'.repeat(32) }).jwtSecret).toBe('y'.repeat(32));
  });

  it('is required on the mongo profile, where instances must share it', () => {
    expect(configError({ DATA_DIR: freshDir(), ...mongo })).toMatch(/JWT_SECRET: required when STORAGE=mongo/);
    expect(configError({ DATA_DIR: freshDir(), ...mongo, JWT_SECRET: 'short' })).toMatch(/JWT_SECRET: must be at least 32 characters/);
    expect(loadConfig({ DATA_DIR: freshDir(), ...mongo, JWT_SECRET: 'z'.repeat(40) }).jwtSecret).toBe('z'.repeat(40));
  });

  it('on the embedded profile, unset, is generated once into DATA_DIR (owner-only) and kept', () => {
    const dir = freshDir();
    const first = loadConfig({ DATA_DIR: dir }).jwtSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(path.join(dir, 'jwt-secret'), 'utf8').trim()).toBe(first);
    expect(statSync(path.join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    expect(loadConfig({ DATA_DIR: dir }).jwtSecret).toBe(first);
  });

  it('a short secret stops `serve` before it listens: exit 78 with the variable named', async () => {
    const run = runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', freshDir()], { JWT_SECRET: 'too short a secret' });
    try {
      expect(await run.exited).toBe(78);
      expect(run.stderr()).toMatch(/JWT_SECRET: must be at least 32 characters/);
      expect(run.lines.filter((l) => /listening/i.test(String(l.msg)))).toEqual([]);
    } finally {
      // A server that did start (the check gone) must not outlive the test.
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  });
});
