/**
 * The WebAssembly SIMD kernels of the int8 dense scan (`int8-scan.ts` holds the matrix that owns their
 * memory) and the memory layout they share with it: `scan` (every row, the query's listed blocks),
 * `sign` (the binary first pass), `gather` (exact rescoring of listed rows) and `above` (the rows over a
 * threshold). Assembled from their bytes by `wasm-assembly.ts`.
 */
import {
  BR_IF_OUT, END_LOOP, F32X4_ADD, F32X4_CONVERT_I32X4_S, F32X4_MUL, F32X4_SPLAT, F32_ADD, F32_CONVERT_I32_S, F32_GE, F32_MUL,
  I16X8_EXTADD_PAIRWISE_I8X16_U, I16X8_EXTEND_HIGH_I8X16_S, I16X8_EXTEND_LOW_I8X16_S, I32X4_ADD, I32X4_DOT_I16X8_S,
  I32X4_EXTADD_PAIRWISE_I16X8_U, I32_ADD, I32_AND, I32_GE_U, I32_LE_U, I32_LT_U, I32_SHL, I32_SHR_U, I32_SUB, I8X16_ADD, I8X16_POPCNT,
  I8X16_SHL, ELSE, END, IF, LOOP, SELECT, TYPE_F32, TYPE_I32, TYPE_V128, V128_AND, V128_ZERO, f32Load, f32Store, f32x4Extract, get, i32,
  i32Load, i32Store, i32x4Extract, moduleBytes, set, shuffle32, v128Load, v128Store, type WasmFunction,
} from './wasm-assembly.js';

export const BLOCK = 16; // values per block (one v128 of int8)
export const GROUP_BLOCKS = 16; // blocks per quantisation group (256 dimensions)
export const GROUP_DIMS = BLOCK * GROUP_BLOCKS;
export const MAX_BLOCKS = 256; // queries up to 4,096 dimensions
const MAX_GROUPS = MAX_BLOCKS / GROUP_BLOCKS;
export const SIGN_BYTES = GROUP_DIMS / 8; // one bit per dimension of a group
/**
 * Bits of the query in the sign pass. Each plane costs two emulated popcounts a row (x64 has no byte
 * popcount before AVX-512); 3 planes keep nearly all of 4 planes' recall for less time, and 2 lose recall
 * (figures: docs/performance.md#three-bit-planes-in-the-sign-pass).
 */
export const PLANES = 3;
/** The query's levels in the sign pass (0 … 2^PLANES − 1 steps above its smallest value). */
export const SIGN_QUERY_STEPS = 2 ** PLANES - 1;

export const Q_AT = 0; // i16 query: two v128 per block
export const LIST_AT = Q_AT + MAX_BLOCKS * 32; // per listed block: column address, query address
export const GROUPS_AT = LIST_AT + MAX_BLOCKS * 8; // per listed group: scale column address, query scale, first, end
export const EST_LIST_AT = GROUPS_AT + MAX_GROUPS * 16; // the same two lists for the estimated groups (exact rescoring)
export const EST_GROUPS_AT = EST_LIST_AT + MAX_BLOCKS * 8;
export const SIGN_AT = EST_GROUPS_AT + MAX_GROUPS * 16; // per estimated group: sign column, stats column, planes, A, B, C
export const PLANES_AT = SIGN_AT + MAX_GROUPS * 32; // per estimated group: PLANES planes of 32 bytes
const TILE = 256; // rows per tile of the scan
const ACC_I_AT = PLANES_AT + MAX_GROUPS * PLANES * SIGN_BYTES; // per tile row: i32x4 accumulator of the current group
const ACC_F_AT = ACC_I_AT + TILE * 16; // per tile row: f32x4 accumulator
export const SCORES_AT = ACC_F_AT + TILE * 16;
export const PAGE = 65536;
export const Q_MAX = 32767;

// ---- the scan ----------------------------------------------------------------------------------------

