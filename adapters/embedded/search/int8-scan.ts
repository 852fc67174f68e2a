/**
 * The dense scan over 8-bit rows: out[r] ≈ dot(row r, q) for every row, reading only the 16-value blocks
 * where the query is not zero, with a WebAssembly SIMD kernel.
 *
 * Why 8 bits: the scan is bound by memory traffic (float rows at 10k × 1,280 dims stream ~24 MB per
 * query), and int8 rows move a quarter of it. Each row is quantised per group of 256 dimensions (one
 * scale per group: the largest magnitude maps to ±127), so a part of the vector with small values (the
 * semantic part of the default model beside its lexical features) keeps its own resolution. The query
 * is quantised per group to 16 bits, so the error is the rows' rounding alone: at most half a step per
 * value. Scores are products of integers (i32x4.dot_i16x8_s) scaled once per group and row.
 *
 * Layout, as for the float kernel it replaced: block-major, so a query's few blocks are contiguous
 * columns. [query (i16, 32 bytes a block) | block list | groups | the kernel's integer and float
 * accumulators (one tile) | scores | int8 columns (16 bytes a row each) | scale columns (f32 a row, one
 * per group)]. The module is assembled here from its bytes and imports its memory, one WebAssembly.Memory
 * per tenant. Dimensions must be multiples of 16; the caller falls back to float rows in JavaScript
 * otherwise, or when WebAssembly SIMD is unavailable.
 */
import type { VectorRows } from './vector-rows.js';

const BLOCK = 16; // values per block (one v128 of int8)
const GROUP_BLOCKS = 16; // blocks per quantisation group (256 dimensions)
const MAX_BLOCKS = 256; // queries up to 4,096 dimensions
const MAX_GROUPS = MAX_BLOCKS / GROUP_BLOCKS;
const Q_AT = 0; // i16 query: two v128 per block
const LIST_AT = Q_AT + MAX_BLOCKS * 32; // per listed block: column address, query address
const GROUPS_AT = LIST_AT + MAX_BLOCKS * 8; // per listed group: scale column address, query scale, first, end
const TILE = 256; // rows per tile of the kernel
const ACC_I_AT = GROUPS_AT + MAX_GROUPS * 16; // per tile row: i32x4 accumulator of the current group
const ACC_F_AT = ACC_I_AT + TILE * 16; // per tile row: f32x4 accumulator
const SCORES_AT = ACC_F_AT + TILE * 16;
const PAGE = 65536;
const Q_MAX = 32767;

// ---- the kernel, assembled -----------------------------------------------------------------------

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
const i32Load = (offset: number) => [0x28, 2, ...uleb(offset)];
const f32Load = (offset: number) => [0x2a, 2, ...uleb(offset)];
const I32_ADD = 0x6a, I32_SUB = 0x6b, I32_AND = 0x71, I32_SHL = 0x74, I32_SHR_U = 0x76, I32_GE_U = 0x4f, I32_LT_U = 0x49;
const F32_ADD = 0x92, F32_MUL = 0x94;
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const v128Load = (offset: number) => simd(0x00, 4, ...uleb(offset));
const v128Store = (offset: number) => simd(0x0b, 4, ...uleb(offset));
const V128_ZERO = simd(0x0c, ...new Array<number>(16).fill(0));
const I16X8_EXTEND_LOW_I8X16_S = simd(0x87);
const I16X8_EXTEND_HIGH_I8X16_S = simd(0x88);
const I32X4_DOT_I16X8_S = simd(0xba);
const I32X4_ADD = simd(0xae);
const F32X4_CONVERT_I32X4_S = simd(0xfa);
const F32X4_SPLAT = simd(0x13);
const F32X4_MUL = simd(0xe6);
const F32X4_ADD = simd(0xe4);
const extract = (lane: number) => simd(0x1f, lane);
const BLOCK_START = [0x02, 0x40, 0x03, 0x40]; // block { loop {
const BLOCK_END = [0x0c, 0, 0x0b, 0x0b]; // br loop } }

