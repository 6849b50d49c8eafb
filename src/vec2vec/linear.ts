import { withWorkspace } from './kernels.ts';
import { columnMean, type Mat } from './linalg.ts';
import type { LinearMap } from './map.ts';
import { meanSquaredError, translateRows } from './metrics.ts';
import { choleskyBlocked, choleskySolveBlocked, crossGemm, polarFactorFast } from './solve.ts';

/** Ridge strengths tried, as multiples of the mean eigenvalue of the centered Gram matrix. */
export const DEFAULT_RIDGE_ALPHAS = [1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.3, 1] as const;

/** Centered second moments of a training set, kept so a refit on more rows costs no second pass. */
interface Moments {
  readonly n: number;
  readonly shiftX: Float64Array;
  readonly shiftY: Float64Array;
  readonly meanX: Float64Array;
  readonly meanY: Float64Array;
  /** Σ (x − shiftX)(x − shiftX)ᵀ and Σ (x − shiftX)(y − shiftY)ᵀ. */
  readonly xx: Float64Array;
  readonly xy: Float64Array;
}

/** Second moments of both sides of a pair set: one pass gives F's and G's (G's cross term is F's transposed). */
interface PairMoments extends Moments {
  /** Σ (y − shiftY)(y − shiftY)ᵀ. */
  readonly yy: Float64Array;
}

/** Σ over rows of the shifted outer products, as float64 SIMD matrix products (Gram halves mirrored). */
function pairMoments(x: Mat, y: Mat, shiftX = columnMean(x), shiftY = columnMean(y)): PairMoments {
  const n = x.rows;
  const dx = x.cols;
  const dy = y.cols;
  const bytes = 8 * (n * (dx + dy) + dx * dx + dy * dy + dx * dy);
  const out = withWorkspace(bytes, (ws) => {
    const shifted = (m: Mat, shift: Float64Array) => {
      const ptr = ws.alloc(m.data.length * 8);
      const v = ws.f64(ptr, m.data.length);
      const d = m.cols;
      for (let r = 0; r < m.rows; r++) for (let j = 0; j < d; j++) v[r * d + j] = m.data[r * d + j]! - shift[j]!;
      return ptr;
    };
    const xp = shifted(x, shiftX);
    const yp = shifted(y, shiftY);
    const zero = (len: number) => {
      const ptr = ws.alloc(len * 8);
      ws.f64(ptr, len).fill(0);
      return ptr;
    };
    const xx = zero(dx * dx);
    const yy = zero(dy * dy);
    const xy = zero(dx * dy);
    crossGemm(ws, xp, xp, n, dx, dx, xx, true);
    crossGemm(ws, yp, yp, n, dy, dy, yy, true);
    crossGemm(ws, xp, yp, n, dx, dy, xy, false);
    return { xx: ws.f64(xx, dx * dx).slice(), yy: ws.f64(yy, dy * dy).slice(), xy: ws.f64(xy, dx * dy).slice() };
  });
  return { n, shiftX, shiftY, meanX: columnMean(x), meanY: columnMean(y), ...out };
}

function forwardMoments(p: PairMoments): Moments {
  return { n: p.n, shiftX: p.shiftX, shiftY: p.shiftY, meanX: p.meanX, meanY: p.meanY, xx: p.xx, xy: p.xy };
}

function backwardMoments(p: PairMoments): Moments {
  const dx = p.meanX.length;
  const dy = p.meanY.length;
  const yx = new Float64Array(dy * dx);
  for (let i = 0; i < dx; i++) for (let j = 0; j < dy; j++) yx[j * dx + i] = p.xy[i * dy + j]!;
  return { n: p.n, shiftX: p.shiftY, shiftY: p.shiftX, meanX: p.meanY, meanY: p.meanX, xx: p.yy, xy: yx };
}

function moments(x: Mat, y: Mat, shiftX = columnMean(x), shiftY = columnMean(y)): Moments {
  return forwardMoments(pairMoments(x, y, shiftX, shiftY));
}

