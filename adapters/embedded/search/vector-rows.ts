/**
 * Storage of a tenant's vectors in memory: `n` rows of `dim` values addressed by row number. Two layouts
 * serve it: int8 rows in a WebAssembly SIMD matrix (`int8-scan.ts`, block-major, values rounded to a
 * step per group of 256 dimensions) and this plain row-major float array for dimensions the kernel does
 * not take or runtimes without WebAssembly SIMD.
 */
export interface VectorRows {
  readonly dim: number;
  /** Memory held, for the cache budget. */
  readonly bytes: number;
  /** Makes room for `capacity` rows, keeping the first `used`. */
  reserve(capacity: number, used: number): void;
  /** Row i := the little-endian float32 bytes of a vector (dim × 4 bytes). */
  set(i: number, bytes: Uint8Array): void;
  /** Row `to` := row `from`. */
  move(from: number, to: number): void;
  /** A copy of row i, as stored. */
  row(i: number): Float32Array;
  /** dot(row i as stored, q). */
  dot(i: number, q: Float32Array): number;
  /** dot(row r as stored, q) for the first n rows (a view valid until the next call or `reserve`). */
  scan(q: Float32Array, n: number): Float32Array;
}

export class RowMajorRows implements VectorRows {
  private data = new Float32Array(0);
  private out = new Float32Array(0);

  constructor(readonly dim: number) {}

  get bytes(): number {
    return this.data.byteLength + this.out.byteLength;
  }

  reserve(capacity: number, used: number): void {
    if (capacity * this.dim <= this.data.length) return;
    const data = new Float32Array(capacity * this.dim);
    data.set(this.data.subarray(0, used * this.dim));
    this.data = data;
  }

  set(i: number, bytes: Uint8Array): void {
    new Uint8Array(this.data.buffer, i * this.dim * 4, this.dim * 4).set(bytes);
  }

  move(from: number, to: number): void {
    this.data.copyWithin(to * this.dim, from * this.dim, (from + 1) * this.dim);
  }

  row(i: number): Float32Array {
    return this.data.slice(i * this.dim, (i + 1) * this.dim);
  }

  dot(i: number, q: Float32Array): number {
    return dot(this.data, i * this.dim, q, this.dim);
  }

  scan(q: Float32Array, n: number): Float32Array {
    if (this.out.length < n) this.out = new Float32Array(Math.max(n, this.out.length * 2));
    for (let i = 0; i < n; i++) this.out[i] = dot(this.data, i * this.dim, q, this.dim);
    return this.out.subarray(0, n);
  }
}

export function dot(m: Float32Array, offset: number, q: Float32Array, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < dim; j += 4) {
    s0 += m[offset + j]! * q[j]!;
    s1 += m[offset + j + 1]! * q[j + 1]!;
    s2 += m[offset + j + 2]! * q[j + 2]!;
    s3 += m[offset + j + 3]! * q[j + 3]!;
  }
  for (; j < dim; j++) s0 += m[offset + j]! * q[j]!;
  return s0 + s1 + s2 + s3;
}
