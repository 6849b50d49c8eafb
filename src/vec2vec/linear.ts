import { choleskySolve, cholesky, columnMean, crossProducts, type Mat, polarFactor } from './linalg.ts';
import type { LinearMap } from './map.ts';
import { meanSquaredError, translateRows } from './metrics.ts';

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

function moments(x: Mat, y: Mat, shiftX = columnMean(x), shiftY = columnMean(y)): Moments {
  const { xx, xy } = crossProducts(x, y, shiftX, shiftY);
  return { n: x.rows, shiftX, shiftY, meanX: columnMean(x), meanY: columnMean(y), xx, xy };
}

/** Adds two moment sets computed with the same shifts. */
function combine(a: Moments, b: Moments): Moments {
  const n = a.n + b.n;
  const meanX = a.meanX.map((v, i) => (v * a.n + b.meanX[i]! * b.n) / n);
  const meanY = a.meanY.map((v, i) => (v * a.n + b.meanY[i]! * b.n) / n);
  return { n, shiftX: a.shiftX, shiftY: a.shiftY, meanX, meanY, xx: a.xx.map((v, i) => v + b.xx[i]!), xy: a.xy.map((v, i) => v + b.xy[i]!) };
}

/** The centered Gram and cross matrices (around the true means) from shifted sums. */
function centered(m: Moments): { a: Float64Array; c: Float64Array } {
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
  for (let i = 0; i < dx; i++) a[i * dx + i]! += lambda;
  cholesky(a, dx);
  choleskySolve(a, dx, c, m.meanY.length);
  return toMap('ridge', c, m.meanX, m.meanY);
}

/** Closed-form ridge regression y ≈ x·W + b with a fixed strength (multiple of the mean eigenvalue). */
export function fitRidge(x: Mat, y: Mat, alpha: number): LinearMap {
  return solveRidge(moments(x, y), alpha);
}

/** Orthogonal Procrustes: W = argmin ‖X̃W − Ỹ‖ over orthogonal W (centered data); needs equal dimensions. */
export function fitProcrustes(x: Mat, y: Mat): LinearMap {
  if (x.cols !== y.cols) throw new Error('Procrustes needs equal dimensions');
  const { c } = centered(moments(x, y));
  const meanX = columnMean(x);
  const meanY = columnMean(y);
  return toMap('procrustes', polarFactor(c, x.cols), meanX, meanY);
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

/**
 * Fits ridge for each alpha on `train`, picks the one with the lowest served loss on `val`, then refits
 * it on train + val. Where dimensions match, Procrustes competes too and wins if it measures better.
 */
export function fitLinearSelected(train: { x: Mat; y: Mat }, val: { x: Mat; y: Mat }, alphas: readonly number[] = DEFAULT_RIDGE_ALPHAS): LinearFit {
  const mTrain = moments(train.x, train.y);
  const candidates: { method: LinearMap['method']; alpha: number | null; loss: number }[] = [];
  let best: { map: LinearMap; alpha: number | null; loss: number } | null = null;
  for (const alpha of alphas) {
    const map = solveRidge(mTrain, alpha);
    const loss = meanSquaredError(translateRows(map, val.x), val.y);
    candidates.push({ method: 'ridge', alpha, loss });
    if (!best || loss < best.loss) best = { map, alpha, loss };
  }
  if (!best) throw new Error('no ridge strength to try');
  let procrustes: { map: LinearMap; loss: number } | null = null;
  if (train.x.cols === train.y.cols) {
    const map = fitProcrustes(train.x, train.y);
    const loss = meanSquaredError(translateRows(map, val.x), val.y);
    candidates.push({ method: 'procrustes', alpha: null, loss });
    procrustes = { map, loss };
  }
  if (procrustes && procrustes.loss < best.loss) return { map: procrustes.map, trainOnly: procrustes.map, alpha: null, candidates };
  const all = combine(mTrain, moments(val.x, val.y, mTrain.shiftX, mTrain.shiftY));
  return { map: solveRidge(all, best.alpha ?? 0), trainOnly: best.map, alpha: best.alpha, candidates };
}