// The kernel walks the rows in tiles of TILE rows. Within a tile it streams each listed column's
// segment (TILE × 16 contiguous bytes) into per-row integer accumulators kept in memory (they stay in
// the L1 cache), four rows per step; at the end of each group the accumulators are scaled into per-row
// float accumulators, and at the end of the tile the four lanes of each go to out. Reading one column
// segment at a time keeps the memory access sequential: scoring every listed block of a row before the
// next row meant ~40 interleaved streams, which the hardware prefetchers did not follow (measured: at
// 100k rows it was little faster than the float scan). Rows are processed up to n rounded up to 4 (the
// capacity is a multiple of 4; scores past n are ignored).
// Parameters: 0 rows, 1 listed groups, 2 out pointer. Locals (i32): 3 tile start, 4 tile bytes (rows × 16),
// 5 group index, 6 group entry, 7 block index, 8 block end, 9 block entry, 10 column segment address,
// 11 byte offset in the tile, 12 scale address; (f32) 13 query step; (v128) 14 row block, 15/16 query
// halves, 17 accumulator.
const P_N = 0, P_GROUPS = 1, P_OUT = 2;
const L_T0 = 3, L_TB = 4, L_GI = 5, L_GP = 6, L_BI = 7, L_BEND = 8, L_LP = 9, L_COL = 10, L_X = 11, L_SC = 12;
const L_QS = 13;
const L_V = 14, L_QLO = 15, L_QHI = 16, L_A = 17;
const LANES = [0, 1, 2, 3];

/** for (x = 0; x < tile bytes; x += step) { body } */
const overTile = (step: number, loopBody: number[]) => [
  ...i32(0), ...set(L_X),
  ...BLOCK_START,
  ...get(L_X), ...get(L_TB), I32_GE_U, 0x0d, 1,
  ...loopBody,
  ...get(L_X), ...i32(step), I32_ADD, ...set(L_X),
  ...BLOCK_END,
];

function body(): number[] {
  // accI[row x + k] += dot(low half, qlo) + dot(high half, qhi), for the four rows of this step
  const rowDot = (k: number) => [
    ...get(L_COL), ...get(L_X), I32_ADD, ...v128Load(16 * k), ...set(L_V),
    ...get(L_X), ...i32(ACC_I_AT), I32_ADD,
    ...get(L_X), ...i32(ACC_I_AT), I32_ADD, ...v128Load(16 * k),
    ...get(L_V), ...I16X8_EXTEND_LOW_I8X16_S, ...get(L_QLO), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
    ...get(L_V), ...I16X8_EXTEND_HIGH_I8X16_S, ...get(L_QHI), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
    ...v128Store(16 * k),
  ];
  const zero = (at: number) => overTile(16, [...get(L_X), ...i32(at), I32_ADD, ...V128_ZERO, ...v128Store(0)]);
  const code = [
    ...i32(0), ...set(L_T0),
    ...BLOCK_START,
    ...get(L_T0), ...get(P_N), I32_GE_U, 0x0d, 1,
    // tile bytes = min(TILE, n - t0) rounded up to 4 rows, × 16
    ...get(P_N), ...get(L_T0), I32_SUB, ...i32(TILE), ...get(P_N), ...get(L_T0), I32_SUB, ...i32(TILE), I32_LT_U, 0x1b, // select
    ...i32(3), I32_ADD, ...i32(-4), I32_AND, ...i32(4), I32_SHL, ...set(L_TB),
    ...zero(ACC_F_AT),
    ...i32(0), ...set(L_GI),
    ...BLOCK_START,
    ...get(L_GI), ...get(P_GROUPS), I32_GE_U, 0x0d, 1,
    ...get(L_GI), ...i32(4), I32_SHL, ...i32(GROUPS_AT), I32_ADD, ...set(L_GP),
    ...get(L_GP), ...i32Load(8), ...set(L_BI),
    ...get(L_GP), ...i32Load(12), ...set(L_BEND),
    ...zero(ACC_I_AT),
    ...BLOCK_START,
    ...get(L_BI), ...get(L_BEND), I32_GE_U, 0x0d, 1,
    ...get(L_BI), ...i32(3), I32_SHL, ...i32(LIST_AT), I32_ADD, ...set(L_LP),
    ...get(L_LP), ...i32Load(0), ...get(L_T0), ...i32(4), I32_SHL, I32_ADD, ...set(L_COL),
    ...get(L_LP), ...i32Load(4), ...v128Load(0), ...set(L_QLO),
    ...get(L_LP), ...i32Load(4), ...v128Load(16), ...set(L_QHI),
    ...overTile(64, LANES.flatMap(rowDot)),
    ...get(L_BI), ...i32(1), I32_ADD, ...set(L_BI),
    ...BLOCK_END,
    // accF[row] += float(accI[row]) × (the row's scale in the group × the group's query step)
    ...get(L_GP), ...i32Load(0), ...get(L_T0), ...i32(2), I32_SHL, I32_ADD, ...set(L_SC),
    ...get(L_GP), ...f32Load(4), ...set(L_QS),
    ...overTile(16, [
      ...get(L_X), ...i32(ACC_F_AT), I32_ADD,
      ...get(L_X), ...i32(ACC_F_AT), I32_ADD, ...v128Load(0),
      ...get(L_X), ...i32(ACC_I_AT), I32_ADD, ...v128Load(0), ...F32X4_CONVERT_I32X4_S,
      ...get(L_SC), ...get(L_X), ...i32(2), I32_SHR_U, I32_ADD, ...f32Load(0), ...get(L_QS), F32_MUL, ...F32X4_SPLAT,
      ...F32X4_MUL, ...F32X4_ADD, ...v128Store(0),
    ]),
    ...get(L_GI), ...i32(1), I32_ADD, ...set(L_GI),
    ...BLOCK_END,
    // out[t0 + row] = the four lanes of accF[row]
    ...overTile(16, [
      ...get(P_OUT), ...get(L_T0), ...i32(2), I32_SHL, I32_ADD, ...get(L_X), ...i32(2), I32_SHR_U, I32_ADD,
      ...get(L_X), ...i32(ACC_F_AT), I32_ADD, ...v128Load(0), ...set(L_A),
      ...LANES.flatMap((k) => [...get(L_A), ...extract(k), ...(k > 0 ? [F32_ADD] : [])]),
      0x38, 2, 0,
    ]),
    ...get(L_T0), ...i32(TILE), I32_ADD, ...set(L_T0),
    ...BLOCK_END,
    0x0b, // end function
  ];
  // Locals after the 3 parameters: 10 i32, 1 f32, 4 v128.
  const locals = [3, ...uleb(10), 0x7f, ...uleb(1), 0x7d, ...uleb(4), 0x7b];
  const fn = [...locals, ...code];
  return [...uleb(fn.length), ...fn];
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}
const str = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

