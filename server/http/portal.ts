import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import send from 'send';
import { sendText } from './respond.js';

/**
 * What the portal page may load: its own scripts, styles and API only; no framing, no plugins, no
 * `<base>`. Styles allow 'unsafe-inline' because Radix's dialogs lock page scroll with an injected
 * `<style>` element; scripts stay 'self' (the build emits no inline script).
 */
export const PORTAL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Whether `Accept-Encoding` accepts `token` (listed without `q=0`). */
function accepts(header: string, token: string): boolean {
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((p) => p.trim());
    if (name.toLowerCase() !== token) continue;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/** The precompressed copy the client accepts, best first: brotli, then gzip (written by scripts/build-portal.mjs). */
function encodingFor(req: IncomingMessage, file: string): { suffix: string; encoding: string } | null {
  const header = String(req.headers['accept-encoding'] ?? '');
  if (accepts(header, 'br') && existsSync(`${file}.br`)) return { suffix: '.br', encoding: 'br' };
  if (accepts(header, 'gzip') && existsSync(`${file}.gz`)) return { suffix: '.gz', encoding: 'gzip' };
  return null;
}

/**
 * `/portal/`: the web portal's single-page app, built into `dist/portal` (`npm run build:portal`).
 * Hashed assets are immutable and sent precompressed when the client accepts it; every other path
 * under /portal/ (`/portal/t/<tenant>/<page>`) gets index.html, revalidated on every load so a new
 * release is picked up at once. Returns false for paths it does not serve.
 */
export function createPortalHandler(distDir: string) {
  const indexFile = join(distDir, 'index.html');
  const assetsDir = join(distDir, 'assets');

  function notBuilt(res: ServerResponse) {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Retry-After', '60');
    sendText(
      res,
      503,
      'text/plain; charset=utf-8',
      'The web portal has not been built on this server. Run `npm run build:portal` (npm install does it) and reload.\n',
    );
  }

  function serveIndex(res: ServerResponse, next: (err?: unknown) => void) {
    readFile(indexFile, 'utf8').then(
      (html) => {
        res.setHeader('Cache-Control', 'no-cache');
        res.setHeader('Content-Security-Policy', PORTAL_CSP);
        sendText(res, 200, 'text/html; charset=utf-8', html);
      },
      (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? notBuilt(res) : next(err)),
    );
  }

  function serveAsset(req: IncomingMessage, res: ServerResponse, name: string, next: (err?: unknown) => void) {
    const type = types[extname(name)];
    const file = join(assetsDir, name);
    const chosen = type ? encodingFor(req, file) : null;
    res.setHeader('Vary', 'Accept-Encoding');
    if (type) res.setHeader('Content-Type', type);
    if (chosen) res.setHeader('Content-Encoding', chosen.encoding);
    send(req, chosen ? `/${name}${chosen.suffix}` : `/${name}`, {
      root: assetsDir,
      index: false,
      dotfiles: 'deny',
      immutable: true,
      maxAge: '365d',
      etag: false,
      lastModified: false,
      acceptRanges: false,
    })
      .on('error', (err: { status?: number }) => {
        res.removeHeader('Content-Encoding');
        res.removeHeader('Content-Type');
        next((err.status ?? 500) < 500 ? undefined : err);
      })
      .pipe(res);
  }

  return (req: IncomingMessage, res: ServerResponse, path: string, query: string, next: (err?: unknown) => void): boolean => {
    if (path === '/portal') {
      res.statusCode = 301;
      res.setHeader('Location', `/portal/${query}`);
      res.end();
      return true;
    }
    if (!path.startsWith('/portal/')) return false;
    const rest = path.slice('/portal/'.length);
    if (rest.startsWith('assets/')) {
      const name = rest.slice('assets/'.length);
      // Only flat, hashed file names: nothing that walks out of the folder, nothing precompressed asked for directly.
      if (!/^[\w.-]+$/.test(name) || name.startsWith('.') || /\.(br|gz)$/.test(name)) {
        next();
        return true;
      }
      if (!existsSync(indexFile)) notBuilt(res);
      else serveAsset(req, res, name, next);
      return true;
    }
    // A file name that is not there is a 404, not the app (a stale tab asking for an old chunk must fail loudly).
    if (extname(rest) !== '' && rest !== 'index.html') {
      next();
      return true;
    }
    serveIndex(res, next);
    return true;
  };
}
