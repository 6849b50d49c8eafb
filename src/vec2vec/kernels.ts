// Matrix products in WebAssembly SIMD (128-bit: 4 float32 or 2 float64 lanes), built at load time by
// wasm-asm.ts. Plain JS tops out near 0.5-1 G multiply-adds/s here; these reach several times that.
// Everything is C += A·B with A read through element strides (so Aᵀ·B needs no transpose) and B, C row-major.
import { buildModule, type FunctionDef, I32, op, V128 } from './wasm-asm.ts';

type Precision = 'f32' | 'f64';

/**
 * C[i,j] += Σ_p A[i·sai + p·sap] · B[p·ldb + j] for an m×n tile (m % mr = 0, n % (nv·lanes) = 0, k > 0).
 * `packed`: A's mr rows of one p are adjacent (a packed panel), so they load at constant offsets.
 */
function microKernel(prec: Precision, mr: number, nv: number, packed = false): FunctionDef {
  const es = prec === 'f32' ? 4 : 8;
  const lanes = 16 / es;
  // Parameters (byte pointers and byte strides, except m, n, k which count elements).
  const [A, sai, sap, B, ldb, C, ldc, m, n, k] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const [i, j, p, pa, pb, crow] = [10, 11, 12, 13, 14, 15];
  const ar = (r: number) => 16 + r;
  const cr = (r: number) => 16 + mr + r;
  const v0 = 16 + 2 * mr;
  const acc = (r: number, v: number) => v0 + r * nv + v;
  const bv = (v: number) => v0 + mr * nv + v;
  const s = v0 + mr * nv + nv;
  const splat = prec === 'f32' ? op.load32Splat : op.load64Splat;
  const vmul = prec === 'f32' ? op.f32x4Mul : op.f64x2Mul;
  const vadd = prec === 'f32' ? op.f32x4Add : op.f64x2Add;
  const body: number[] = [];
  const emit = (...parts: (readonly number[])[]) => {
    for (const x of parts) body.push(...x);
  };
  for (let r = 0; r < mr; r++) emit(op.get(sai), op.i32(r), op.mul, op.set(ar(r)), op.get(ldc), op.i32(r), op.mul, op.set(cr(r)));
  emit(op.loop); // rows
  emit(op.i32(0), op.set(j));
  emit(op.loop); // columns
  emit(op.get(C), op.get(i), op.get(ldc), op.mul, op.add, op.get(j), op.i32(es), op.mul, op.add, op.set(crow));
  for (let r = 0; r < mr; r++) for (let v = 0; v < nv; v++) emit(op.get(crow), op.get(cr(r)), op.add, op.vload(v * 16), op.set(acc(r, v)));
  emit(op.get(A), op.get(i), op.get(sai), op.mul, op.add, op.set(pa));
  emit(op.get(B), op.get(j), op.i32(es), op.mul, op.add, op.set(pb));
  emit(op.get(k), op.set(p));
  emit(op.loop); // inner products
  for (let v = 0; v < nv; v++) emit(op.get(pb), op.vload(v * 16), op.set(bv(v)));
  for (let r = 0; r < mr; r++) {
    if (packed) emit(op.get(pa), splat(r * es), op.set(s));
    else emit(op.get(pa), op.get(ar(r)), op.add, splat(0), op.set(s));
    for (let v = 0; v < nv; v++) emit(op.get(acc(r, v)), op.get(s), op.get(bv(v)), vmul, vadd, op.set(acc(r, v)));
  }
  emit(op.get(pa), op.get(sap), op.add, op.set(pa), op.get(pb), op.get(ldb), op.add, op.set(pb));
  emit(op.get(p), op.i32(1), op.sub, op.tee(p), op.brIf(0), op.end);
  for (let r = 0; r < mr; r++) for (let v = 0; v < nv; v++) emit(op.get(crow), op.get(cr(r)), op.add, op.get(acc(r, v)), op.vstore(v * 16));
  emit(op.get(j), op.i32(nv * lanes), op.add, op.tee(j), op.get(n), op.ltS, op.brIf(0), op.end);
  emit(op.get(i), op.i32(mr), op.add, op.tee(i), op.get(m), op.ltS, op.brIf(0), op.end);
  return {
    name: `${prec}_${mr}x${nv}${packed ? 'p' : ''}`,
    params: 10,
    locals: [
      [6 + 2 * mr, I32],
      [mr * nv + nv + 1, V128],
    ],
    body,
  };
}

