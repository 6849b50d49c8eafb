// The fast paths (WebAssembly SIMD products, blocked Cholesky, Cholesky-based polar iteration, the shared
// two-direction fit) against the plain reference implementations on small problems.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matmulF32, Workspace } from './kernels.ts';
import { cholesky, choleskySolve, columnMean, type Mat, mat, polarFactor, row } from './linalg.ts';
import { fitLinearPair, fitLinearSelected, fitRidge } from './linear.ts';
import { type LinearMap, translateVector, translateVectors } from './map.ts';
import { choleskyBlocked, choleskySolveBlocked, polarFactorFast } from './solve.ts';
import { gaussian, seededRandom } from './split.ts';

const random = seededRandom(11);
const gauss = (n: number, scale = 1) => Float64Array.from({ length: n }, () => gaussian(random) * scale);

function naive(m: number, n: number, k: number, a: ArrayLike<number>, sai: number, sap: number, b: ArrayLike<number>): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) for (let p = 0; p < k; p++) c[i * n + j]! += a[i * sai + p * sap]! * b[p * n + j]!;
  return c;
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length);
  let e = 0;
  for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i]! - b[i]!));
  return e;
}

/** A symmetric positive definite n×n matrix: GᵀG/n + I. */
function spd(n: number): Float64Array {
  const g = gauss(n * n);
  const a = naive(n, n, n, g, 1, n, g);
  for (let i = 0; i < n * n; i++) a[i]! /= n;
  for (let i = 0; i < n; i++) a[i * n + i]! += 1;
  return a;
}

describe('vec2vec SIMD kernels', () => {
  it('multiply like the textbook loop for every shape and both precisions (edges, strides, transposed A)', () => {
    const ws = new Workspace();
    for (const prec of ['f32', 'f64'] as const) {
      for (const [m, n, k] of [
        [1, 1, 1],
        [5, 7, 3],
        [13, 37, 300],
        [4, 8, 129],
        [1, 100, 512],
        [9, 3, 2],
        [66, 262, 70],
      ] as const) {
        const a = gauss(m * k);
        const b = gauss(k * n);
        for (const trans of [false, true]) {
          const mark = ws.mark();
          const ap = ws.put(a, prec);
          const bp = ws.put(b, prec);
          const cp = ws.put(new Float64Array(m * n).fill(0.5), prec);
          const [sai, sap] = trans ? [1, m] : [k, 1];
          ws.gemm(prec, m, n, k, ap, sai, sap, bp, n, cp, n);
          const want = naive(m, n, k, a, sai, sap, b).map((v) => v + 0.5);
          const got = prec === 'f32' ? ws.f32(cp, m * n) : ws.f64(cp, m * n);
          const tol = prec === 'f32' ? 1e-4 * Math.sqrt(k) : 1e-12 * k;
          assert.ok(maxAbsDiff(got, want) < tol, `${prec} ${m}×${n}×${k} trans=${trans}: ${maxAbsDiff(got, want)}`);
          ws.release(mark);
        }
      }
    }
  });

  it('matmulF32 honours bias, accumulate and transposed input', () => {
    const x = Float32Array.from(gauss(6 * 20));
    const w = Float32Array.from(gauss(20 * 9));
    const b = Float32Array.from(gauss(9));
    const out = new Float32Array(6 * 9);
    matmulF32(x, 6, 20, w, 9, b, out);
    const want = naive(6, 9, 20, x, 20, 1, w);
    for (let r = 0; r < 6; r++) for (let j = 0; j < 9; j++) want[r * 9 + j]! += b[j]!;
    assert.ok(maxAbsDiff(out, want) < 1e-4);
    const g = new Float32Array(20 * 9).fill(2);
    const d = Float32Array.from(gauss(6 * 9));
    matmulF32(x, 20, 6, d, 9, null, g, { transA: true, accumulate: true });
    const wantG = naive(20, 9, 6, x, 1, 20, d).map((v) => v + 2);
    assert.ok(maxAbsDiff(g, wantG) < 1e-4);
  });

  it('blocked Cholesky solve equals the plain one (sizes off the block grid)', () => {
    for (const [n, m] of [
      [5, 3],
      [100, 37],
      [131, 64],
    ] as const) {
      const a = spd(n);
      const b = gauss(n * m);
      const ref = Float64Array.from(a);
      cholesky(ref, n);
      const refW = Float64Array.from(b);
      choleskySolve(ref, n, refW, m);
      const ws = new Workspace();
      const ap = ws.put(a, 'f64');
      const bp = ws.put(b, 'f64');
      choleskyBlocked(ws, ap, n);
      choleskySolveBlocked(ws, ap, n, bp, m);
      assert.ok(maxAbsDiff(ws.f64(bp, n * m), refW) < 1e-9, `n=${n}: ${maxAbsDiff(ws.f64(bp, n * m), refW)}`);
    }
    const ws = new Workspace();
    const notPd = ws.put(Float64Array.from([1, 2, 2, 1]), 'f64');
    assert.throws(() => choleskyBlocked(ws, notPd, 2), /positive definite/);
  });

  it('the Cholesky-based polar iteration equals the Gauss-Jordan one and is orthogonal', () => {
    const n = 70;
    const m = gauss(n * n);
    const ref = polarFactor(m, n);
    const fast = polarFactorFast(new Workspace(), m, n);
    assert.ok(maxAbsDiff(fast, ref) < 1e-6, `polar differs by ${maxAbsDiff(fast, ref)}`);
    const utu = naive(n, n, n, fast, 1, n, fast);
    for (let i = 0; i < n; i++) utu[i * n + i]! -= 1;
    assert.ok(Math.max(...utu.map(Math.abs)) < 1e-6);
  });
});

