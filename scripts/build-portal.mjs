#!/usr/bin/env node
// Builds the web portal (client/portal) into dist/portal with Vite, then writes .br and .gz copies of
// the hashed assets so the server sends them precompressed. Run by `npm run build:portal` and by the
// `prepare` script (so `npm install` / `npm ci` leave a working /portal/).
//
//   --if-stale   skip the build when dist/portal was built from the same sources (a hash in .build-stamp)
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { portalOut, portalRoot, portalViteConfig, repoRoot } from './portal-vite.mjs';

const STAMP = join(portalOut, '.build-stamp');

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path) : [path];
  });
}

/** A hash of everything the bundle is made from: the portal's sources, the typed client, this script, the lockfile. */
export function sourceHash() {
  const inputs = [
    ...filesUnder(portalRoot),
    join(repoRoot, 'client/index.ts'),
    join(repoRoot, 'scripts/build-portal.mjs'),
    join(repoRoot, 'scripts/portal-vite.mjs'),
    join(repoRoot, 'package-lock.json'),
  ].sort();
  const hash = createHash('sha256');
  for (const file of inputs) hash.update(relative(repoRoot, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

export function isStale() {
  return !existsSync(STAMP) || readFileSync(STAMP, 'utf8').trim() !== sourceHash();
}

function precompress() {
  let count = 0;
  for (const file of filesUnder(join(portalOut, 'assets'))) {
    if (!/\.(js|css|svg|json|txt|map)$/.test(file)) continue;
    const body = readFileSync(file);
    writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
    writeFileSync(
      `${file}.br`,
      brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: statSync(file).size },
      }),
    );
    count++;
  }
  return count;
}

export async function buildPortal() {
  let vite;
  try {
    vite = await import('vite');
  } catch {
    // A production-only install (npm ci --omit=dev) has no Vite: the image builds the portal in its build stage.
    console.warn('build-portal: vite is not installed (devDependencies omitted?); /portal/ answers 503 until the portal is built');
    return false;
  }
  const started = Date.now();
  await vite.build(portalViteConfig({ logLevel: 'warn' }));
  const compressed = precompress();
  writeFileSync(STAMP, `${sourceHash()}\n`);
  console.log(`build-portal: built dist/portal in ${Date.now() - started} ms (${compressed} assets precompressed)`);
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--if-stale') && !isStale()) {
    console.log('build-portal: dist/portal is up to date');
  } else {
    await buildPortal();
  }
}
