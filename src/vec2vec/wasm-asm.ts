// A minimal WebAssembly binary emitter: just enough to build the SIMD matrix kernels in kernels.ts at
// load time from readable code (no binary blobs, no build step, no native addon).

export const I32 = 0x7f;
export const V128 = 0x7b;

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};

const sleb = (n: number): number[] => {
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
};

const simd = (op: number, ...imm: number[]): number[] => [0xfd, ...uleb(op), ...imm];

/** Instructions as byte arrays; a function body is their concatenation. */
export const op = {
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  tee: (i: number) => [0x22, ...uleb(i)],
  i32: (v: number) => [0x41, ...sleb(v)],
  add: [0x6a],
  sub: [0x6b],
  mul: [0x6c],
  ltS: [0x48],
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (d: number) => [0x0c, ...uleb(d)],
  brIf: (d: number) => [0x0d, ...uleb(d)],
  geS: [0x4e],
  /** v128.load with a constant byte offset (alignment hint 16 bytes). */
  vload: (offset = 0) => simd(0x00, 4, ...uleb(offset)),
  vstore: (offset = 0) => simd(0x0b, 4, ...uleb(offset)),
  load32Splat: (offset = 0) => simd(0x09, 2, ...uleb(offset)),
  load64Splat: (offset = 0) => simd(0x0a, 3, ...uleb(offset)),
  f32x4Add: simd(0xe4),
  f32x4Mul: simd(0xe6),
  f64x2Add: simd(0xf0),
  f64x2Mul: simd(0xf2),
};

export interface FunctionDef {
  readonly name: string;
  readonly params: number;
  /** Local groups after the (all-i32) parameters: [count, type]. */
  readonly locals: readonly (readonly [number, number])[];
  readonly body: readonly number[];
}

const section = (id: number, content: number[]): number[] => [id, ...uleb(content.length), ...content];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => {
  const b = [...new TextEncoder().encode(s)];
  return [...uleb(b.length), ...b];
};

/** A module importing its memory as env.memory and exporting each function (all params i32, no results). */
export function buildModule(fns: readonly FunctionDef[]): Uint8Array<ArrayBuffer> {
  const types = fns.map((f) => [0x60, ...uleb(f.params), ...Array<number>(f.params).fill(I32), 0]);
  const imports = vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]]);
  const funcs = vec(fns.map((_, i) => uleb(i)));
  const exports = vec(fns.map((f, i) => [...name(f.name), 0x00, ...uleb(i)]));
  const codes = vec(
    fns.map((f) => {
      const body = [...vec(f.locals.map(([n, t]) => [...uleb(n), t])), ...f.body, 0x0b];
      return [...uleb(body.length), ...body];
    }),
  );
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types)),
    ...section(2, imports),
    ...section(3, funcs),
    ...section(7, exports),
    ...section(10, codes),
  ]);
}