function moduleBytes(): Uint8Array {
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 0]),
    ...section(2, [1, ...str('env'), ...str('memory'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...str('scan'), 0x00, 0]),
    ...section(10, [1, ...body()]),
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
export function int8Module(): object | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = moduleBytes();
    compiled = wasm && wasm.validate(bytes) ? new wasm.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

// ---- the matrix ------------------------------------------------------------------------------------

/** A growable block-major matrix of int8 rows with per-group scales, in its own WebAssembly memory. */
export class Int8Matrix implements VectorRows {
  readonly dim: number;
  private readonly blocks: number;
  private readonly groups: number;
  private readonly memory: WasmMemory;
  private readonly scanFn: (n: number, groups: number, out: number) => void;
  private capacity = 0;
  private columnsAt = SCORES_AT;
  private scalesAt = SCORES_AT;
  private i8 = new Int8Array(0);
  private i16 = new Int16Array(0);
  private i32 = new Int32Array(0);
  private f32 = new Float32Array(0);
  private u8 = new Uint8Array(0);

  /** The whole WebAssembly memory (at least one 64 KiB page, whatever the rows). */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  static supports(dim: number): boolean {
    return dim > 0 && dim % BLOCK === 0 && dim / BLOCK <= MAX_BLOCKS && int8Module() !== null;
  }

  constructor(dim: number) {
    const mod = int8Module();
    if (!mod || !Int8Matrix.supports(dim)) throw new Error(`no int8 SIMD scan for ${dim} dimensions`);
    this.dim = dim;
    this.blocks = dim / BLOCK;
    this.groups = Math.ceil(this.blocks / GROUP_BLOCKS);
    this.memory = new wasm!.Memory({ initial: 1 });
    const instance = new wasm!.Instance(mod, { env: { memory: this.memory } });
    this.scanFn = instance.exports.scan as Int8Matrix['scanFn'];
    this.views();
  }

  reserve(capacity: number, used: number): void {
    if (capacity <= this.capacity) return;
    capacity = Math.ceil(capacity / 4) * 4; // the kernel reads rows four at a time
    const columnsAt = align64(SCORES_AT + capacity * 4);
    const scalesAt = align64(columnsAt + this.blocks * capacity * BLOCK);
    const bytes = scalesAt + this.groups * capacity * 4;
    const have = this.memory.buffer.byteLength;
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / PAGE));
    this.views();
    // Everything moves to higher addresses: the scales (the last region) first, then the columns, last
    // first, so nothing is overwritten before it has moved.
    for (let g = this.groups - 1; g >= 0; g--) {
      const from = this.scalesAt + g * this.capacity * 4;
      this.u8.copyWithin(scalesAt + g * capacity * 4, from, from + used * 4);
    }
    for (let b = this.blocks - 1; b >= 0; b--) {
      const from = this.columnsAt + b * this.capacity * BLOCK;
      this.u8.copyWithin(columnsAt + b * capacity * BLOCK, from, from + used * BLOCK);
    }
    this.columnsAt = columnsAt;
    this.scalesAt = scalesAt;
    this.capacity = capacity;
  }

  set(i: number, bytes: Uint8Array): void {
    const row = bytes.byteOffset % 4 === 0 ? new Float32Array(bytes.buffer, bytes.byteOffset, this.dim) : new Float32Array(bytes.slice().buffer);
    for (let g = 0; g < this.groups; g++) {
      const from = g * GROUP_BLOCKS * BLOCK;
      const to = Math.min(this.dim, from + GROUP_BLOCKS * BLOCK);
      let max = 0;
      for (let j = from; j < to; j++) max = Math.max(max, Math.abs(row[j]!));
      const scale = max / 127;
      this.f32[this.scaleAt(g, i) / 4] = scale;
      const inv = scale > 0 ? 1 / scale : 0;
      for (let j = from; j < to; j++) this.i8[this.at(j >> 4, i) + (j & 15)] = Math.round(row[j]! * inv);
    }
  }

  move(from: number, to: number): void {
    for (let b = 0; b < this.blocks; b++) {
      const src = this.at(b, from);
      this.u8.copyWithin(this.at(b, to), src, src + BLOCK);
    }
    for (let g = 0; g < this.groups; g++) this.f32[this.scaleAt(g, to) / 4] = this.f32[this.scaleAt(g, from) / 4]!;
  }

  /** Row i as stored: each value rounded to its group's step. */
  row(i: number): Float32Array {
    const out = new Float32Array(this.dim);
    for (let j = 0; j < this.dim; j++) out[j] = this.i8[this.at(j >> 4, i) + (j & 15)]! * this.f32[this.scaleAt(j >> 8, i) / 4]!;
    return out;
  }

  /** dot(row i as stored, q). */
  dot(i: number, q: Float32Array): number {
    let s = 0;
    for (let g = 0; g < this.groups; g++) {
      const from = g * GROUP_BLOCKS * BLOCK;
      const to = Math.min(this.dim, from + GROUP_BLOCKS * BLOCK);
      let part = 0;
      for (let j = from; j < to; j++) part += this.i8[this.at(j >> 4, i) + (j & 15)]! * q[j]!;
      s += part * this.f32[this.scaleAt(g, i) / 4]!;
    }
    return s;
  }

  scan(q: Float32Array, n: number): Float32Array {
    let listed = 0;
    let groupCount = 0;
    for (let g = 0; g < this.groups; g++) {
      const from = g * GROUP_BLOCKS * BLOCK;
      const to = Math.min(this.dim, from + GROUP_BLOCKS * BLOCK);
      let max = 0;
      for (let j = from; j < to; j++) max = Math.max(max, Math.abs(q[j]!));
      if (max === 0) continue;
      const step = max / Q_MAX;
      const first = listed;
      for (let b = from / BLOCK; b < to / BLOCK; b++) {
        let nonZero = false;
        for (let j = 0; j < BLOCK; j++) {
          const v = Math.round(q[b * BLOCK + j]! / step);
          this.i16[(Q_AT + b * 32) / 2 + j] = v;
          if (v !== 0) nonZero = true;
        }
        if (!nonZero) continue;
        this.i32[(LIST_AT + listed * 8) / 4] = this.at(b, 0);
        this.i32[(LIST_AT + listed * 8) / 4 + 1] = Q_AT + b * 32;
        listed++;
      }
      if (listed === first) continue;
      const entry = (GROUPS_AT + groupCount * 16) / 4;
      this.i32[entry] = this.scaleAt(g, 0);
      this.f32[entry + 1] = step;
      this.i32[entry + 2] = first;
      this.i32[entry + 3] = listed;
      groupCount++;
    }
    this.scanFn(n, groupCount, SCORES_AT);
    return new Float32Array(this.memory.buffer, SCORES_AT, n);
  }

  /** Byte address of row i's block b. */
  private at(b: number, i: number): number {
    return this.columnsAt + (b * this.capacity + i) * BLOCK;
  }

  /** Byte address of row i's scale in group g. */
  private scaleAt(g: number, i: number): number {
    return this.scalesAt + (g * this.capacity + i) * 4;
  }

  /** Views over the memory (growing it detaches the old ones). */
  private views(): void {
    const buf = this.memory.buffer;
    this.i8 = new Int8Array(buf);
    this.u8 = new Uint8Array(buf);
    this.i16 = new Int16Array(buf);
    this.i32 = new Int32Array(buf);
    this.f32 = new Float32Array(buf);
  }
}

function align64(n: number): number {
  return Math.ceil(n / 64) * 64;
}
