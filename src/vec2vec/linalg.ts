// Dense kernels on row-major Float32Array / Float64Array matrices. Loops are ordered so the innermost
// one walks contiguous memory (axpy or dot form). Large products go to the WebAssembly SIMD kernels.
import { matmulF32 } from './kernels.ts';

/** `rows` samples of `cols` values, row-major. */
export interface Mat {
  readonly rows: number;
  readonly cols: number;
  readonly data: Float32Array;
}

export function mat(rows: number, cols: number, data?: Float32Array): Mat {
  const d = data ?? new Float32Array(rows * cols);
  if (d.length !== rows * cols) throw new Error(`matrix data has ${d.length} values, expected ${rows}×${cols}`);
  return { rows, cols, data: d };
}

/** Stacks equal-length vectors into a matrix. */
export function stack(vectors: readonly Float32Array[], cols?: number): Mat {
  const d = cols ?? vectors[0]?.length ?? 0;
  const out = new Float32Array(vectors.length * d);
  vectors.forEach((v, i) => {
    if (v.length !== d) throw new Error(`vector ${i} has ${v.length} dimensions, expected ${d}`);
    out.set(v, i * d);
  });
  return mat(vectors.length, d, out);
}

export function row(m: Mat, i: number): Float32Array {
  return m.data.subarray(i * m.cols, (i + 1) * m.cols);
}

/** The rows of `m` at `indices`, copied. */
export function takeRows(m: Mat, indices: readonly number[]): Mat {
  const out = new Float32Array(indices.length * m.cols);
  indices.forEach((r, i) => {
    out.set(row(m, r), i * m.cols);
  });
  return mat(indices.length, m.cols, out);
}

export function columnMean(m: Mat): Float64Array {
  const mu = new Float64Array(m.cols);
  const { data, cols } = m;
  for (let r = 0; r < m.rows; r++) {
    const o = r * cols;
    for (let j = 0; j < cols; j++) mu[j]! += data[o + j]!;
  }
  for (let j = 0; j < cols; j++) mu[j]! /= Math.max(1, m.rows);
  return mu;
}

/** Raw sums over a set of rows (x − shift): Σ xᵀx (upper triangle filled, then mirrored) and Σ xᵀy. */
export function crossProducts(x: Mat, y: Mat, shiftX: Float64Array, shiftY: Float64Array): { xx: Float64Array; xy: Float64Array } {
  const dx = x.cols;
  const dy = y.cols;
  const xx = new Float64Array(dx * dx);
  const xy = new Float64Array(dx * dy);
  const xr = new Float64Array(dx);
  const yr = new Float64Array(dy);
  for (let r = 0; r < x.rows; r++) {
    const ox = r * dx;
    const oy = r * dy;
    for (let i = 0; i < dx; i++) xr[i] = x.data[ox + i]! - shiftX[i]!;
    for (let j = 0; j < dy; j++) yr[j] = y.data[oy + j]! - shiftY[j]!;
    for (let i = 0; i < dx; i++) {
      const a = xr[i]!;
      if (a === 0) continue;
      const oi = i * dx;
      for (let j = i; j < dx; j++) xx[oi + j]! += a * xr[j]!;
      const oo = i * dy;
      for (let j = 0; j < dy; j++) xy[oo + j]! += a * yr[j]!;
    }
  }
  for (let i = 0; i < dx; i++) for (let j = 0; j < i; j++) xx[i * dx + j] = xx[j * dx + i]!;
  return { xx, xy };
}

/** In-place Cholesky factor (lower triangle) of a symmetric positive definite n×n matrix. */
export function cholesky(a: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) {
    const oj = j * n;
    let d = a[oj + j]!;
    for (let k = 0; k < j; k++) d -= a[oj + k]! * a[oj + k]!;
    if (!(d > 0)) throw new Error('matrix is not positive definite');
    const ljj = Math.sqrt(d);
    a[oj + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      const oi = i * n;
      let s = a[oi + j]!;
      for (let k = 0; k < j; k++) s -= a[oi + k]! * a[oj + k]!;
      a[oi + j] = s / ljj;
    }
  }
}

