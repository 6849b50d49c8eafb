// Blocked dense linear algebra in float64 on a Workspace: the O(n³) parts run as SIMD matrix products
// (kernels.ts), only thin diagonal blocks in plain JS. Matrices are row-major n×n (or n×m) at byte pointers.
import { cholesky, invert } from './linalg.ts';
import type { Workspace } from './kernels.ts';

const NB = 32;

/**
 * In-place Cholesky factor (lower triangle; the strict upper triangle is left as garbage) of the symmetric
 * positive definite n×n matrix at `a`. Right-looking, block size 64: the trailing update is a matrix product.
 */
export function choleskyBlocked(ws: Workspace, a: number, n: number): void {
  const mark = ws.mark();
  try {
    choleskyBlocks(ws, a, n, ws.alloc(NB * n * 8));
  } finally {
    ws.release(mark);
  }
}

function choleskyBlocks(ws: Workspace, a: number, n: number, panelT: number): void {
  const diag = new Float64Array(NB * NB);
  for (let j0 = 0; j0 < n; j0 += NB) {
    const nb = Math.min(NB, n - j0);
    const m = ws.f64(a, n * n);
    // Factor the diagonal block.
    for (let i = 0; i < nb; i++) for (let j = 0; j <= i; j++) diag[i * nb + j] = m[(j0 + i) * n + j0 + j]!;
    cholesky(diag.subarray(0, nb * nb), nb);
    for (let i = 0; i < nb; i++) for (let j = 0; j <= i; j++) m[(j0 + i) * n + j0 + j] = diag[i * nb + j]!;
    // Panel below: L_ij = A_ij · L_jj⁻ᵀ, row by row (forward substitution against the block).
    const r0 = j0 + nb;
    for (let r = r0; r < n; r++) {
      const o = r * n + j0;
      for (let j = 0; j < nb; j++) {
        let s = m[o + j]!;
        for (let k = 0; k < j; k++) s -= m[o + k]! * diag[j * nb + k]!;
        m[o + j] = s / diag[j * nb + j]!;
      }
    }
    if (r0 >= n) break;
    // Trailing update A₂₂ −= L₂₁ L₂₁ᵀ (lower block-triangle only), with −L₂₁ᵀ stored as nb × (n − r0).
    const rest = n - r0;
    const pt = ws.f64(panelT, nb * rest);
    for (let r = 0; r < rest; r++) for (let j = 0; j < nb; j++) pt[j * rest + r] = -m[(r0 + r) * n + j0 + j]!;
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
  // Forward: L Z = B, block row by block row: B_i −= L_i,<i Z_<i, then solve the diagonal block.
  for (let i0 = 0; i0 < n; i0 += NB) {
    const nb = Math.min(NB, n - i0);
    if (i0 > 0) {
      const neg = ws.f64(negL, nb * i0);
      const lv = ws.f64(l, n * n);
      for (let r = 0; r < nb; r++) for (let k = 0; k < i0; k++) neg[r * i0 + k] = -lv[(i0 + r) * n + k]!;
      ws.gemm('f64', nb, m, i0, negL, i0, 1, b, m, b + i0 * m * 8, m);
    }
    const lv = ws.f64(l, n * n);
    const bv = ws.f64(b, n * m);
    for (let r = i0; r < i0 + nb; r++) {
      const or = r * m;
      for (let k = i0; k < r; k++) {
        const f = lv[r * n + k]!;
        if (f === 0) continue;
        const ok = k * m;
        for (let j = 0; j < m; j++) bv[or + j]! -= f * bv[ok + j]!;
      }
      const d = lv[r * n + r]!;
      for (let j = 0; j < m; j++) bv[or + j]! /= d;
    }
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
    const lv = ws.f64(l, n * n);
    const bv = ws.f64(b, n * m);
    for (let r = i0 + nb - 1; r >= i0; r--) {
      const or = r * m;
      for (let k = r + 1; k < i0 + nb; k++) {
        const f = lv[k * n + r]!;
        if (f === 0) continue;
        const ok = k * m;
        for (let j = 0; j < m; j++) bv[or + j]! -= f * bv[ok + j]!;
      }
      const d = lv[r * n + r]!;
      for (let j = 0; j < m; j++) bv[or + j]! /= d;
    }
  }
  ws.release(mark);
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
