import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { createMongoPorts } from '../../server/profiles/mongo.js';

/** A loopback address nothing listens on: a server bound to a free port, then closed. */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('server profile start-up', () => {
  it('closes the MongoDB client when the search index cannot start', async () => {
    // No MongoDB server runs here: the connector hands the profile a client that only records its life.
    const state = { connected: 0, closed: 0, url: '' };
    const connect = async (url: string) => {
      state.connected++;
      state.url = url;
      return {
        db: () => ({}),
        close: async () => void state.closed++,
      } as unknown as MongoClient;
    };
    const config = {
      MONGODB_URL: 'mongodb://mongo.invalid:27017',
      MONGODB_DB: 'tm',
      QDRANT_URL: await refusedUrl(),
      QDRANT_COLLECTION: 'memories',
    } as Config;
    const embedder = { model: 'm', dimension: 4, init: async () => {} };
    await expect(createMongoPorts(config, createLogger('silent'), embedder, connect)).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
    expect(state).toEqual({ connected: 1, closed: 1, url: 'mongodb://mongo.invalid:27017' });
  });
});
