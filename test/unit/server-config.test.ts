import { describe, expect, it } from 'vitest';
import { ConfigError, MONGO_CONTENT_MAX_BYTES, loadConfig } from '../../server/config.js';

/** Start-up configuration of the server profile: what MongoDB and the Qdrant client can take. */
const mongo = {
  STORAGE: 'mongo',
  MONGODB_URL: 'mongodb://mongo:27017/?replicaSet=rs0',
  QDRANT_URL: 'http://qdrant:6333',
  JWT_SECRET: 'x'.repeat(32),
};

const failure = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return null;
};

describe('server profile configuration', () => {
  it('bounds MEMORY_CONTENT_MAX_BYTES by what a MongoDB document can hold, naming the variable', () => {
    expect(loadConfig({ ...mongo, MEMORY_CONTENT_MAX_BYTES: String(MONGO_CONTENT_MAX_BYTES) }).MEMORY_CONTENT_MAX_BYTES).toBe(
      MONGO_CONTENT_MAX_BYTES,
    );
    const message = failure({ ...mongo, MEMORY_CONTENT_MAX_BYTES: String(20 * 1024 * 1024) });
    expect(message).toMatch(/MEMORY_CONTENT_MAX_BYTES: at most 4194304 \(4 MiB\) when STORAGE=mongo/);
    expect(message).toMatch(/16 MiB/);
    // The embedded profile has no such limit.
    expect(loadConfig({ JWT_SECRET: mongo.JWT_SECRET, MEMORY_CONTENT_MAX_BYTES: String(20 * 1024 * 1024) }).MEMORY_CONTENT_MAX_BYTES).toBe(
      20 * 1024 * 1024,
    );
  });

  it('takes QDRANT_URL as http or https only', () => {
    expect(loadConfig({ ...mongo, QDRANT_URL: 'https://qdrant.example.com' }).QDRANT_URL).toBe('https://qdrant.example.com');
    for (const url of ['qdrant:6333', 'ftp://qdrant', 'grpc://qdrant:6334']) {
      expect(failure({ ...mongo, QDRANT_URL: url })).toMatch(/QDRANT_URL: must be an http or https URL/);
    }
  });
});