// The scan walks the rows in tiles of TILE rows. Within a tile it streams each listed column's segment
// (TILE × 16 contiguous bytes) into per-row integer accumulators kept in memory (they stay in the L1
// cache), four rows per step; at the end of each group the accumulators are scaled into per-row float
// accumulators, and at the end of the tile the four lanes of each go to out. Reading one column segment
// at a time keeps the memory access sequential: scoring every listed block of a row before the next row
// meant dozens of interleaved streams, which the hardware prefetchers did not follow. Rows are processed up to n rounded up to 4 (the capacity is a
// multiple of 4; scores past n are ignored).
// Up to three listed blocks of a group are read together (then two, then one, as the list runs out), with
// one load and store of the row's accumulator for all of them: for one block alone those cost about as
// much as its arithmetic. Four at a time was slower again: its twelve query halves no longer fit in the
// sixteen SIMD registers of x64 beside the rest (figures: docs/performance.md#scan-tiles-and-blocks-read-together).
// Parameters: 0 rows, 1 listed groups, 2 out pointer. Locals (i32): 3 tile start, 4 tile bytes (rows × 16),
// 5 group index, 6 group entry, 7 block index, 8 block end, 9 block entry, 10 byte offset in the tile,
// 11 scale address, 12–14 the column segment addresses of the blocks read together; (f32) 15 query step;
// (v128) 16 accumulator (the output step's lanes), then per block read together its row block and its two
// query halves.
const P_N = 0, P_GROUPS = 1, P_OUT = 2;
const L_T0 = 3, L_TB = 4, L_GI = 5, L_GP = 6, L_BI = 7, L_BEND = 8, L_LP = 9, L_X = 10, L_SC = 11, L_COL = 12;
/** Blocks read together, widest first. */
const WIDTHS = [3, 2, 1];
const L_QS = L_COL + WIDTHS[0]!;
const L_A = L_QS + 1, L_V = L_A + 1;
const LANES = [0, 1, 2, 3];

/** for (x = 0; x < tile bytes; x += step) { body } */
const overTile = (step: number, loopBody: number[]) => [
  ...i32(0), ...set(L_X),
  ...LOOP,
  ...get(L_X), ...get(L_TB), I32_GE_U, ...BR_IF_OUT,
  ...loopBody,
  ...get(L_X), ...i32(step), I32_ADD, ...set(L_X),
  ...END_LOOP,
];

function scanFunction(): WasmFunction {
  // accI[row x + k] += Σ over the `width` blocks read together of dot(low half, qlo) + dot(high half, qhi),
  // for the four rows of this step
  const blockDot = (j: number, k: number) => [
    ...get(L_COL + j), ...get(L_X), I32_ADD, ...v128Load(16 * k), ...set(L_V + 3 * j),
    ...get(L_V + 3 * j), ...I16X8_EXTEND_LOW_I8X16_S, ...get(L_V + 3 * j + 1), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
    ...get(L_V + 3 * j), ...I16X8_EXTEND_HIGH_I8X16_S, ...get(L_V + 3 * j + 2), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
  ];
  const rowDot = (width: number) => (k: number) => [
    ...get(L_X), ...i32(ACC_I_AT), I32_ADD,
    ...get(L_X), ...i32(ACC_I_AT), I32_ADD, ...v128Load(16 * k),
    ...Array.from({ length: width }, (_, j) => blockDot(j, k)).flat(),
    ...v128Store(16 * k),
  ];
  // list entry L_LP + j: its column segment and query halves into the locals of block j
  const listed = (j: number) => [
    ...get(L_LP), ...i32Load(8 * j), ...get(L_T0), ...i32(4), I32_SHL, I32_ADD, ...set(L_COL + j),
    ...get(L_LP), ...i32Load(8 * j + 4), ...v128Load(0), ...set(L_V + 3 * j + 1),
    ...get(L_LP), ...i32Load(8 * j + 4), ...v128Load(16), ...set(L_V + 3 * j + 2),
  ];
  // the widest read the blocks left allow: if (BI + width <= BEND) { read width blocks } else { narrower }
  const readBlocks = (w: number): number[] => {
    const width = WIDTHS[w]!;
    const body = [
      ...Array.from({ length: width }, (_, j) => listed(j)).flat(),
      ...overTile(64, LANES.flatMap(rowDot(width))),
      ...get(L_BI), ...i32(width), I32_ADD, ...set(L_BI),
    ];
    if (w === WIDTHS.length - 1) return body;
    return [...get(L_BI), ...i32(width), I32_ADD, ...get(L_BEND), I32_LE_U, ...IF, ...body, ELSE, ...readBlocks(w + 1), END];
  };
  const zero = (at: number) => overTile(16, [...get(L_X), ...i32(at), I32_ADD, ...V128_ZERO, ...v128Store(0)]);
  const code = [
    ...i32(0), ...set(L_T0),
    ...LOOP,
    ...get(L_T0), ...get(P_N), I32_GE_U, ...BR_IF_OUT,
    // tile bytes = min(TILE, n - t0) rounded up to 4 rows, × 16
    ...get(P_N), ...get(L_T0), I32_SUB, ...i32(TILE), ...get(P_N), ...get(L_T0), I32_SUB, ...i32(TILE), I32_LT_U, SELECT,
    ...i32(3), I32_ADD, ...i32(-4), I32_AND, ...i32(4), I32_SHL, ...set(L_TB),
    ...zero(ACC_F_AT),
    ...i32(0), ...set(L_GI),
    ...LOOP,
    ...get(L_GI), ...get(P_GROUPS), I32_GE_U, ...BR_IF_OUT,
    ...get(L_GI), ...i32(4), I32_SHL, ...i32(GROUPS_AT), I32_ADD, ...set(L_GP),
    ...get(L_GP), ...i32Load(8), ...set(L_BI),
    ...get(L_GP), ...i32Load(12), ...set(L_BEND),
    ...zero(ACC_I_AT),
    ...LOOP,
    ...get(L_BI), ...get(L_BEND), I32_GE_U, ...BR_IF_OUT,
    ...get(L_BI), ...i32(3), I32_SHL, ...i32(LIST_AT), I32_ADD, ...set(L_LP),
    ...readBlocks(0),
    ...END_LOOP,
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
    ...END_LOOP,
    // out[t0 + row] = the four lanes of accF[row]
    ...overTile(16, [
      ...get(P_OUT), ...get(L_T0), ...i32(2), I32_SHL, I32_ADD, ...get(L_X), ...i32(2), I32_SHR_U, I32_ADD,
      ...get(L_X), ...i32(ACC_F_AT), I32_ADD, ...v128Load(0), ...set(L_A),
      ...LANES.flatMap((k) => [...get(L_A), ...f32x4Extract(k), ...(k > 0 ? [F32_ADD] : [])]),
      ...f32Store(0),
    ]),
    ...get(L_T0), ...i32(TILE), I32_ADD, ...set(L_T0),
    ...END_LOOP,
  ];
  return { name: 'scan', params: [TYPE_I32, TYPE_I32, TYPE_I32], locals: [[L_QS - 3, TYPE_I32], [1, TYPE_F32], [1 + 3 * WIDTHS[0]!, TYPE_V128]], code };
}