/** Widest tile per precision: 4 rows × 8 float32 (8 accumulators) or 4 rows × 8 float64 (16; measured ~1.4× faster than 4 × 4 here). */
const WIDE = { f32: 2, f64: 4 } as const;
const ONE_ROW_WIDE = 4;

let compiled: WebAssembly.Module | undefined;
function wasmModule(): WebAssembly.Module {
  if (!compiled) {
    const fns: FunctionDef[] = [];
    for (const prec of ['f32', 'f64'] as const) {
      fns.push(microKernel(prec, 4, WIDE[prec]), microKernel(prec, 4, WIDE[prec], true), microKernel(prec, 4, 1), microKernel(prec, 1, ONE_ROW_WIDE), microKernel(prec, 1, 1));
    }
    compiled = new WebAssembly.Module(buildModule(fns));
  }
  return compiled;
}

type Kernel = (a: number, sai: number, sap: number, b: number, ldb: number, c: number, ldc: number, m: number, n: number, k: number) => void;

const PAGE = 65536;
const KC = 128;
const NC = 256;

/**
 * A WebAssembly memory with the kernels bound to it and a bump allocator. Views are re-derived after every
 * allocation (growing the memory detaches old ones), so hold pointers, not arrays, across allocations.
 */
export class Workspace {
  readonly memory: WebAssembly.Memory;
  private readonly k: Record<string, Kernel>;
  private top = 0;

  constructor(bytes = PAGE) {
    this.memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / PAGE)) });
    const inst = new WebAssembly.Instance(wasmModule(), { env: { memory: this.memory } });
    this.k = inst.exports as unknown as Record<string, Kernel>;
  }

  /** Byte offset of a fresh 16-byte-aligned block (contents undefined). */
  alloc(bytes: number): number {
    const ptr = this.top;
    this.top = (ptr + bytes + 15) & ~15;
    const need = this.top - this.memory.buffer.byteLength;
    if (need > 0) this.memory.grow(Math.ceil(need / PAGE));
    return ptr;
  }

  /** Frees everything allocated after `mark` (a value of `mark()`). */
  release(mark: number): void {
    this.top = mark;
  }

  mark(): number {
    return this.top;
  }

  f32(ptr: number, n: number): Float32Array {
    return new Float32Array(this.memory.buffer, ptr, n);
  }

  f64(ptr: number, n: number): Float64Array {
    return new Float64Array(this.memory.buffer, ptr, n);
  }

  /** Copies `src` in (converted to `prec`), returning its pointer. */
  put(src: ArrayLike<number>, prec: Precision): number {
    const ptr = this.alloc(src.length * (prec === 'f32' ? 4 : 8));
    (prec === 'f32' ? this.f32(ptr, src.length) : this.f64(ptr, src.length)).set(src);
    return ptr;
  }

  /**
   * C += A·B on workspace pointers: A(i, p) = A[i·sai + p·sap], B(p, j) = B[p·ldb + j], C(i, j) = C[i·ldc + j];
   * strides in elements. Blocked over p and j so the B panel stays in L2.
   */
  gemm(prec: Precision, m: number, n: number, k: number, a: number, sai: number, sap: number, b: number, ldb: number, c: number, ldc: number): void {
    if (m <= 0 || n <= 0 || k <= 0) return;
    const es = prec === 'f32' ? 4 : 8;
    const lanes = 16 / es;
    const wide = WIDE[prec] * lanes;
    const m4 = m - (m % 4);
    const nWide = n - (n % wide);
    const nLane = n - (n % lanes);
    const big = this.k[`${prec}_4x${WIDE[prec]}`]!;
    const narrow = this.k[`${prec}_4x1`]!;
    const rowWide = this.k[`${prec}_1x${ONE_ROW_WIDE}`]!;
    const rowNarrow = this.k[`${prec}_1x1`]!;
    const rowWidth = ONE_ROW_WIDE * lanes;
    // Pack A's 4-row panels (p-major) when B is wide enough to repay it: the kernel then loads A at fixed offsets.
    const pack = m4 > 0 && nWide >= 64;
    const mark = this.top;
    const packed = pack ? this.alloc(m4 * Math.min(KC, k) * es) : 0;
    const packedKernel = this.k[`${prec}_4x${WIDE[prec]}p`]!;
    for (let p0 = 0; p0 < k; p0 += KC) {
      const kc = Math.min(KC, k - p0);
      const ap = a + p0 * sap * es;
      const bp = b + p0 * ldb * es;
      if (pack) {
        const view = prec === 'f32' ? new Float32Array(this.memory.buffer) : new Float64Array(this.memory.buffer);
        const src = ap / es;
        let o = packed / es;
        for (let i0 = 0; i0 < m4; i0 += 4) {
          for (let p = 0; p < kc; p++) {
            const q = src + i0 * sai + p * sap;
            view[o] = view[q]!;
            view[o + 1] = view[q + sai]!;
            view[o + 2] = view[q + 2 * sai]!;
            view[o + 3] = view[q + 3 * sai]!;
            o += 4;
          }
        }
      }
      for (let j0 = 0; j0 < nWide; j0 += NC) {
        const nc = Math.min(NC, nWide - j0);
        if (pack) packedKernel(packed, kc * es, 4 * es, bp + j0 * es, ldb * es, c + j0 * es, ldc * es, m4, nc, kc);
        else if (m4 > 0) big(ap, sai * es, sap * es, bp + j0 * es, ldb * es, c + j0 * es, ldc * es, m4, nc, kc);
        if (m4 < m) {
          const rows = m - m4;
          const ncw = nc - (nc % rowWidth);
          for (let r = 0; r < rows; r++) {
            const ai = ap + (m4 + r) * sai * es;
            const ci = c + ((m4 + r) * ldc + j0) * es;
            if (ncw > 0) rowWide(ai, 0, sap * es, bp + j0 * es, ldb * es, ci, 0, 1, ncw, kc);
            if (ncw < nc) rowNarrow(ai, 0, sap * es, bp + (j0 + ncw) * es, ldb * es, ci + ncw * es, 0, 1, nc - ncw, kc);
          }
        }
      }
      if (nLane > nWide) {
        if (m4 > 0) narrow(ap, sai * es, sap * es, bp + nWide * es, ldb * es, c + nWide * es, ldc * es, m4, nLane - nWide, kc);
        for (let r = m4; r < m; r++) rowNarrow(ap + r * sai * es, 0, sap * es, bp + nWide * es, ldb * es, c + (r * ldc + nWide) * es, 0, 1, nLane - nWide, kc);
      }
      if (n > nLane) {
        // Fewer columns than one SIMD lane group: plain loops (at most lanes − 1 columns).
        const view = prec === 'f32' ? new Float32Array(this.memory.buffer) : new Float64Array(this.memory.buffer);
        const ao = ap / es;
        const bo = bp / es;
        const co = c / es;
        for (let i = 0; i < m; i++) {
          for (let j = nLane; j < n; j++) {
            let sum = 0;
            for (let p = 0; p < kc; p++) sum += view[ao + i * sai + p * sap]! * view[bo + p * ldb + j]!;
            view[co + i * ldc + j]! += sum;
          }
        }
      }
    }
    this.top = mark;
  }
}

