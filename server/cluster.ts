import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

/**
 * `serve --processes N`: one Node process runs JavaScript on one core, so to use more cores the
 * primary forks N copies of the whole service (HTTP and in-process workers) sharing the listening
 * socket through node:cluster. Nothing needs to be shared in memory between them: every request reads
 * the store (API keys, quotas), the embedded vector caches follow the `search_changes` log, and job
 * locks are atomic in the store.
 *
 * The primary only supervises: it prepares storage once (so copies do not race to migrate a new
 * file), forks, replaces a copy that dies, and on SIGTERM/SIGINT stops them all and waits.
 */
export async function superviseHttpProcesses(config: Config, logger: Logger, prepareStorage: () => Promise<void>): Promise<void> {
  const count = config.HTTP_PROCESSES;
  await prepareStorage();
  let stopping = false;
  // A copy that dies this soon after starting is failing to start (port taken, bad data dir):
  // reforking it would loop forever, so the primary gives up instead.
  const STARTUP_GRACE_MS = 10_000;
  const startedAt = new Map<Worker, number>();

  const fork = () => startedAt.set(cluster.fork(), Date.now());
  for (let i = 0; i < count; i++) fork();
  logger.info({ processes: count, pid: process.pid }, 'tenant-memory primary supervising HTTP processes');

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) {
      if (startedAt.size === 0) process.exit(process.exitCode ?? 0);
      return;
    }
    if (lived < STARTUP_GRACE_MS) {
      logger.fatal({ pid: worker.process.pid, code, signal }, 'an HTTP process failed at start-up; stopping the others');
      stopping = true;
      for (const w of startedAt.keys()) w.process.kill('SIGTERM');
      process.exitCode = code || 1;
      if (startedAt.size === 0) process.exit(code || 1);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'an HTTP process died; starting a replacement');
    fork();
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping HTTP processes');
    for (const w of startedAt.keys()) w.process.kill('SIGTERM');
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

/** True in a process forked by superviseHttpProcesses (it then serves like a single process would). */
export function isPrimaryOfMany(config: Config): boolean {
  return config.HTTP_PROCESSES > 1 && cluster.isPrimary;
}
