/**
 * A WebAssembly SIMD kernel for the dense scan: out[r] = dot(row r, q) for every row, over only the
 * 16-float blocks where the query is not zero. A query of the default model is dense in its semantic
 * part and sparse in its hashed lexical part (a few terms among 1,024 buckets), so most of each row
 * need not be read; the result is exact all the same, since zero blocks add nothing.
 *
 * For that skip to save memory traffic and not only arithmetic, the matrix is stored block-major: block
 * b of every row sits in one contiguous column (row r's block at column b + r × 64 bytes), so a scan
 * streams through the columns of the query's blocks only. Row-major, a row's few needed blocks lie
 * kilobytes apart and the scan costs nearly as much as a full one (measured: 21 of 80 blocks took 90%
 * of the full scan's time row-major).
 *
 * The module is assembled here from its bytes (no toolchain needed) and imports its memory, so each
 * tenant's vectors live in a WebAssembly.Memory of their own. Dimensions must be multiples of 16; the
 * caller falls back to JavaScript otherwise, or when WebAssembly SIMD is unavailable.
 */
import type { VectorRows } from './vector-rows.js';

// Parameters: 0 first column ptr, 1 query ptr, 2 rows, 3 column bytes, 4 out ptr, 5 block list ptr,
// 6 blocks. Locals: 7 r, 8 block index, 9 column cursor, 10 out cursor, 11 block, 12..15 the query's
// four f32x4 of the block, 16 accumulator.
const P_MAT = 0, P_Q = 1, P_N = 2, P_COL_BYTES = 3, P_OUT = 4, P_BLOCKS = 5, P_NB = 6;
const L_R = 7, L_BI = 8, L_COL = 9, L_O = 10, L_B = 11, L_Q = 12, L_ACC = 16;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}
const get = (i: number) => [0x20, ...uleb(i)];
const set = (i: number) => [0x21, ...uleb(i)];
const i32 = (v: number) => [0x41, ...sleb(v)];
const I32_ADD = 0x6a, I32_MUL = 0x6c, I32_SHL = 0x74, I32_GE_U = 0x4f, F32_ADD = 0x92;
const F32_CONST_0 = [0x43, 0, 0, 0, 0];
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const V128_LOAD = (offset: number) => simd(0x00, 2, ...uleb(offset)); // align 2^2, offset
const F32X4_ADD = simd(0xe4);
const F32X4_MUL = simd(0xe6);
const EXTRACT = (lane: number) => simd(0x1f, lane);
const V128_ZERO = simd(0x0c, ...new Array<number>(16).fill(0));

function body(): number[] {
  const lanesSum = [...get(L_ACC), ...EXTRACT(0), F32_ADD, ...get(L_ACC), ...EXTRACT(1), F32_ADD, ...get(L_ACC), ...EXTRACT(2), F32_ADD, ...get(L_ACC), ...EXTRACT(3), F32_ADD];
  const code = [
    // out[0..n) = 0
    ...i32(0), ...set(L_R),
    0x02, 0x40, 0x03, 0x40,
    ...get(L_R), ...get(P_N), I32_GE_U, 0x0d, 1,
    ...get(P_OUT), ...get(L_R), ...i32(2), I32_SHL, I32_ADD, ...F32_CONST_0, 0x38, 2, 0,
    ...get(L_R), ...i32(1), I32_ADD, ...set(L_R),
    0x0c, 0, 0x0b, 0x0b,
    // for each listed block b
    ...i32(0), ...set(L_BI),
    0x02, 0x40, 0x03, 0x40,
    ...get(L_BI), ...get(P_NB), I32_GE_U, 0x0d, 1,
    ...get(P_BLOCKS), ...get(L_BI), ...i32(2), I32_SHL, I32_ADD, 0x28, 2, 0, ...set(L_B),
    // q_k = load(q + b * 64 + 16k)
    ...[0, 1, 2, 3].flatMap((k) => [...get(P_Q), ...get(L_B), ...i32(6), I32_SHL, I32_ADD, ...V128_LOAD(16 * k), ...set(L_Q + k)]),
    // col = first column + b * column bytes
    ...get(P_MAT), ...get(L_B), ...get(P_COL_BYTES), I32_MUL, I32_ADD, ...set(L_COL),
    ...get(P_OUT), ...set(L_O),
    ...i32(0), ...set(L_R),
    0x02, 0x40, 0x03, 0x40,
    ...get(L_R), ...get(P_N), I32_GE_U, 0x0d, 1,
    ...get(L_COL), ...V128_LOAD(0), ...get(L_Q), ...F32X4_MUL,
    ...get(L_COL), ...V128_LOAD(16), ...get(L_Q + 1), ...F32X4_MUL, ...F32X4_ADD,
    ...get(L_COL), ...V128_LOAD(32), ...get(L_Q + 2), ...F32X4_MUL, ...F32X4_ADD,
    ...get(L_COL), ...V128_LOAD(48), ...get(L_Q + 3), ...F32X4_MUL, ...F32X4_ADD,
    ...set(L_ACC),
    // out[r] += the four lanes
    ...get(L_O), ...get(L_O), 0x2a, 2, 0, ...lanesSum, 0x38, 2, 0,
    ...get(L_COL), ...i32(64), I32_ADD, ...set(L_COL),
    ...get(L_O), ...i32(4), I32_ADD, ...set(L_O),
    ...get(L_R), ...i32(1), I32_ADD, ...set(L_R),
    0x0c, 0, 0x0b, 0x0b,
    ...get(L_BI), ...i32(1), I32_ADD, ...set(L_BI),
    0x0c, 0, 0x0b, 0x0b,
    0x0b, // end function
  ];
  const locals = [2, ...uleb(5), 0x7f, ...uleb(5), 0x7b];
  const fn = [...locals, ...code];
  return [...uleb(fn.length), ...fn];
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}
const str = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

