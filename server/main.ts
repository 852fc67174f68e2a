import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createApp } from './app.js';
import { clientErrorHandler } from './http/client-error.js';
import type { Config } from './config.js';
import { createContainer, type ServiceOptions, type Services } from './container.js';
import { createLogger, type Logger } from './logger.js';

export interface RunningServer {
  url: string;
  server: Server;
  services: Services;
  close(): Promise<void>;
}

/** Builds the container and app and listens; `close` stops accepting, drains, then closes storage. */
export async function startServer(
  config: Config,
  logger: Logger = createLogger(config.LOG_LEVEL),
  options: ServiceOptions = {},
): Promise<RunningServer> {
  const services = await createContainer(config, logger, options);
  const server = createServer(createApp(services));
  server.on('clientError', clientErrorHandler(logger));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    server,
    services,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await services.close();
      })()),
  };
}