// ---- the sign pass -----------------------------------------------------------------------------------

/** The sum of the four i32 lanes of the v128 on the stack, kept in local `tmp`. */
const laneSum = (tmp: number) => [...set(tmp), ...LANES.flatMap((k) => [...get(tmp), ...i32x4Extract(k), ...(k > 0 ? [I32_ADD] : [])])];

// first[r] = exact[r] + Σ over estimated groups of m · (A · positives + B · S + C),
// S = Σ_p 2^p · popcount(signs AND plane p). Group by group (usually one), so a group's planes and
// constants stay in locals while its rows stream past: the first group reads exact, the others first.
// Four rows a step: their lane sums are added as one transposed i32x4 and the rest is f32x4 arithmetic,
// since a row at a time the lane extraction and scalar arithmetic were a large part of the pass (figures:
// docs/performance.md#three-bit-planes-in-the-sign-pass). Rows are
// processed up to n rounded up to 4, as in the scan.
// Parameters: 0 rows, 1 groups, 2 exact pointer, 3 first pointer. Locals (i32): 4 row, 5 group, 6 entry,
// 7 sign address, 8 stats address, 9 source pointer; (v128) 10–12 A, B, C splatted, 13/14 a row's signs,
// 15–18 the four rows' counts, then the planes' low and high halves (two per plane), then two for stats.
function signFunction(): WasmFunction {
  const R = 4, G = 5, E = 6, SA = 7, ST = 8, SRC = 9, A = 10, B = 11, C = 12, C0 = 13, C1 = 14, W = 15, PL = 19;
  const X = PL + 2 * PLANES, Y = X + 1;
  // popcount(c0 AND plane p, low half) + popcount(c1 AND plane p, high half): per-lane counts of plane p
  const planeCount = (p: number) => [
    ...get(C0), ...get(PL + 2 * p), ...V128_AND, ...I8X16_POPCNT,
    ...get(C1), ...get(PL + 2 * p + 1), ...V128_AND, ...I8X16_POPCNT,
    ...I8X16_ADD,
  ];
  // W+k = the weighted counts of row r+k summed into four i32 lanes (each lane at most 16 × 7 = 112 a
  // byte before widening, so the bytes never carry)
  const rowCounts = (k: number) => [
    ...get(SA), ...v128Load(k * SIGN_BYTES), ...set(C0),
    ...get(SA), ...v128Load(k * SIGN_BYTES + 16), ...set(C1),
    ...planeCount(0),
    ...Array.from({ length: PLANES - 1 }, (_, i) => i + 1).flatMap((p) => [...planeCount(p), ...i32(p), ...I8X16_SHL, ...I8X16_ADD]),
    ...I16X8_EXTADD_PAIRWISE_I8X16_U, ...I32X4_EXTADD_PAIRWISE_I16X8_U, ...set(W + k),
  ];
  // [Σ W, Σ W+1, Σ W+2, Σ W+3]: pairwise lane sums, then the pairs of pairs
  const pairSums = (a: number, b: number) => [
    ...get(a), ...get(b), ...shuffle32([0, 4, 1, 5]), ...get(a), ...get(b), ...shuffle32([2, 6, 3, 7]), ...I32X4_ADD,
  ];
  const code = [
    ...i32(0), ...set(G),
    ...LOOP,
    ...get(G), ...get(1), I32_GE_U, ...BR_IF_OUT,
    ...get(G), ...i32(5), I32_SHL, ...i32(SIGN_AT), I32_ADD, ...set(E),
    ...get(E), ...f32Load(12), ...F32X4_SPLAT, ...set(A),
    ...get(E), ...f32Load(16), ...F32X4_SPLAT, ...set(B),
    ...get(E), ...f32Load(20), ...F32X4_SPLAT, ...set(C),
    ...Array.from({ length: PLANES }, (_, p) => p).flatMap((p) => [
      ...get(E), ...i32Load(8), ...v128Load(p * SIGN_BYTES), ...set(PL + 2 * p),
      ...get(E), ...i32Load(8), ...v128Load(p * SIGN_BYTES + 16), ...set(PL + 2 * p + 1),
    ]),
    ...get(E), ...i32Load(0), ...set(SA),
    ...get(E), ...i32Load(4), ...set(ST),
    ...get(2), ...get(3), ...get(G), ...i32(0), 0x46 /* i32.eq */, SELECT, ...set(SRC), // exact for the first group
    ...i32(0), ...set(R),
    ...LOOP,
    ...get(R), ...get(0), I32_GE_U, ...BR_IF_OUT,
    ...[0, 1, 2, 3].flatMap(rowCounts),
    // stats of the four rows: [m0 p0 m1 p1] [m2 p2 m3 p3]
    ...get(ST), ...v128Load(0), ...set(X),
    ...get(ST), ...v128Load(16), ...set(Y),
    // first[r..r+3] = source[r..r+3] + m × (A × positives + B × S + C)
    ...get(3), ...get(R), ...i32(2), I32_SHL, I32_ADD,
    ...get(SRC), ...get(R), ...i32(2), I32_SHL, I32_ADD, ...v128Load(0),
    ...get(X), ...get(Y), ...shuffle32([0, 2, 4, 6]),
    ...get(A), ...get(X), ...get(Y), ...shuffle32([1, 3, 5, 7]), ...F32X4_MUL,
    ...get(B),
    ...pairSums(W, W + 1), ...pairSums(W + 2, W + 3), ...set(X), ...set(Y), // Y = rows 0–1, X = rows 2–3
    ...get(Y), ...get(X), ...shuffle32([0, 1, 4, 5]), ...get(Y), ...get(X), ...shuffle32([2, 3, 6, 7]), ...I32X4_ADD,
    ...F32X4_CONVERT_I32X4_S, ...F32X4_MUL, ...F32X4_ADD,
    ...get(C), ...F32X4_ADD,
    ...F32X4_MUL, ...F32X4_ADD,
    ...v128Store(0),
    ...get(SA), ...i32(4 * SIGN_BYTES), I32_ADD, ...set(SA),
    ...get(ST), ...i32(32), I32_ADD, ...set(ST),
    ...get(R), ...i32(4), I32_ADD, ...set(R),
    ...END_LOOP,
    ...get(G), ...i32(1), I32_ADD, ...set(G),
    ...END_LOOP,
  ];
  return { name: 'sign', params: [TYPE_I32, TYPE_I32, TYPE_I32, TYPE_I32], locals: [[6, TYPE_I32], [Y - 9, TYPE_V128]], code };
}

