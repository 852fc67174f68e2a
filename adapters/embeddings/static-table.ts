import { createHash } from 'node:crypto';

/**
 * The file format of a static token-embedding table (`models/*.bin`): one int8 vector per token of a
 * vocabulary, each with its own float32 scale, and the SHA-256 of the vocabulary it was built for (row
 * i belongs to token id i: a table read with another vocabulary, even one of the same size, would
 * give every token another token's vector).
 *
 *   bytes 0-7   magic "TMSTATIC" · u32 LE version (2) · u32 LE tokens (V) · u32 LE dimension (D)
 *   then        32 bytes: SHA-256 of the vocabulary (`vocabularyHash`)
 *   then        V float32 LE scales, then V·D int8 values (row-major; value · scale = component)
 *
 * Per-row int8 keeps a 8,000 × 256 table at 2 MiB with cosines within ~0.001 of float32.
 */
const MAGIC = 'TMSTATIC';
const VERSION = 2;
const HASH_BYTES = 32;
const HEADER_BYTES = 8 + 4 * 3 + HASH_BYTES;

/** SHA-256 of a vocabulary's pieces and scores, in order (hex). */
export function vocabularyHash(vocabulary: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(vocabulary)).digest('hex');
}

export interface StaticTable {
  tokens: number;
  dimension: number;
  /** `vocabularyHash` of the vocabulary the rows belong to. */
  vocabularyHash: string;
  /** Dequantized rows, row-major (tokens × dimension). */
  values: Float32Array;
}

export function encodeStaticTable(table: StaticTable): Buffer {
  const { tokens, dimension, values } = table;
  if (values.length !== tokens * dimension) throw new RangeError(`table holds ${values.length} values, expected ${tokens * dimension}`);
  if (!/^[0-9a-f]{64}$/.test(table.vocabularyHash)) throw new RangeError('vocabularyHash must be a hex SHA-256');
  const out = Buffer.alloc(HEADER_BYTES + tokens * 4 + tokens * dimension);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(VERSION, 8);
  out.writeUInt32LE(tokens, 12);
  out.writeUInt32LE(dimension, 16);
  out.write(table.vocabularyHash, 20, 'hex');
  const quantAt = HEADER_BYTES + tokens * 4;
  for (let t = 0; t < tokens; t++) {
    let max = 0;
    for (let d = 0; d < dimension; d++) max = Math.max(max, Math.abs(values[t * dimension + d]!));
    const scale = max / 127;
    out.writeFloatLE(scale, HEADER_BYTES + t * 4);
    for (let d = 0; d < dimension; d++) {
      out.writeInt8(scale === 0 ? 0 : Math.round(values[t * dimension + d]! / scale), quantAt + t * dimension + d);
    }
  }
  return out;
}

export function decodeStaticTable(bytes: Uint8Array): StaticTable {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.byteLength < HEADER_BYTES || buf.toString('latin1', 0, 8) !== MAGIC) throw new Error('not a static embedding table');
  const version = buf.readUInt32LE(8);
  if (version !== VERSION) throw new Error(`static embedding table version ${version} is not supported (expected ${VERSION})`);
  const tokens = buf.readUInt32LE(12);
  const dimension = buf.readUInt32LE(16);
  const vocabulary = buf.toString('hex', 20, 20 + HASH_BYTES);
  const quantAt = HEADER_BYTES + tokens * 4;
  if (buf.byteLength !== quantAt + tokens * dimension) throw new Error('static embedding table is truncated');
  // Typed views, not a Buffer read per value: the service decodes the 2M values at start-up.
  const quantised = new Int8Array(buf.buffer, buf.byteOffset + quantAt, tokens * dimension);
  const values = new Float32Array(tokens * dimension);
  for (let t = 0; t < tokens; t++) {
    const scale = buf.readFloatLE(HEADER_BYTES + t * 4);
    for (let d = 0; d < dimension; d++) values[t * dimension + d] = quantised[t * dimension + d]! * scale;
  }
  return { tokens, dimension, vocabularyHash: vocabulary, values };
}
