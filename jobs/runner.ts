/**
 * Running job workers. In the default `WORKER_MODE=inline` the HTTP server's container starts them
 * (`server/container.ts`); with `WORKER_MODE=external` the server only enqueues and one or more
 * `tenant-memory worker` processes — this module — run the jobs, on the same configuration and store.
 *
 * Shutdown is graceful: on SIGTERM/SIGINT a worker stops taking jobs, hands back the ones it locked but
 * did not start, lets running ones finish (up to a timeout), then closes its stores. A worker killed
 * outright (SIGKILL, a crash) leaves its jobs locked until their lock lifetime passes; then another
 * worker runs them again.
 */
import type { Config } from '../server/config.js';
import { createContainer, type ServiceOptions, type Services } from '../server/container.js';
import type { Logger } from '../server/logger.js';
import type { StopResult } from './agenda.js';

export interface RunningWorker {
  services: Services;
  /** Graceful stop, then closes the stores. Idempotent. */
  stop(timeoutMs?: number): Promise<StopResult>;
}

/** Builds the container without HTTP and starts its job workers, whatever WORKER_MODE says. */
export async function startWorker(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<RunningWorker> {
  const services = await createContainer(config, logger, { ...options, workers: true });
  logger.info(
    {
      storage: config.STORAGE,
      worker: services.jobs.workerName,
      jobs: services.jobs.names(),
      dataDir: config.STORAGE === 'embedded' ? config.DATA_DIR : undefined,
    },
    'tenant-memory worker running',
  );
  let stopping: Promise<StopResult> | undefined;
  return {
    services,
    stop: (timeoutMs) =>
      (stopping ??= (async () => {
        const result = await services.jobs.stop(timeoutMs);
        await services.close();
        return result;
      })()),
  };
}