// ---- the rows above a threshold --------------------------------------------------------------------------

// Writes to out, ascending, every row r < n with scores[r] >= threshold; returns how many.
// Parameters: 0 rows, 1 scores pointer, 2 threshold (f32), 3 out pointer. Locals (i32): 4 row, 5 count.
function aboveFunction(): WasmFunction {
  const R = 4, COUNT = 5;
  const code = [
    ...i32(0), ...set(R),
    ...i32(0), ...set(COUNT),
    ...LOOP,
    ...get(R), ...get(0), I32_GE_U, ...BR_IF_OUT,
    ...get(1), ...get(R), ...i32(2), I32_SHL, I32_ADD, ...f32Load(0), ...get(2), F32_GE,
    ...IF,
    ...get(3), ...get(COUNT), ...i32(2), I32_SHL, I32_ADD, ...get(R), ...i32Store(0),
    ...get(COUNT), ...i32(1), I32_ADD, ...set(COUNT),
    END,
    ...get(R), ...i32(1), I32_ADD, ...set(R),
    ...END_LOOP,
    ...get(COUNT),
  ];
  return { name: 'above', params: [TYPE_I32, TYPE_I32, TYPE_F32, TYPE_I32], results: [TYPE_I32], locals: [[2, TYPE_I32]], code };
}

