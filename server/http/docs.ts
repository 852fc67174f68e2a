import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import send from 'send';
import { sendText } from './respond.js';

const require = createRequire(import.meta.url);
const distDir = (require('swagger-ui-dist/absolute-path.js') as () => string)();

/** The page and its start-up script are ours (no inline script, so the CSP stays `script-src 'self'`). */
const page = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>Tenant Memory API</title>
  <link rel="stylesheet" type="text/css" href="./swagger-ui.css">
  <link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="./swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="./swagger-ui-standalone-preset.js" charset="UTF-8"></script>
  <script src="./swagger-initializer.js" charset="UTF-8"></script>
</body>
</html>
`;

const initializer = (documentUrl: string) => `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(documentUrl)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

/**
 * `/docs`: the interactive API reference (Swagger UI) over `/openapi.json`, its assets served from the
 * swagger-ui-dist package (works offline, no CDN). Returns false for paths it does not serve; a path
 * it serves but cannot find (or refuses, like `..`) goes to `next()` without an error: a 404.
 */
export function createDocsHandler(documentUrl: string) {
  const script = initializer(documentUrl);
  return (req: IncomingMessage, res: ServerResponse, path: string, next: (err?: unknown) => void): boolean => {
    if (path === '/docs') {
      res.statusCode = 301;
      res.setHeader('Location', '/docs/');
      res.end();
      return true;
    }
    if (!path.startsWith('/docs/')) return false;
    const file = path.slice('/docs'.length);
    if (file === '/' || file === '/index.html') sendText(res, 200, 'text/html; charset=utf-8', page);
    else if (file === '/swagger-initializer.js') sendText(res, 200, 'application/javascript; charset=utf-8', script);
    else {
      send(req, file, { root: distDir, index: false, dotfiles: 'deny' })
        .on('error', (err: { status?: number }) => next((err.status ?? 500) < 500 ? undefined : err))
        .pipe(res);
    }
    return true;
  };
}
