import type { Config } from './config.js';
import { unauthenticated } from './errors.js';
import type { Logger } from './logger.js';
import type { StoragePorts } from './ports/index.js';
import type { ApiKeyAuthenticator, BearerAuthenticator } from './principal.js';
import { createEmbeddedPorts } from './profiles/embedded.js';
import { createMongoPorts } from './profiles/mongo.js';
import { createApiKeyService, type ApiKeyService } from './services/api-keys.js';

export interface HealthReport {
  ok: boolean;
  checks: Record<string, string>;
}

/**
 * Everything procedures and jobs use, built once per process. Services see ports, never drivers:
 * this file and `profiles/` (the composition root) are the only code that knows the adapters.
 */
export interface Services {
  config: Config;
  logger: Logger;
  ports: StoragePorts;
  bearerAuth: BearerAuthenticator;
  apiKeyAuth: ApiKeyAuthenticator;
  /** API key management; also the `apiKeyAuth` authenticator. */
  apiKeys: ApiKeyService;
  health: { ready(): Promise<HealthReport> };
  close(): Promise<void>;
}

export async function createContainer(config: Config, logger: Logger): Promise<Services> {
  const ports = config.STORAGE === 'mongo' ? await createMongoPorts(config, logger) : createEmbeddedPorts(config, logger);
  return buildServices(config, logger, ports);
}

/** Wires services over whichever storage ports the profile provided. */
export function buildServices(config: Config, logger: Logger, ports: StoragePorts): Services {
  const apiKeys = createApiKeyService({ store: ports.apiKeys, logger });
  const refuse = async (): Promise<never> => {
    throw unauthenticated('authentication is not available');
  };
  return {
    config,
    logger,
    ports,
    bearerAuth: { authenticateAccessToken: refuse, accessOf: refuse },
    apiKeyAuth: apiKeys,
    apiKeys,
    health: {
      async ready() {
        try {
          await ports.ping();
          return { ok: true, checks: { storage: 'ok' } };
        } catch (err) {
          return { ok: false, checks: { storage: err instanceof Error ? err.message : 'unavailable' } };
        }
      },
    },
    close: async () => {
      await apiKeys.close(); // writes pending last_used_at values
      await ports.close();
    },
  };
}