// ---- the exact rescoring of listed rows ----------------------------------------------------------------

// out[j] = Σ over the estimated groups of dot(row cand[j], q), from the same integer products as the scan.
// Parameters: 0 count, 1 groups, 2 cand pointer, 3 out pointer. Locals (i32): 4 j, 5 row, 6 group, 7 group
// entry, 8 block, 9 block end, 10 block entry, 11 column address; (f32) 12 total; (v128) 13 accumulator,
// 14 row block, 15 lane-sum scratch (as i32x4).
function gatherFunction(): WasmFunction {
  const J = 4, ROW = 5, G = 6, GE = 7, B = 8, BEND = 9, LE = 10, COL = 11, TOTAL = 12, ACC = 13, V = 14, T = 15;
  const code = [
    ...i32(0), ...set(J),
    ...LOOP,
    ...get(J), ...get(0), I32_GE_U, ...BR_IF_OUT,
    ...get(2), ...get(J), ...i32(2), I32_SHL, I32_ADD, ...i32Load(0), ...set(ROW),
    0x43, 0, 0, 0, 0, ...set(TOTAL),
    ...i32(0), ...set(G),
    ...LOOP,
    ...get(G), ...get(1), I32_GE_U, ...BR_IF_OUT,
    ...get(G), ...i32(4), I32_SHL, ...i32(EST_GROUPS_AT), I32_ADD, ...set(GE),
    ...get(GE), ...i32Load(8), ...set(B),
    ...get(GE), ...i32Load(12), ...set(BEND),
    ...V128_ZERO, ...set(ACC),
    ...LOOP,
    ...get(B), ...get(BEND), I32_GE_U, ...BR_IF_OUT,
    ...get(B), ...i32(3), I32_SHL, ...i32(EST_LIST_AT), I32_ADD, ...set(LE),
    ...get(LE), ...i32Load(0), ...get(ROW), ...i32(4), I32_SHL, I32_ADD, ...set(COL),
    ...get(COL), ...v128Load(0), ...set(V),
    ...get(ACC),
    ...get(V), ...I16X8_EXTEND_LOW_I8X16_S, ...get(LE), ...i32Load(4), ...v128Load(0), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
    ...get(V), ...I16X8_EXTEND_HIGH_I8X16_S, ...get(LE), ...i32Load(4), ...v128Load(16), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
    ...set(ACC),
    ...get(B), ...i32(1), I32_ADD, ...set(B),
    ...END_LOOP,
    // total += float(Σ lanes) × the row's scale in the group × the group's query step
    ...get(TOTAL),
    ...get(ACC), ...laneSum(T), F32_CONVERT_I32_S,
    ...get(GE), ...i32Load(0), ...get(ROW), ...i32(2), I32_SHL, I32_ADD, ...f32Load(0), F32_MUL,
    ...get(GE), ...f32Load(4), F32_MUL,
    F32_ADD, ...set(TOTAL),
    ...get(G), ...i32(1), I32_ADD, ...set(G),
    ...END_LOOP,
    ...get(3), ...get(J), ...i32(2), I32_SHL, I32_ADD, ...get(TOTAL), ...f32Store(0),
    ...get(J), ...i32(1), I32_ADD, ...set(J),
    ...END_LOOP,
  ];
  return { name: 'gather', params: [TYPE_I32, TYPE_I32, TYPE_I32, TYPE_I32], locals: [[8, TYPE_I32], [1, TYPE_F32], [3, TYPE_V128]], code };
}

/** The part of the WebAssembly JS API used here (the project's TypeScript libs do not declare it). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
export const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;

/** The compiled kernels, or null where WebAssembly SIMD is not available. */
export function int8Module(): object | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = moduleBytes([scanFunction(), signFunction(), gatherFunction(), aboveFunction()]);
    compiled = wasm && wasm.validate(bytes) ? new wasm.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}