let shared: Workspace | undefined;
/** A per-thread scratch workspace for one-off products (reset by each caller when done). */
export function scratch(): Workspace {
  shared ??= new Workspace();
  return shared;
}

/**
 * Runs `fn` on the shared scratch workspace and frees what it allocated. Large jobs (over 64 MB)
 * get a private workspace, so the shared one never stays that big.
 */
export function withWorkspace<T>(bytes: number, fn: (ws: Workspace) => T): T {
  if (bytes > 64 * 2 ** 20) return fn(new Workspace(bytes));
  const ws = scratch();
  const mark = ws.mark();
  try {
    return fn(ws);
  } finally {
    ws.release(mark);
  }
}

/**
 * out (n×dout, float32) = X (n×din) · W (din×dout) + b, through the scratch workspace. `transA` reads X as
 * din×n (so out = Xᵀ·W). With `accumulate`, adds into `out` instead of starting from b (or zero).
 */
export function matmulF32(
  x: Float32Array,
  rows: number,
  inner: number,
  w: Float32Array,
  cols: number,
  b: Float32Array | null,
  out: Float32Array,
  opts: { transA?: boolean; accumulate?: boolean } = {},
): void {
  withWorkspace((x.length + w.length + rows * cols) * 4, (ws) => {
    const xp = ws.put(x, 'f32');
    const wp = ws.put(w, 'f32');
    const cp = ws.alloc(rows * cols * 4);
    const c = ws.f32(cp, rows * cols);
    if (opts.accumulate) c.set(out.subarray(0, rows * cols));
    else if (b) for (let r = 0; r < rows; r++) c.set(b, r * cols);
    else c.fill(0);
    if (opts.transA) ws.gemm('f32', rows, cols, inner, xp, 1, rows, wp, cols, cp, cols);
    else ws.gemm('f32', rows, cols, inner, xp, inner, 1, wp, cols, cp, cols);
    out.set(ws.f32(cp, rows * cols));
  });
}
