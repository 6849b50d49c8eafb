// Blocked dense linear algebra in float64 on a Workspace: the O(n³) parts run as SIMD matrix products
// (kernels.ts), only thin diagonal blocks in plain JS. Matrices are row-major n×n (or n×m) at byte pointers.

import type { Workspace } from './kernels.ts';
import { cholesky, invert } from './linalg.ts';

const NB = 32;

/**
 * In-place Cholesky factor (lower triangle; the strict upper triangle is left as garbage) of the symmetric
 * positive definite n×n matrix at `a`. Right-looking, block size 64: the trailing update is a matrix product.
 */
export function choleskyBlocked(ws: Workspace, a: number, n: number): void {
  const mark = ws.mark();
  try {
    choleskyBlocks(ws, a, n, ws.alloc(NB * n * 8), ws.alloc(NB * n * 8), ws.alloc(NB * NB * 8));
  } finally {
    ws.release(mark);
  }
}

/** The inverse of the lower-triangular nb×nb matrix `l` (its lower triangle is read; the result is lower). */
function lowerInverse(l: ArrayLike<number>, nb: number, out: Float64Array): Float64Array {
  out.fill(0, 0, nb * nb);
  for (let j = 0; j < nb; j++) {
    out[j * nb + j] = 1 / l[j * nb + j]!;
    for (let i = j + 1; i < nb; i++) {
      let s = 0;
      for (let k = j; k < i; k++) s += l[i * nb + k]! * out[k * nb + j]!;
      out[i * nb + j] = -s / l[i * nb + i]!;
    }
  }
  return out;
}

function choleskyBlocks(ws: Workspace, a: number, n: number, panelT: number, tmp: number, inv: number): void {
  const linv = new Float64Array(NB * NB);
  const diag = new Float64Array(NB * NB);
  for (let j0 = 0; j0 < n; j0 += NB) {
    const nb = Math.min(NB, n - j0);
    const m = ws.f64(a, n * n);
    // Factor the diagonal block.
    for (let i = 0; i < nb; i++) for (let j = 0; j <= i; j++) diag[i * nb + j] = m[(j0 + i) * n + j0 + j]!;
    cholesky(diag.subarray(0, nb * nb), nb);
    for (let i = 0; i < nb; i++) for (let j = 0; j <= i; j++) m[(j0 + i) * n + j0 + j] = diag[i * nb + j]!;
    const r0 = j0 + nb;
    if (r0 >= n) break;
    // Panel below: L₂₁ = A₂₁ · L_jj⁻ᵀ as one product (A₂₁ moved to tmp, the panel zeroed, then C += tmp · L_jj⁻ᵀ).
    const rest = n - r0;
    lowerInverse(diag, nb, linv);
    const it = ws.f64(inv, nb * nb);
    for (let p = 0; p < nb; p++) for (let j = 0; j < nb; j++) it[p * nb + j] = linv[j * nb + p]!;
    const t = ws.f64(tmp, rest * nb);
    for (let r = 0; r < rest; r++) {
      const o = (r0 + r) * n + j0;
      for (let j = 0; j < nb; j++) {
        t[r * nb + j] = m[o + j]!;
        m[o + j] = 0;
      }
    }
    ws.gemm('f64', rest, nb, nb, tmp, nb, 1, inv, nb, a + (r0 * n + j0) * 8, n);
    // Trailing update A₂₂ −= L₂₁ L₂₁ᵀ (lower block-triangle only), with −L₂₁ᵀ stored as nb × (n − r0).
    const mm = ws.f64(a, n * n);
    const pt = ws.f64(panelT, nb * rest);
    for (let r = 0; r < rest; r++) for (let j = 0; j < nb; j++) pt[j * rest + r] = -mm[(r0 + r) * n + j0 + j]!;
    for (let i0 = r0; i0 < n; i0 += NB) {
      const mi = Math.min(NB, n - i0);
      const cols = i0 + mi - r0;
      ws.gemm('f64', mi, cols, nb, a + (i0 * n + j0) * 8, n, 1, panelT, rest, a + (i0 * n + r0) * 8, n);
    }
  }
}

/** Solves L Lᵀ W = B in place for the n×m right-hand side at `b`, with L from `choleskyBlocked` at `l`. */
export function choleskySolveBlocked(ws: Workspace, l: number, n: number, b: number, m: number): void {
  const mark = ws.mark();
  const negL = ws.alloc(NB * n * 8);
  const tmp = ws.alloc(NB * m * 8);
  const inv = ws.alloc(NB * NB * 8);
  // Forward: L Z = B, block row by block row: B_i −= L_i,<i Z_<i, then solve the diagonal block.
  for (let i0 = 0; i0 < n; i0 += NB) {
    const nb = Math.min(NB, n - i0);
    if (i0 > 0) {
      const neg = ws.f64(negL, nb * i0);
      const lv = ws.f64(l, n * n);
      for (let r = 0; r < nb; r++) for (let k = 0; k < i0; k++) neg[r * i0 + k] = -lv[(i0 + r) * n + k]!;
      ws.gemm('f64', nb, m, i0, negL, i0, 1, b, m, b + i0 * m * 8, m);
    }
    diagonalSolve(ws, l, n, b, m, i0, nb, tmp, inv, false);
  }
  // Backward: Lᵀ W = Z from the last block: B_i −= (L_>i,i)ᵀ W_>i, then the diagonal block.
  const last = Math.floor((n - 1) / NB) * NB;
  for (let i0 = last; i0 >= 0; i0 -= NB) {
    const nb = Math.min(NB, n - i0);
    const below = n - (i0 + nb);
    if (below > 0) {
      // A(i, p) = −L[i0 + nb + p, i0 + i]: stored nb × below.
      const neg = ws.f64(negL, nb * below);
      const lv = ws.f64(l, n * n);
      for (let p = 0; p < below; p++) for (let i = 0; i < nb; i++) neg[i * below + p] = -lv[(i0 + nb + p) * n + i0 + i]!;
      ws.gemm('f64', nb, m, below, negL, below, 1, b + (i0 + nb) * m * 8, m, b + i0 * m * 8, m);
    }
    diagonalSolve(ws, l, n, b, m, i0, nb, tmp, inv, true);
  }
  ws.release(mark);
}

