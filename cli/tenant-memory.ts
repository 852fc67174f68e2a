import { Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from '../server/config.js';
import { EmbeddingModelMismatchError, IncompleteReindexError, SearchIndexLayoutError } from '../server/ports/search-index.js';
import { AppError } from '../server/errors.js';
import { isPrimaryOfMany, superviseHttpProcesses } from '../server/cluster.js';
import { createProgress } from '../bench/harness/progress.js';
import { createLogger } from '../server/logger.js';
import { version } from '../server/version.js';

// The service's modules load when a command runs, not for `--help` or a usage error, which answer at once.
const container = () => import('../server/container.js');

/** Flags of `serve` override the environment variables of the same meaning. */
function envFromFlags(flags: Record<string, string | undefined>): Record<string, string | undefined> {
  const map: Record<string, string> = {
    port: 'PORT',
    host: 'HOST',
    dataDir: 'DATA_DIR',
    storage: 'STORAGE',
    logLevel: 'LOG_LEVEL',
    mongodbUrl: 'MONGODB_URL',
    qdrantUrl: 'QDRANT_URL',
    processes: 'HTTP_PROCESSES',
  };
  const env: Record<string, string | undefined> = { ...process.env };
  for (const [flag, name] of Object.entries(map)) if (flags[flag] !== undefined) env[name] = flags[flag];
  return env;
}

/** Problems the operator fixes by configuration get their message alone and exit 78 (EX_CONFIG). */
function fail(err: unknown): never {
  const operatorFixable =
    err instanceof ConfigError ||
    err instanceof EmbeddingModelMismatchError ||
    err instanceof IncompleteReindexError ||
    err instanceof SearchIndexLayoutError;
  process.stderr.write(`${operatorFixable ? (err as Error).message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(operatorFixable ? 78 : 1);
}

/** The flags every command that opens the store shares (each overrides its environment variable). */
function withStorageOptions(command: Command): Command {
  return command
    .option('-d, --data-dir <dir>', 'embedded profile data directory (env DATA_DIR, default ./data)')
    .addOption(new Option('--storage <profile>', 'storage profile (env STORAGE)').choices(['embedded', 'mongo']))
    .option('--mongodb-url <url>', 'MongoDB connection string for --storage mongo (env MONGODB_URL)')
    .option('--qdrant-url <url>', 'Qdrant URL for --storage mongo (env QDRANT_URL)')
    .addOption(
      new Option('--log-level <level>', 'log level (env LOG_LEVEL)').choices([
        'fatal',
        'error',
        'warn',
        'info',
        'debug',
        'trace',
        'silent',
      ]),
    );
}

/** Configuration from the environment and the flags; a bad value ends the process naming it. */
function configFrom(flags: Record<string, unknown>, defaults: Record<string, string> = {}): Config {
  try {
    return loadConfig({ ...defaults, ...envFromFlags(flags as Record<string, string | undefined>) });
  } catch (err) {
    fail(err);
  }
}

export function buildCli(): Command {
  const program = new Command('tenant-memory')
    .description('Tenant Memory Platform: a multi-tenant memory store for AI agents')
    .version(version);

  withStorageOptions(program.command('serve'))
    .description('start the HTTP service (REST, /trpc, /openapi.json, /docs) with in-process workers')
    .option('-p, --port <port>', 'port to listen on (env PORT, default 8080)')
    .option('--host <host>', 'address to bind (env HOST, default 0.0.0.0)')
    .option('--processes <n>', 'processes sharing the port, e.g. one per core (env HTTP_PROCESSES, default 1)')
    .action(async (flags: Record<string, string | undefined>) => {
      const config = configFrom(flags);
      const logger = createLogger(config.LOG_LEVEL);
      if (isPrimaryOfMany(config)) {
        const { prepareStorage } = await container();
        await superviseHttpProcesses(config, logger, () => prepareStorage(config)).catch(fail);
        return;
      }
      const { startServer } = await import('../server/main.js');
      const running = await startServer(config, logger).catch(fail);
      logger.info(
        { url: running.url, storage: config.STORAGE, dataDir: config.STORAGE === 'embedded' ? config.DATA_DIR : undefined },
        'tenant-memory listening',
      );
      const stop = (signal: string) => {
        logger.info({ signal }, 'shutting down');
        running.close().then(
          () => process.exit(0),
          (err) => fail(err),
        );
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });

  withStorageOptions(program.command('worker'))
    .description(
      'run background job workers only (no HTTP), on the same configuration as serve; pair with WORKER_MODE=external on the servers',
    )
    .option('--stop-timeout <seconds>', 'on SIGTERM/SIGINT, how long running jobs may take to finish', '30')
    .action(async (flags: Record<string, string | undefined>) => {
      const stopTimeoutSeconds = Number(flags.stopTimeout ?? 30);
      if (!Number.isFinite(stopTimeoutSeconds) || stopTimeoutSeconds < 0)
        fail(new ConfigError('invalid option:\n  --stop-timeout: must be a number of seconds >= 0'));
      const stopTimeoutMs = stopTimeoutSeconds * 1000;
      const config = configFrom(flags);
      const logger = createLogger(config.LOG_LEVEL);
      const { startWorker } = await import('../jobs/runner.js');
      const worker = await startWorker(config, logger).catch(fail);
      let signalled = false;
      const stop = (signal: string) => {
        if (signalled) {
          logger.warn({ signal }, 'second signal: exiting now; running jobs will be retried after their locks expire');
          process.exit(1);
        }
        signalled = true;
        logger.info({ signal, stopTimeoutMs }, 'stopping: no new jobs, waiting for running ones');
        worker.stop(stopTimeoutMs).then(
          () => process.exit(0),
          (err) => fail(err),
        );
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    });

  withStorageOptions(program.command('reindex'))
    .description(
      "rebuild every memory's search index rows (vectors, keywords, entities) with the configured embedding model; stop the service first",
    )
    .option('-q, --quiet', 'no progress bar')
    .action(async (flags: Record<string, string | undefined> & { quiet?: boolean }) => {
      const config = configFrom(flags, { LOG_LEVEL: 'warn' });
      const logger = createLogger(config.LOG_LEVEL);
      const bar = createProgress({ quiet: flags.quiet === true });
      let started = false;
      const { reindexSearch } = await container();
      const result = await reindexSearch(config, logger, (done, total) => {
        if (!started) bar.start('reindex', total);
        started = true;
        bar.update(done, total);
      }).catch(fail);
      bar.stop();
      process.stdout.write(
        `reindexed ${result.memories} memories of ${result.tenants} tenants with ${config.EMBEDDINGS_PROVIDER} embeddings\n`,
      );
    });

  const tenant = program.command('tenant').description('operator actions on one tenant (there is no API for them)');
  const statusCommands = [
    [
      'suspend',
      'suspended',
      'refuse every request acting on the tenant (403 TENANT_SUSPENDED); its data is kept and its accepted writes still consolidate',
    ],
    ['resume', 'active', 'let a suspended tenant act again'],
  ] as const;
  for (const [name, status, description] of statusCommands) {
    withStorageOptions(tenant.command(name))
      .description(description)
      .argument('<tenant-id>')
      .action(async (tenantId: string, flags: Record<string, string | undefined>) => {
        const config = configFrom(flags, { LOG_LEVEL: 'warn' });
        try {
          const { setTenantStatus } = await container();
          const changed = await setTenantStatus(config, createLogger(config.LOG_LEVEL), tenantId, status);
          process.stdout.write(`tenant ${changed.id} (${changed.name}) is ${changed.status}\n`);
        } catch (err) {
          if (!(err instanceof AppError)) fail(err);
          process.stderr.write(`${err.message}\n`);
          process.exit(1);
        }
      });
  }

  const outbox = program
    .command('outbox')
    .description('the search index outbox of the server profile (index work waiting for Qdrant); the embedded profile has none');
  for (const retry of [false, true]) {
    const command = withStorageOptions(outbox.command(retry ? 'retry' : 'status')).description(
      retry ? 'put entries set aside after repeated failures back in the outbox and apply them now' : 'count pending and set-aside entries',
    );
    if (retry) command.option('--tenant <tenant-id>', "only this tenant's entries");
    command.action(async (flags: Record<string, string | undefined>) => {
      const config = configFrom(flags, { LOG_LEVEL: 'warn' });
      const { indexOutboxCommand } = await container();
      const r = await indexOutboxCommand(config, createLogger(config.LOG_LEVEL), { retry, tenantId: flags.tenant ?? null }).catch(fail);
      if (!r.enabled) {
        process.stdout.write('this profile writes index rows in the commit itself: there is no outbox\n');
        return;
      }
      if (r.retried) {
        const d = r.retried.drain;
        process.stdout.write(
          `put back ${r.retried.entries} entries; applied ${d.applied}, failed ${d.failed} (${d.poisoned} set aside again)` +
            `${d.outage ? '; the search index is unavailable, the drain job retries' : ''}\n`,
        );
      }
      process.stdout.write(`${r.counts?.pending ?? 0} pending, ${r.counts?.poisoned ?? 0} set aside\n`);
    });
  }

  program
    .command('bench')
    .description('run the retrieval benchmark (LoCoMo or synthetic) against a running service; --help lists its flags')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]')
    .action(async (args: string[]) => {
      const { runBench } = await import('../bench/run.js');
      process.exitCode = await runBench(args);
    });

  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  await buildCli().parseAsync(argv);
}
