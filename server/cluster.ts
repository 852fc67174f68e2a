import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

/**
 * `serve --processes N`: one Node process runs JavaScript on one core, so to use more cores the
 * primary forks N copies of the whole service (HTTP and in-process workers) sharing the listening
 * socket through node:cluster. Nothing needs to be shared in memory between them: every request reads
 * the store (API keys, quotas, sign-in throttle counters), the embedded tenant search caches follow the
 * `search_changes` log, and job locks are atomic in the store.
 *
 * The primary only supervises: it prepares storage once (so copies do not race to migrate a new
 * file), forks, and on SIGTERM/SIGINT stops them all and waits. A copy that exits before it ever
 * listened failed to start (port taken, store unreachable, bad data): reforking would loop, so the
 * primary stops the others and exits non-zero. A copy that dies after listening is replaced, with a
 * growing delay while replacements keep dying young.
 */
export async function superviseHttpProcesses(config: Config, logger: Logger, prepareStorage: () => Promise<void>): Promise<void> {
  const count = config.HTTP_PROCESSES;
  await prepareStorage();
  let stopping = false;
  const alive = new Set<Worker>();
  const listening = new WeakSet<Worker>();
  const startedAt = new WeakMap<Worker, number>();
  /** Replacements in a row that died within YOUNG_MS of starting; resets when one survives. */
  let youngDeaths = 0;
  const YOUNG_MS = 60_000;

  const fork = () => {
    const worker = cluster.fork();
    alive.add(worker);
    startedAt.set(worker, Date.now());
  };
  cluster.on('listening', (worker) => listening.add(worker));
  for (let i = 0; i < count; i++) fork();
  logger.info({ processes: count, pid: process.pid }, 'tenant-memory primary supervising HTTP processes');

  const stopAll = () => {
    for (const w of alive) w.process.kill('SIGTERM');
  };

  cluster.on('exit', (worker, code, signal) => {
    alive.delete(worker);
    if (stopping) {
      if (alive.size === 0) process.exit(process.exitCode ?? 0);
      return;
    }
    if (!listening.has(worker)) {
      logger.fatal({ pid: worker.process.pid, code, signal }, 'an HTTP process failed at start-up; stopping the others');
      stopping = true;
      process.exitCode = code || 1;
      if (alive.size === 0) process.exit(code || 1);
      stopAll();
      return;
    }
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    youngDeaths = lived < YOUNG_MS ? youngDeaths + 1 : 0;
    const delayMs = youngDeaths === 0 ? 0 : Math.min(30_000, 1_000 * 2 ** (youngDeaths - 1));
    logger.error({ pid: worker.process.pid, code, signal, delayMs }, 'an HTTP process died; starting a replacement');
    setTimeout(() => {
      if (!stopping) fork();
    }, delayMs);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping HTTP processes');
    if (alive.size === 0) process.exit(0);
    stopAll();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

/** True in the primary of `serve --processes N` (N > 1); the copies it forks serve like a single process. */
export function isPrimaryOfMany(config: Config): boolean {
  return config.HTTP_PROCESSES > 1 && cluster.isPrimary;
}
