import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { tenantWithKey, withKey } from '../support/memory-api.js';
import { bearer } from '../support/auth.js';
import { http, startTestServer } from '../support/server.js';

/**
 * Issue 20, finding 8: a created data directory was 0755 and the database files 0644, so any local
 * user could read every tenant's memories and hashes. The tests run under umask 000, where the old
 * code made 0777/0666, so only modes set explicitly pass.
 */

const modeOf = (p: string) => statSync(p).mode & 0o777;
let root: string;
let umask: number;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tm-modes-'));
  umask = process.umask(0);
});
afterAll(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

describe('a data directory the service creates', () => {
  it('is 0700, and the database, its WAL and shared-memory files, the generated JWT secret and the key change signal are 0600', async () => {
    const dataDir = path.join(root, 'fresh', 'data');
    const server = await startTestServer({ DATA_DIR: dataDir });
    try {
      // A write makes sure the WAL has been written to, not only opened.
      const { user, key } = await tenantWithKey(server.url);
      expect((await withKey(server.url, key)('POST', '/memories', { body: { content: 'a private memory' } })).status).toBe(202);
      // Revoking a key creates the change-signal file other processes watch.
      const keys = await http(server.url, 'GET', '/api-keys', { headers: bearer(user.accessToken) });
      expect(
        (await http(server.url, 'DELETE', `/api-keys/${keys.body.keys[0].key_id}`, { headers: bearer(user.accessToken) })).status,
      ).toBe(200);
      expect(modeOf(dataDir).toString(8)).toBe('700');
      for (const file of ['tenant-memory.db', 'tenant-memory.db-wal', 'tenant-memory.db-shm', 'jwt-secret', 'api-key-changes']) {
        expect(existsSync(path.join(dataDir, file)), file).toBe(true);
        expect([file, modeOf(path.join(dataDir, file)).toString(8)]).toEqual([file, '600']);
      }
      expect(server.logs.filter((l) => l.includes('accessible to group or others'))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('an existing data directory', () => {
  it('keeps the mode its operator gave it, and start-up warns about the directory and a readable secret', async () => {
    const dataDir = path.join(root, 'shared');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    writeFileSync(path.join(dataDir, 'jwt-secret'), 'x'.repeat(64));
    chmodSync(path.join(dataDir, 'jwt-secret'), 0o644);
    const server = await startTestServer({ DATA_DIR: dataDir });
    try {
      expect(modeOf(dataDir).toString(8)).toBe('755');
      const warnings = server.logs
        .map((l) => JSON.parse(l) as { msg: string; path?: string; mode?: string })
        .filter((l) => l.msg.includes('accessible to group or others'));
      expect(warnings).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: dataDir, mode: '0755' }),
          expect.objectContaining({ path: path.join(dataDir, 'jwt-secret'), mode: '0644' }),
        ]),
      );
      // The database file this run created is private all the same.
      expect(modeOf(path.join(dataDir, 'tenant-memory.db')).toString(8)).toBe('600');
    } finally {
      await server.close();
    }
  });
});

describe('a kept JWT secret', () => {
  it('that is empty or shorter than 32 characters stops start-up, naming the file, instead of signing with it', () => {
    for (const content of ['', 'short-secret\n']) {
      const dataDir = mkdtempSync(path.join(root, 'secret-'));
      writeFileSync(path.join(dataDir, 'jwt-secret'), content);
      expect(() => loadConfig({ DATA_DIR: dataDir })).toThrow(ConfigError);
      expect(() => loadConfig({ DATA_DIR: dataDir })).toThrow(/jwt-secret holds fewer than 32 characters/);
    }
  });
});
