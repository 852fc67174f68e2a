#!/usr/bin/env node
// The portal's development server: Vite with instant reloads on port 5173 (PORTAL_DEV_PORT), passing
// /trpc, /api and /auth to a running service (PORTAL_API_URL, default http://localhost:8080; start it
// with `npm start`). Open http://localhost:5173/portal/.
import { createServer } from 'vite';
import { portalViteConfig } from './portal-vite.mjs';

const target = process.env.PORTAL_API_URL ?? 'http://localhost:8080';
// The browser's origin is the dev server, which the service would refuse as another site (its portal
// routes check Origin): the proxy drops Origin, as the service's own origin would not need it.
const proxied = {
  target,
  changeOrigin: true,
  configure: (proxy) => proxy.on('proxyReq', (req) => req.removeHeader('origin')),
};
const server = await createServer(
  portalViteConfig({
    server: { port: Number(process.env.PORTAL_DEV_PORT ?? 5173), proxy: { '/trpc': proxied, '/api': proxied, '/auth': proxied } },
  }),
);
await server.listen();
server.printUrls();
console.log(`dev-portal: calls go to ${target}`);
