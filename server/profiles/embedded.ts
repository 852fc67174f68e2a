import { createEmbeddedApiKeyStore } from '../../adapters/embedded/api-key-store.js';
import { openEmbeddedDatabase } from '../../adapters/embedded/database.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { StoragePorts } from '../ports/index.js';

/** The default profile: one libsql file in DATA_DIR holds documents, indexes and the job queue. */
export function createEmbeddedPorts(config: Config, logger: Logger): StoragePorts {
  const db = openEmbeddedDatabase(config.DATA_DIR);
  logger.debug({ dataDir: config.DATA_DIR }, 'embedded storage opened');
  return {
    apiKeys: createEmbeddedApiKeyStore(db),
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      db.close();
    },
  };
}