/** Adds two moment sets computed with the same shifts. */
function combine(a: Moments, b: Moments): Moments {
  const n = a.n + b.n;
  const meanX = a.meanX.map((v, i) => (v * a.n + b.meanX[i]! * b.n) / n);
  const meanY = a.meanY.map((v, i) => (v * a.n + b.meanY[i]! * b.n) / n);
  return { n, shiftX: a.shiftX, shiftY: a.shiftY, meanX, meanY, xx: a.xx.map((v, i) => v + b.xx[i]!), xy: a.xy.map((v, i) => v + b.xy[i]!) };
}

/** The centered Gram and cross matrices (around the true means) from shifted sums. */
// Computed once per moment set (λ selection solves the same centered system up to 8 times). Callers copy.
const centeredCache = new WeakMap<Moments, { a: Float64Array; c: Float64Array }>();
function centered(m: Moments): { a: Float64Array; c: Float64Array } {
  let hit = centeredCache.get(m);
  if (!hit) {
    hit = centeredOnce(m);
    centeredCache.set(m, hit);
  }
  return hit;
}

function centeredOnce(m: Moments): { a: Float64Array; c: Float64Array } {
  const dx = m.meanX.length;
  const dy = m.meanY.length;
  const ex = m.meanX.map((v, i) => v - m.shiftX[i]!);
  const ey = m.meanY.map((v, i) => v - m.shiftY[i]!);
  const a = Float64Array.from(m.xx);
  const c = Float64Array.from(m.xy);
  for (let i = 0; i < dx; i++) {
    for (let j = 0; j < dx; j++) a[i * dx + j]! -= m.n * ex[i]! * ex[j]!;
    for (let j = 0; j < dy; j++) c[i * dy + j]! -= m.n * ex[i]! * ey[j]!;
  }
  return { a, c };
}

function toMap(method: LinearMap['method'], w: Float64Array, meanX: Float64Array, meanY: Float64Array): LinearMap {
  const dx = meanX.length;
  const dy = meanY.length;
  const bias = new Float32Array(dy);
  for (let j = 0; j < dy; j++) {
    let s = meanY[j]!;
    for (let i = 0; i < dx; i++) s -= meanX[i]! * w[i * dy + j]!;
    bias[j] = s;
  }
  return { kind: 'linear', method, sourceDim: dx, targetDim: dy, weight: Float32Array.from(w), bias };
}

function solveRidge(m: Moments, alpha: number): LinearMap {
  const { a, c } = centered(m);
  const dx = m.meanX.length;
  let trace = 0;
  for (let i = 0; i < dx; i++) trace += a[i * dx + i]!;
  const lambda = Math.max(alpha * (trace / dx), 1e-9);
  const dy = m.meanY.length;
  const w = withWorkspace(8 * (dx * dx + dx * dy + 128 * dx), (ws) => {
    const ap = ws.put(a, 'f64');
    const av = ws.f64(ap, dx * dx);
    for (let i = 0; i < dx; i++) av[i * dx + i]! += lambda;
    const cp = ws.put(c, 'f64');
    choleskyBlocked(ws, ap, dx);
    choleskySolveBlocked(ws, ap, dx, cp, dy);
    return ws.f64(cp, dx * dy).slice();
  });
  return toMap('ridge', w, m.meanX, m.meanY);
}

/** Closed-form ridge regression y ≈ x·W + b with a fixed strength (multiple of the mean eigenvalue). */
export function fitRidge(x: Mat, y: Mat, alpha: number): LinearMap {
  return solveRidge(moments(x, y), alpha);
}

/** Orthogonal Procrustes: W = argmin ‖X̃W − Ỹ‖ over orthogonal W (centered data); needs equal dimensions. */
export function fitProcrustes(x: Mat, y: Mat): LinearMap {
  if (x.cols !== y.cols) throw new Error('Procrustes needs equal dimensions');
  return procrustesOf(moments(x, y));
}

function procrustesOf(m: Moments): LinearMap {
  const { c } = centered(m);
  const n = m.meanX.length;
  return toMap('procrustes', withWorkspace(8 * 5 * n * n, (ws) => polarFactorFast(ws, c, n)), m.meanX, m.meanY);
}

