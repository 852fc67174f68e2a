import type { StoragePorts } from '../ports/index.js';
import { outboxReadiness, type IndexOutboxService } from './search/index-outbox.js';

export interface HealthReport {
  ok: boolean;
  checks: Record<string, string>;
}

/**
 * `/readyz`: ready while the store answers. The index outbox (server profile) is reported as detail,
 * never a reason to take the instance out of service: it only delays search.
 */
export function createReadiness(ports: Pick<StoragePorts, 'ping'>, indexOutbox: Pick<IndexOutboxService, 'enabled' | 'counts'>) {
  return {
    async ready(): Promise<HealthReport> {
      try {
        await ports.ping();
      } catch (err) {
        return { ok: false, checks: { storage: err instanceof Error ? err.message : 'unavailable' } };
      }
      if (!indexOutbox.enabled) return { ok: true, checks: { storage: 'ok' } };
      const detail = await indexOutbox
        .counts()
        .then(outboxReadiness, (err: unknown) => `unknown: ${err instanceof Error ? err.message : err}`);
      return { ok: true, checks: { storage: 'ok', index_outbox: detail } };
    },
  };
}
