import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackSite {
  /** `http://<host>:<port>` (no trailing slash). */
  origin: string;
  /** Paths requested so far, in order: what reached the site, so a refusal can be shown to have sent nothing. */
  hits: string[];
  close(): Promise<void>;
}

/**
 * A small web site on a loopback address and an ephemeral port, for the web enrichment engine's tests.
 * The handler answers every request; open connections are dropped on close (a slow page never ends).
 */
export async function startLoopbackSite(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host = '127.0.0.1',
): Promise<LoopbackSite> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An HTML page answer. */
export function html(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}
