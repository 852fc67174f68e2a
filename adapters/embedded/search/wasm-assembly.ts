/**
 * The few WebAssembly encodings the dense-scan kernels (`int8-scan.ts`) are assembled from. The kernels
 * are written as byte arrays here rather than compiled from another language so the project ships no
 * build step and no binary: the module is made and validated at start-up, and a runtime without SIMD
 * simply gets the JavaScript fallback.
 */

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
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

// ---- locals, constants, scalar memory access -----------------------------------------------------------

export const get = (i: number) => [0x20, ...uleb(i)];
export const set = (i: number) => [0x21, ...uleb(i)];
export const i32 = (v: number) => [0x41, ...sleb(v)];
export const i32Load = (offset: number) => [0x28, 2, ...uleb(offset)];
export const f32Load = (offset: number) => [0x2a, 2, ...uleb(offset)];
export const f32Store = (offset: number) => [0x38, 2, ...uleb(offset)];
export const i32Store = (offset: number) => [0x36, 2, ...uleb(offset)];
export const I32_ADD = 0x6a,
  I32_SUB = 0x6b,
  I32_AND = 0x71,
  I32_SHL = 0x74,
  I32_SHR_U = 0x76;
export const I32_GE_U = 0x4f,
  I32_LE_U = 0x4d,
  I32_LT_U = 0x49;
export const F32_ADD = 0x92,
  F32_MUL = 0x94,
  F32_CONVERT_I32_S = 0xb2,
  F32_GE = 0x60;
export const IF = [0x04, 0x40]; // if (no result) … [ELSE …] END
export const ELSE = 0x05;
export const SELECT = 0x1b;
export const BR_IF_OUT = [0x0d, 1]; // br_if to the end of the enclosing `block` of a LOOP
export const LOOP = [0x02, 0x40, 0x03, 0x40]; // block { loop {
export const END_LOOP = [0x0c, 0, 0x0b, 0x0b]; // br loop } }
export const END = 0x0b;

// ---- SIMD ---------------------------------------------------------------------------------------------

export const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
export const v128Load = (offset: number) => simd(0x00, 4, ...uleb(offset));
export const v128Store = (offset: number) => simd(0x0b, 4, ...uleb(offset));
export const V128_ZERO = simd(0x0c, ...new Array<number>(16).fill(0));
export const V128_AND = simd(0x4e);
export const I8X16_POPCNT = simd(0x62);
export const I8X16_SHL = simd(0x6b);
export const I8X16_ADD = simd(0x6e);
export const I16X8_EXTADD_PAIRWISE_I8X16_U = simd(0x7d);
export const I32X4_EXTADD_PAIRWISE_I16X8_U = simd(0x7f);
export const I16X8_EXTEND_LOW_I8X16_S = simd(0x87);
export const I16X8_EXTEND_HIGH_I8X16_S = simd(0x88);
export const I32X4_DOT_I16X8_S = simd(0xba);
export const I32X4_ADD = simd(0xae);
export const F32X4_CONVERT_I32X4_S = simd(0xfa);
export const F32X4_SPLAT = simd(0x13);
export const F32X4_MUL = simd(0xe6);
export const F32X4_ADD = simd(0xe4);
export const i32x4Extract = (lane: number) => simd(0x1b, lane);
/** i8x16.shuffle by 32-bit lanes: lanes 0–3 of the first operand, 4–7 of the second. */
export const shuffle32 = (lanes: [number, number, number, number]) =>
  simd(0x0d, ...lanes.flatMap((l) => [4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3]));
export const f32x4Extract = (lane: number) => simd(0x1f, lane);

// ---- module -------------------------------------------------------------------------------------------

export const TYPE_I32 = 0x7f,
  TYPE_F32 = 0x7d,
  TYPE_V128 = 0x7b;

export interface WasmFunction {
  name: string;
  params: number[];
  /** Result types (default none). */
  results?: number[];
  /** Local declarations after the parameters, as [count, type] runs. */
  locals: [number, number][];
  code: number[];
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}
const str = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];

/** A module importing its memory as env.memory and exporting each function under its name. */
export function moduleBytes(functions: WasmFunction[]): Uint8Array {
  const types = functions.map((f) => [0x60, ...uleb(f.params.length), ...f.params, ...uleb(f.results?.length ?? 0), ...(f.results ?? [])]);
  const bodies = functions.map((f) => {
    const body = [...vec(f.locals.map(([count, type]) => [...uleb(count), type])), ...f.code, END];
    return [...uleb(body.length), ...body];
  });
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vec(types)),
    ...section(2, [1, ...str('env'), ...str('memory'), 0x02, 0x00, 1]),
    ...section(3, vec(functions.map((_, i) => uleb(i)))),
    ...section(7, vec(functions.map((f, i) => [...str(f.name), 0x00, ...uleb(i)]))),
    ...section(10, vec(bodies)),
  ]);
}