/** Procrustes for G from F's: the polar factor of Cᵀ is the polar factor of C, transposed. */
function transposedProcrustes(f: LinearMap, m: Moments): LinearMap {
  const n = f.sourceDim;
  const w = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) w[j * n + i] = f.weight[i * n + j]!;
  return toMap('procrustes', w, m.meanX, m.meanY);
}

export interface LinearFit {
  /** The chosen candidate refitted on train + selection rows. */
  readonly map: LinearMap;
  /** The chosen candidate as fitted on the training rows only (a fair start for a model early-stopped on selection). */
  readonly trainOnly: LinearMap;
  /** The ridge strength chosen (null for Procrustes). */
  readonly alpha: number | null;
  /** Served loss on the selection split for each candidate tried. */
  readonly candidates: readonly { readonly method: LinearMap['method']; readonly alpha: number | null; readonly loss: number }[];
}

/** λ selection (and Procrustes) for one direction from its train and selection moments. */
function selectDirection(
  mTrain: Moments,
  mVal: Moments,
  val: { x: Mat; y: Mat },
  alphas: readonly number[],
  procrustes: (() => LinearMap) | null,
): LinearFit {
  const candidates: { method: LinearMap['method']; alpha: number | null; loss: number }[] = [];
  let best: { map: LinearMap; alpha: number | null; loss: number } | null = null;
  for (const alpha of alphas) {
    const map = solveRidge(mTrain, alpha);
    const loss = meanSquaredError(translateRows(map, val.x), val.y);
    candidates.push({ method: 'ridge', alpha, loss });
    if (!best || loss < best.loss) best = { map, alpha, loss };
  }
  if (!best) throw new Error('no ridge strength to try');
  let orth: { map: LinearMap; loss: number } | null = null;
  if (procrustes) {
    const map = procrustes();
    const loss = meanSquaredError(translateRows(map, val.x), val.y);
    candidates.push({ method: 'procrustes', alpha: null, loss });
    orth = { map, loss };
  }
  if (orth && orth.loss < best.loss) return { map: orth.map, trainOnly: orth.map, alpha: null, candidates };
  return { map: solveRidge(combine(mTrain, mVal), best.alpha ?? 0), trainOnly: best.map, alpha: best.alpha, candidates };
}

/**
 * Fits ridge for each alpha on `train`, picks the one with the lowest served loss on `val`, then refits
 * it on train + val. Where dimensions match, Procrustes competes too and wins if it measures better.
 */
export function fitLinearSelected(train: { x: Mat; y: Mat }, val: { x: Mat; y: Mat }, alphas: readonly number[] = DEFAULT_RIDGE_ALPHAS): LinearFit {
  const mTrain = moments(train.x, train.y);
  const mVal = moments(val.x, val.y, mTrain.shiftX, mTrain.shiftY);
  return selectDirection(mTrain, mVal, val, alphas, train.x.cols === train.y.cols ? () => procrustesOf(mTrain) : null);
}

/**
 * `fitLinearSelected` for both directions (F: x → y, G: y → x) with the shared work done once: one pass
 * for XᵀX, YᵀY and XᵀY, and one polar factor for both Procrustes candidates.
 */
export function fitLinearPair(
  train: { x: Mat; y: Mat },
  val: { x: Mat; y: Mat },
  alphas: readonly number[] = DEFAULT_RIDGE_ALPHAS,
  between?: () => void,
): { forward: LinearFit; backward: LinearFit } {
  const pTrain = pairMoments(train.x, train.y);
  const pVal = pairMoments(val.x, val.y, pTrain.shiftX, pTrain.shiftY);
  const square = train.x.cols === train.y.cols;
  const fTrain = forwardMoments(pTrain);
  const gTrain = backwardMoments(pTrain);
  let fProcrustes: LinearMap | null = null;
  const forward = selectDirection(fTrain, forwardMoments(pVal), val, alphas, square ? () => (fProcrustes = procrustesOf(fTrain)) : null);
  between?.();
  const backward = selectDirection(
    gTrain,
    backwardMoments(pVal),
    { x: val.y, y: val.x },
    alphas,
    square ? () => transposedProcrustes(fProcrustes ?? procrustesOf(fTrain), gTrain) : null,
  );
  return { forward, backward };
}
