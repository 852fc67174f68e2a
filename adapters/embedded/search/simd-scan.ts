/**
 * A WebAssembly SIMD kernel for the dense scan: out[r] = dot(matrix row r, q) for every row, four f32x4
 * accumulators per row. Plain JavaScript reaches ~1.7 ns per multiply-add; this reaches several times
 * that throughput, which is what keeps an exact scan of a mid-sized tenant within a few milliseconds.
 *
 * The module is assembled here from its bytes (no toolchain needed) and imports its memory, so each
 * tenant's vectors live in a WebAssembly.Memory of their own. Dimensions must be multiples of 16; the
 * caller falls back to JavaScript otherwise, or when WebAssembly SIMD is unavailable.
 */

// Parameters: 0 matrix ptr, 1 query ptr, 2 rows, 3 dim, 4 out ptr. Locals: 5 r, 6 j, 7 rowPtr,
// 8..11 four v128 accumulators.
const P_MAT = 0, P_Q = 1, P_N = 2, P_DIM = 3, P_OUT = 4, L_R = 5, L_J = 6, L_ROW = 7, L_ACC = 8;

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
const I32_ADD = 0x6a, I32_SHL = 0x74, I32_GE_U = 0x4f, F32_ADD = 0x92;
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const V128_LOAD = (offset: number) => simd(0x00, 2, ...uleb(offset)); // align 2^2, offset
const F32X4_ADD = simd(0xe4);
const F32X4_MUL = simd(0xe6);
const EXTRACT = (lane: number) => simd(0x1f, lane);
const V128_ZERO = simd(0x0c, ...new Array<number>(16).fill(0));

function body(): number[] {
  const inner: number[] = [];
  // acc_k += load(rowPtr + j*4 + 16k) * load(q + j*4 + 16k), k = 0..3
  for (let k = 0; k < 4; k++) {
    inner.push(
      ...get(L_ACC + k),
      ...get(L_ROW), ...get(L_J), ...i32(2), I32_SHL, I32_ADD, ...V128_LOAD(16 * k),
      ...get(P_Q), ...get(L_J), ...i32(2), I32_SHL, I32_ADD, ...V128_LOAD(16 * k),
      ...F32X4_MUL, ...F32X4_ADD, ...set(L_ACC + k),
    );
  }
  const code = [
    ...get(P_MAT), ...set(L_ROW),
    0x02, 0x40, // block $exit
    0x03, 0x40, // loop $rows
    ...get(L_R), ...get(P_N), I32_GE_U, 0x0d, 1, // br_if $exit
    ...V128_ZERO, ...set(L_ACC), ...V128_ZERO, ...set(L_ACC + 1), ...V128_ZERO, ...set(L_ACC + 2), ...V128_ZERO, ...set(L_ACC + 3),
    ...i32(0), ...set(L_J),
    0x02, 0x40, // block $cols_exit
    0x03, 0x40, // loop $cols
    ...get(L_J), ...get(P_DIM), I32_GE_U, 0x0d, 1,
    ...inner,
    ...get(L_J), ...i32(16), I32_ADD, ...set(L_J),
    0x0c, 0, // br $cols
    0x0b, 0x0b, // end loop, end block
    // out[r] = sum of the lanes of acc0 + acc1 + acc2 + acc3
    ...get(P_OUT), ...get(L_R), ...i32(2), I32_SHL, I32_ADD,
    ...get(L_ACC), ...get(L_ACC + 1), ...F32X4_ADD, ...get(L_ACC + 2), ...F32X4_ADD, ...get(L_ACC + 3), ...F32X4_ADD, ...set(L_ACC),
    ...get(L_ACC), ...EXTRACT(0), ...get(L_ACC), ...EXTRACT(1), F32_ADD, ...get(L_ACC), ...EXTRACT(2), F32_ADD, ...get(L_ACC), ...EXTRACT(3), F32_ADD,
    0x38, 2, 0, // f32.store align 4 offset 0
    ...get(L_ROW), ...get(P_DIM), ...i32(2), I32_SHL, I32_ADD, ...set(L_ROW),
    ...get(L_R), ...i32(1), I32_ADD, ...set(L_R),
    0x0c, 0, // br $rows
    0x0b, 0x0b, // end loop, end block
    0x0b, // end function
  ];
  const locals = [2, ...uleb(3), 0x7f, ...uleb(4), 0x7b];
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
    ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
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

/**
 * A growable matrix of `dim`-float rows inside its own WebAssembly memory, with the query and the
 * output scores beside it: [query | scores (capacity floats) | rows (capacity x dim floats)].
 */
export class SimdMatrix {
  readonly dim: number;
  private readonly memory: WasmMemory;
  private readonly scanFn: (mat: number, q: number, n: number, dim: number, out: number) => void;
  private capacity = 0;
  private rowsOffset = QUERY_BYTES;

  static supports(dim: number): boolean {
    return dim % 16 === 0 && dim * 4 <= QUERY_BYTES && simdModule() !== null;
  }

  constructor(dim: number) {
    const mod = simdModule();
    if (!mod || !SimdMatrix.supports(dim)) throw new Error(`no SIMD scan for ${dim} dimensions`);
    this.dim = dim;
    this.memory = new wasm!.Memory({ initial: 1 });
    const instance = new wasm!.Instance(mod, { env: { memory: this.memory } });
    this.scanFn = instance.exports.scan as SimdMatrix['scanFn'];
  }

  /** The rows as a Float32Array view (re-obtain after `reserve`, which may move and detach it). */
  rows(): Float32Array {
    return new Float32Array(this.memory.buffer, this.rowsOffset, this.capacity * this.dim);
  }

  /** Makes room for `capacity` rows, keeping the first `used` rows. */
  reserve(capacity: number, used: number): void {
    if (capacity <= this.capacity) return;
    const rowsOffset = QUERY_BYTES + align16(capacity * 4);
    const bytes = rowsOffset + capacity * this.dim * 4;
    const have = this.memory.buffer.byteLength;
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / PAGE));
    const u8 = new Uint8Array(this.memory.buffer);
    u8.copyWithin(rowsOffset, this.rowsOffset, this.rowsOffset + used * this.dim * 4);
    this.rowsOffset = rowsOffset;
    this.capacity = capacity;
  }

  /** Scores of the first `n` rows against `q` (a view valid until the next call or `reserve`). */
  scan(q: Float32Array, n: number): Float32Array {
    new Float32Array(this.memory.buffer, 0, this.dim).set(q);
    this.scanFn(this.rowsOffset, 0, n, this.dim, QUERY_BYTES);
    return new Float32Array(this.memory.buffer, QUERY_BYTES, n);
  }
}

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}