/**
 * B_i ← L_ii⁻¹ B_i (or L_iiᵀ⁻¹ B_i when `transposed`) for the nb rows of B from i0, as one product with the
 * explicit inverse of the small diagonal block (B_i moved to tmp, zeroed, then B_i += L_ii⁻¹ · tmp).
 */
function diagonalSolve(ws: Workspace, l: number, n: number, b: number, m: number, i0: number, nb: number, tmp: number, inv: number, transposed: boolean): void {
  const lv = ws.f64(l, n * n);
  const block = new Float64Array(nb * nb);
  for (let i = 0; i < nb; i++) for (let j = 0; j <= i; j++) block[i * nb + j] = lv[(i0 + i) * n + i0 + j]!;
  ws.f64(inv, nb * nb).set(lowerInverse(block, nb, new Float64Array(nb * nb)));
  const rows = ws.f64(b + i0 * m * 8, nb * m);
  ws.f64(tmp, nb * m).set(rows);
  rows.fill(0);
  if (transposed) ws.gemm('f64', nb, m, nb, inv, 1, nb, tmp, m, b + i0 * m * 8, m);
  else ws.gemm('f64', nb, m, nb, inv, nb, 1, tmp, m, b + i0 * m * 8, m);
}

/**
 * G += Xᵀ Y for row-major X (n×dx) and Y (n×dy) at workspace pointers. With `symmetric` (Y is X), only
 * the upper block-triangle is computed and then mirrored.
 */
export function crossGemm(ws: Workspace, x: number, y: number, n: number, dx: number, dy: number, g: number, symmetric: boolean): void {
  if (!symmetric) {
    ws.gemm('f64', dx, dy, n, x, 1, dx, y, dy, g, dy);
    return;
  }
  const TB = 128;
  for (let i0 = 0; i0 < dx; i0 += TB) {
    const mi = Math.min(TB, dx - i0);
    ws.gemm('f64', mi, dx - i0, n, x + i0 * 8, 1, dx, x + i0 * 8, dx, g + (i0 * dx + i0) * 8, dx);
  }
  const v = ws.f64(g, dx * dx);
  for (let i = 0; i < dx; i++) for (let j = 0; j < i; j++) v[i * dx + j] = v[j * dx + i]!;
}

/**
 * The orthogonal polar factor U of the square matrix M (so U = argmin ‖M − U‖ over orthogonal U) by the
 * scaled Newton iteration U ← (γU + (γU)⁻ᵀ)/2, with U⁻ᵀ = U (UᵀU)⁻¹ from a blocked Cholesky solve: every
 * O(n³) step is a SIMD matrix product. Falls back to Gauss-Jordan inversion if UᵀU is numerically singular.
 */
export function polarFactorFast(ws: Workspace, m: Float64Array, n: number, maxIter = 30): Float64Array {
  const mark = ws.mark();
  const nn = n * n;
  const u = ws.put(m, 'f64');
  const s = ws.alloc(nn * 8);
  const z = ws.alloc(nn * 8);
  try {
    for (let it = 0; it < maxIter; it++) {
      // S = UᵀU, then Z = S⁻¹ Uᵀ = U⁻¹.
      ws.f64(s, nn).fill(0);
      crossGemm(ws, u, u, n, n, n, s, true);
      const zv = ws.f64(z, nn);
      const uv0 = ws.f64(u, nn);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) zv[i * n + j] = uv0[j * n + i]!;
      let inverse: Float64Array;
      try {
        choleskyBlocked(ws, s, n);
        choleskySolveBlocked(ws, s, n, z, n);
        inverse = ws.f64(z, nn);
      } catch {
        inverse = invert(ws.f64(u, nn).slice(), n);
      }
      const uv = ws.f64(u, nn);
      let nu = 0;
      let ni = 0;
      for (let i = 0; i < nn; i++) {
        nu += uv[i]! * uv[i]!;
        ni += inverse[i]! * inverse[i]!;
      }
      const g = Math.sqrt(Math.sqrt(ni / nu));
      let delta = 0;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const old = uv[i * n + j]!;
          const v = 0.5 * (g * old + inverse[j * n + i]! / g);
          uv[i * n + j] = v;
          delta += (v - old) ** 2;
        }
      }
      // Converged once a step moves entries (≈ 1/√n each) by less than float32 resolution, the precision
      // the map is stored in: the next step would move them by about the square of that.
      if (delta < 1e-14 * n) break;
    }
    return ws.f64(u, nn).slice();
  } finally {
    ws.release(mark);
  }
}