function moduleBytes(): Uint8Array {
  const fnBody = body();
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 7, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
    ...section(2, [1, ...str('env'), ...str('memory'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...str('scan'), 0x00, 0]),
    ...section(10, [1, ...fnBody]),
  ]);
}

/** The part of the WebAssembly JS API used here (the project's TypeScript libs do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;

/** The compiled kernel, or null where WebAssembly SIMD is not available. */
export function simdModule(): object | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = moduleBytes();
    compiled = wasm && wasm.validate(bytes) ? new wasm.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

const PAGE = 65536;
const QUERY_BYTES = 16384; // room for a query of up to 4096 dimensions
const BLOCKS_BYTES = (QUERY_BYTES / 64) * 4; // one i32 per 16-float block of the query
const SCORES_AT = QUERY_BYTES + BLOCKS_BYTES;
const BLOCK_BYTES = 64;

/**
 * A growable block-major matrix of `dim`-float rows inside its own WebAssembly memory, with the query,
 * its non-zero blocks and the output scores beside it:
 * [query | block list | scores (capacity floats) | column 0 | column 1 | … (capacity × 64 bytes each)].
 */
export class SimdMatrix implements VectorRows {
  readonly dim: number;
  private readonly blocks: number;
  private readonly memory: WasmMemory;
  private readonly scanFn: (mat: number, q: number, n: number, columnBytes: number, out: number, blocks: number, blockCount: number) => void;
  private capacity = 0;
  private columnsAt = SCORES_AT;
  private f32 = new Float32Array(0);
  private u8 = new Uint8Array(0);

  static supports(dim: number): boolean {
    return dim > 0 && dim % 16 === 0 && dim * 4 <= QUERY_BYTES && simdModule() !== null;
  }

  constructor(dim: number) {
    const mod = simdModule();
    if (!mod || !SimdMatrix.supports(dim)) throw new Error(`no SIMD scan for ${dim} dimensions`);
    this.dim = dim;
    this.blocks = dim / 16;
    this.memory = new wasm!.Memory({ initial: 1 });
    const instance = new wasm!.Instance(mod, { env: { memory: this.memory } });
    this.scanFn = instance.exports.scan as SimdMatrix['scanFn'];
    this.views();
  }

  reserve(capacity: number, used: number): void {
    if (capacity <= this.capacity) return;
    const columnsAt = align64(SCORES_AT + capacity * 4);
    const bytes = columnsAt + this.blocks * capacity * BLOCK_BYTES;
    const have = this.memory.buffer.byteLength;
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / PAGE));
    this.views();
    // Last column first: every column moves to a higher address, never onto one not yet moved.
    for (let b = this.blocks - 1; b >= 0; b--) {
      const from = this.columnsAt + b * this.capacity * BLOCK_BYTES;
      this.u8.copyWithin(columnsAt + b * capacity * BLOCK_BYTES, from, from + used * BLOCK_BYTES);
    }
    this.columnsAt = columnsAt;
    this.capacity = capacity;
  }

  set(i: number, bytes: Uint8Array): void {
    // One float view of the row (a copy when the bytes are not 4-aligned), then 16 floats per block:
    // a subarray per block cost ~30 µs per row, which made loading 100k rows take seconds.
    const row = bytes.byteOffset % 4 === 0 ? new Float32Array(bytes.buffer, bytes.byteOffset, this.dim) : new Float32Array(bytes.slice().buffer);
    const f32 = this.f32;
    for (let b = 0; b < this.blocks; b++) {
      const at = this.at(b, i) / 4;
      for (let j = 0; j < 16; j++) f32[at + j] = row[b * 16 + j]!;
    }
  }

  move(from: number, to: number): void {
    for (let b = 0; b < this.blocks; b++) {
      const src = this.at(b, from);
      this.u8.copyWithin(this.at(b, to), src, src + BLOCK_BYTES);
    }
  }

  row(i: number): Float32Array {
    const out = new Float32Array(this.dim);
    for (let b = 0; b < this.blocks; b++) {
      const at = this.at(b, i) / 4;
      out.set(this.f32.subarray(at, at + 16), b * 16);
    }
    return out;
  }

  dot(i: number, q: Float32Array): number {
    let s = 0;
    for (let b = 0; b < this.blocks; b++) {
      const at = this.at(b, i) / 4;
      for (let j = 0; j < 16; j++) s += this.f32[at + j]! * q[b * 16 + j]!;
    }
    return s;
  }

  scan(q: Float32Array, n: number): Float32Array {
    this.f32.set(q, 0);
    const list = new Int32Array(this.memory.buffer, QUERY_BYTES, this.blocks);
    let count = 0;
    for (let b = 0; b < this.blocks; b++) {
      for (let j = b * 16; j < b * 16 + 16; j++) {
        if (q[j] !== 0) {
          list[count++] = b;
          break;
        }
      }
    }
    this.scanFn(this.columnsAt, 0, n, this.capacity * BLOCK_BYTES, SCORES_AT, QUERY_BYTES, count);
    return new Float32Array(this.memory.buffer, SCORES_AT, n);
  }

  /** Byte address of row i's block b. */
  private at(b: number, i: number): number {
    return this.columnsAt + (b * this.capacity + i) * BLOCK_BYTES;
  }

  /** Views over the memory (growing it detaches the old ones). */
  private views(): void {
    this.f32 = new Float32Array(this.memory.buffer);
    this.u8 = new Uint8Array(this.memory.buffer);
  }
}

function align64(n: number): number {
  return Math.ceil(n / 64) * 64;
}