function rows(n: number, d: number): Mat {
  return mat(n, d, Float32Array.from(gauss(n * d, 1 / Math.sqrt(d))));
}

/** Ridge by the textbook: centered normal equations in float64 with the plain Cholesky. */
function referenceRidge(x: Mat, y: Mat, alpha: number): Float64Array {
  const mx = columnMean(x);
  const my = columnMean(y);
  const dx = x.cols;
  const dy = y.cols;
  const xc = Float64Array.from(x.data, (v, i) => v - mx[i % dx]!);
  const yc = Float64Array.from(y.data, (v, i) => v - my[i % dy]!);
  const a = naive(dx, dx, x.rows, xc, 1, dx, xc);
  const c = naive(dx, dy, x.rows, xc, 1, dx, yc);
  let trace = 0;
  for (let i = 0; i < dx; i++) trace += a[i * dx + i]!;
  for (let i = 0; i < dx; i++) a[i * dx + i]! += alpha * (trace / dx);
  cholesky(a, dx);
  choleskySolve(a, dx, c, dy);
  return c;
}

describe('vec2vec fast linear fit', () => {
  it('ridge through the SIMD Gram matrices and blocked solve equals the textbook solve', () => {
    const x = rows(400, 40);
    const y = rows(400, 23);
    for (const alpha of [1e-4, 0.1]) {
      const got = fitRidge(x, y, alpha).weight;
      const want = referenceRidge(x, y, alpha);
      const scale = Math.max(...want.map(Math.abs));
      assert.ok(maxAbsDiff(got, want) < 1e-5 * scale, `alpha ${alpha}: ${maxAbsDiff(got, want)} (scale ${scale})`);
    }
  });

  it('the shared two-direction fit equals two separate fits (ridge and Procrustes)', () => {
    for (const [dx, dy] of [
      [30, 30],
      [36, 20],
    ] as const) {
      // Square: y is x plus noise (Procrustes has a chance); otherwise an unrelated random target.
      const related = (x: Mat) => mat(x.rows, dy, Float32Array.from({ length: x.rows * dy }, (_, i) => (dx === dy ? x.data[i]! : 0) + gaussian(random) * 0.1));
      const xt = rows(500, dx);
      const yt = related(xt);
      const xv = rows(120, dx);
      const yv = related(xv);
      const pair = fitLinearPair({ x: xt, y: yt }, { x: xv, y: yv });
      const f = fitLinearSelected({ x: xt, y: yt }, { x: xv, y: yv });
      const g = fitLinearSelected({ x: yt, y: xt }, { x: yv, y: xv });
      for (const [a, b] of [
        [pair.forward, f],
        [pair.backward, g],
      ] as const) {
        assert.equal(a.map.method, b.map.method);
        assert.equal(a.alpha, b.alpha);
        assert.equal(a.candidates.length, b.candidates.length);
        for (const [i, c] of a.candidates.entries()) assert.ok(Math.abs(c.loss - b.candidates[i]!.loss) < 1e-5 * Math.max(1, b.candidates[i]!.loss));
        assert.ok(maxAbsDiff(a.map.weight, b.map.weight) < 1e-4, `${dx}→${dy} weights differ by ${maxAbsDiff(a.map.weight, b.map.weight)}`);
      }
    }
  });

  it('translates a batch exactly like one vector at a time', () => {
    const map: LinearMap = { kind: 'linear', method: 'ridge', sourceDim: 33, targetDim: 18, weight: Float32Array.from(gauss(33 * 18)), bias: Float32Array.from(gauss(18)) };
    const x = rows(25, 33);
    const batch = translateVectors(map, Array.from({ length: 25 }, (_, i) => row(x, i)));
    for (let i = 0; i < 25; i++) assert.ok(maxAbsDiff(batch[i]!, translateVector(map, row(x, i))) < 1e-5);
    assert.throws(() => translateVectors(map, [new Float32Array(5)]), /dimensions/);
  });
});
