import type * as Mongo from 'mongodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Config } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { createMongoPorts } from '../../server/profiles/mongo.js';

/** The server profile's start-up, with the MongoDB client replaced (no server runs here). */
const clients = vi.hoisted(() => [] as { connected: boolean; closed: boolean }[]);

vi.mock('mongodb', async (importOriginal) => {
  const actual = await importOriginal<typeof Mongo>();
  class RecordingClient {
    readonly state = { connected: false, closed: false };
    constructor() {
      clients.push(this.state);
    }
    async connect() {
      this.state.connected = true;
      return this;
    }
    db() {
      return {};
    }
    async close() {
      this.state.closed = true;
    }
  }
  return { ...actual, MongoClient: RecordingClient };
});

afterEach(() => {
  vi.unstubAllGlobals();
  clients.length = 0;
});

const config = {
  MONGODB_URL: 'mongodb://mongo.invalid:27017',
  MONGODB_DB: 'tm',
  QDRANT_URL: 'http://qdrant.invalid:6333',
  QDRANT_COLLECTION: 'memories',
} as Config;

describe('server profile start-up', () => {
  it('closes the MongoDB client when the search index cannot start', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('fetch failed');
    });
    const embedder = { model: 'm', dimension: 4, init: async () => {} };
    await expect(createMongoPorts(config, createLogger('silent'), embedder)).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
    expect(clients).toEqual([{ connected: true, closed: true }]);
  });
});