/** Solves L Lᵀ W = B for the n×m right-hand side B (overwritten with W), L from `cholesky`. */
export function choleskySolve(l: Float64Array, n: number, b: Float64Array, m: number): void {
  // Forward: L Z = B, row by row so the inner loop is an axpy over the m columns.
  for (let i = 0; i < n; i++) {
    const oi = i * m;
    for (let k = 0; k < i; k++) {
      const f = l[i * n + k]!;
      if (f === 0) continue;
      const ok = k * m;
      for (let j = 0; j < m; j++) b[oi + j]! -= f * b[ok + j]!;
    }
    const d = l[i * n + i]!;
    for (let j = 0; j < m; j++) b[oi + j]! /= d;
  }
  // Backward: Lᵀ W = Z.
  for (let i = n - 1; i >= 0; i--) {
    const oi = i * m;
    for (let k = i + 1; k < n; k++) {
      const f = l[k * n + i]!;
      if (f === 0) continue;
      const ok = k * m;
      for (let j = 0; j < m; j++) b[oi + j]! -= f * b[ok + j]!;
    }
    const d = l[i * n + i]!;
    for (let j = 0; j < m; j++) b[oi + j]! /= d;
  }
}

/** Inverse of a square n×n matrix by Gauss-Jordan with partial pivoting. */
export function invert(a: Float64Array, n: number): Float64Array {
  const m = Float64Array.from(a);
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) inv[i * n + i] = 1;
  for (let c = 0; c < n; c++) {
    let p = c;
    let best = Math.abs(m[c * n + c]!);
    for (let r = c + 1; r < n; r++) {
      const v = Math.abs(m[r * n + c]!);
      if (v > best) {
        best = v;
        p = r;
      }
    }
    if (best < 1e-300) throw new Error('matrix is singular');
    if (p !== c) {
      for (let j = 0; j < n; j++) {
        const t = m[c * n + j]!;
        m[c * n + j] = m[p * n + j]!;
        m[p * n + j] = t;
        const u = inv[c * n + j]!;
        inv[c * n + j] = inv[p * n + j]!;
        inv[p * n + j] = u;
      }
    }
    const d = m[c * n + c]!;
    for (let j = 0; j < n; j++) {
      m[c * n + j]! /= d;
      inv[c * n + j]! /= d;
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r * n + c]!;
      if (f === 0) continue;
      const or = r * n;
      const oc = c * n;
      for (let j = 0; j < n; j++) {
        m[or + j]! -= f * m[oc + j]!;
        inv[or + j]! -= f * inv[oc + j]!;
      }
    }
  }
  return inv;
}

/**
 * The orthogonal polar factor U of a square matrix M = U P (so U = argmin ‖M − U‖ over orthogonal U),
 * by the scaled Newton iteration U ← (γU + (γU)⁻ᵀ)/2, which converges quadratically.
 */
export function polarFactor(m: Float64Array, n: number, maxIter = 30): Float64Array {
  let u = Float64Array.from(m);
  for (let it = 0; it < maxIter; it++) {
    const inv = invert(u, n);
    // Frobenius-norm scaling (Higham) speeds up the early iterations.
    let nu = 0;
    let ni = 0;
    for (let i = 0; i < n * n; i++) {
      nu += u[i]! * u[i]!;
      ni += inv[i]! * inv[i]!;
    }
    const g = Math.sqrt(Math.sqrt(ni / nu));
    const next = new Float64Array(n * n);
    let delta = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const v = 0.5 * (g * u[i * n + j]! + inv[j * n + i]! / g);
        next[i * n + j] = v;
        delta += (v - u[i * n + j]!) ** 2;
      }
    }
    u = next;
    if (delta < 1e-20 * n) break;
  }
  return u;
}

