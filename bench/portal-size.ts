/**
 * How much the web portal's first load downloads: the JS and CSS that dist/portal/index.html loads
 * (entry script, modulepreload links, stylesheets), raw, gzip (level 9) and brotli (quality 11), as
 * the server sends them precompressed. Pages load their own chunk on first visit; they are listed too.
 *
 *   npm run bench:portal-size [-- --budget-kb 250] [--json bench/results/portal-size.json]
 *
 * Exits 1 when the first load's gzip size is over the budget. Build first (`npm run build:portal`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { benchArgs } from './support/args.js';
import { formatTable, writeJsonResult } from './support/report.js';

const USAGE = `Usage: npm run bench:portal-size -- [options]

The web portal's first-load size (JS and CSS referenced by dist/portal/index.html): raw, gzip and
brotli. Exits 1 when the gzip total is over the budget. Run npm run build:portal first.

Options:
  --budget-kb N   gzip budget for the first load in KB (default 250)
  --json FILE     where the result goes (default bench/results/portal-size.json)
  --help          this text
`;

const args = benchArgs(USAGE, { 'budget-kb': { type: 'string' }, json: { type: 'string' } });
const budgetKb = Number(args['budget-kb'] ?? 250);
const dist = path.resolve(import.meta.dirname, '../dist/portal');
const indexFile = path.join(dist, 'index.html');
if (!existsSync(indexFile)) {
  console.error('dist/portal/index.html is missing: run npm run build:portal first');
  process.exit(1);
}

const html = readFileSync(indexFile, 'utf8');
const firstLoad = [...html.matchAll(/(?:src|href)="\/portal\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
const sizes = (file: string) => {
  const body = readFileSync(path.join(dist, file));
  return {
    file,
    raw: body.length,
    gzip: gzipSync(body, { level: 9 }).length,
    brotli: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
};
const first = firstLoad.map(sizes);
const total = first.reduce((t, s) => ({ raw: t.raw + s.raw, gzip: t.gzip + s.gzip, brotli: t.brotli + s.brotli }), {
  raw: 0,
  gzip: 0,
  brotli: 0,
});
const lazy = readdirSync(path.join(dist, 'assets'))
  .filter((f) => /\.(js|css)$/.test(f) && !firstLoad.includes(`assets/${f}`))
  .map((f) => sizes(`assets/${f}`));

const kb = (n: number) => (n / 1024).toFixed(1);
const row = (s: { file: string; raw: number; gzip: number; brotli: number }) => [s.file, kb(s.raw), kb(s.gzip), kb(s.brotli)];
console.log(
  formatTable(
    ['first load', 'raw KB', 'gzip KB', 'brotli KB'],
    [...first.map(row), ['total', kb(total.raw), kb(total.gzip), kb(total.brotli)]],
  ),
);
console.log(`\n${formatTable(['loaded by a page', 'raw KB', 'gzip KB', 'brotli KB'], lazy.map(row))}`);
const within = total.gzip <= budgetKb * 1024;
console.log(`\nfirst load: ${kb(total.gzip)} KB gzip (budget ${budgetKb} KB) ${within ? 'within budget' : 'OVER BUDGET'}`);
writeJsonResult(args.json ?? 'bench/results/portal-size.json', { first_load: first, total, lazy, budget_kb: budgetKb, within });
if (!within) process.exit(1);