/** y = x · W + b for one vector (W is din×dout row-major). */
export function affine(x: ArrayLike<number>, w: Float32Array, b: Float32Array | null, din: number, dout: number, out: Float32Array): Float32Array {
  if (b) out.set(b);
  else out.fill(0);
  for (let i = 0; i < din; i++) {
    const a = x[i]!;
    if (a === 0) continue;
    const o = i * dout;
    for (let j = 0; j < dout; j++) out[j]! += a * w[o + j]!;
  }
  return out;
}

/** The transpose of a rows×cols row-major matrix. */
export function transpose(w: Float32Array, rows: number, cols: number): Float32Array {
  const t = new Float32Array(w.length);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j * rows + i] = w[i * cols + j]!;
  return t;
}

/** Below this many multiply-adds a product stays in plain JS (copying into WebAssembly memory would cost more). */
const SIMD_MIN_WORK = 16_384;

/** Y = X · W (+ b) for a batch: X is n×din, W din×dout. */
export function matmulAdd(x: Float32Array, n: number, din: number, w: Float32Array, dout: number, b: Float32Array | null, out: Float32Array): void {
  if (n * din * dout >= SIMD_MIN_WORK) {
    matmulF32(x.subarray(0, n * din), n, din, w, dout, b, out);
    return;
  }
  for (let r = 0; r < n; r++) {
    const oo = r * dout;
    if (b) out.set(b, oo);
    else out.fill(0, oo, oo + dout);
    const ox = r * din;
    for (let i = 0; i < din; i++) {
      const a = x[ox + i]!;
      if (a === 0) continue;
      const ow = i * dout;
      for (let j = 0; j < dout; j++) out[oo + j]! += a * w[ow + j]!;
    }
  }
}

/** G += Xᵀ · D for a batch (X n×din, D n×dout, G din×dout). */
export function accumulateOuter(x: Float32Array, n: number, din: number, d: Float32Array, dout: number, g: Float32Array): void {
  if (n * din * dout >= SIMD_MIN_WORK) {
    matmulF32(x.subarray(0, n * din), din, n, d.subarray(0, n * dout), dout, null, g, { transA: true, accumulate: true });
    return;
  }
  for (let r = 0; r < n; r++) {
    const ox = r * din;
    const od = r * dout;
    for (let i = 0; i < din; i++) {
      const a = x[ox + i]!;
      if (a === 0) continue;
      const og = i * dout;
      for (let j = 0; j < dout; j++) g[og + j]! += a * d[od + j]!;
    }
  }
}

/** DX = D · Wᵀ for a batch (D n×dout, W din×dout, DX n×din); adds into `out` when `accumulate`. */
export function backprop(d: Float32Array, n: number, dout: number, w: Float32Array, din: number, out: Float32Array, accumulate = false): void {
  if (n * din * dout >= SIMD_MIN_WORK) {
    matmulF32(d.subarray(0, n * dout), n, dout, transpose(w, din, dout), din, null, out, { accumulate });
    return;
  }
  for (let r = 0; r < n; r++) {
    const od = r * dout;
    const oo = r * din;
    for (let i = 0; i < din; i++) {
      const ow = i * dout;
      let s = 0;
      for (let j = 0; j < dout; j++) s += d[od + j]! * w[ow + j]!;
      if (accumulate) out[oo + i]! += s;
      else out[oo + i] = s;
    }
  }
}

export function dot(a: ArrayLike<number>, b: ArrayLike<number>, n = a.length): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

/** Scales `v` to unit length in place (a zero vector stays zero). */
export function normalizeInPlace(v: Float32Array): Float32Array {
  const n = Math.sqrt(dot(v, v));
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

export function normalizeRows(m: Mat): Mat {
  for (let r = 0; r < m.rows; r++) normalizeInPlace(row(m, r));
  return m;
}
