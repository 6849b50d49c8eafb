import { matmulF32 } from './kernels.ts';
import { dot, type Mat, normalizeRows, row } from './linalg.ts';
import { applyBatch, type TranslationMap } from './map.ts';

/** How well one direction (F: source → target) does on pairs it never saw. */
export interface DirectionMetrics {
  /** clamp01(1 − loss(F(x), y) / loss(mean target, y)) on held-out pairs. */
  readonly confidence: number;
  /** Mean ‖F(x) − y‖² of the served (normalized) translation. */
  readonly loss: number;
  /** Mean ‖ȳ − y‖² of always answering the mean held-out target. */
  readonly baseline_loss: number;
  readonly mean_cosine: number;
  /** Mean cosine of the mean-target baseline: how much of `mean_cosine` any constant gets for free. */
  readonly baseline_mean_cosine: number;
  /** Share of held-out x whose translation's nearest held-out target (by cosine) is its own y. */
  readonly top1_accuracy: number;
  /** How many held-out targets top-1 chose among. */
  readonly candidates: number;
}

export function clamp01(v: number): number {
  return Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
}

/** Served translations of every row (raw image, then L2-normalized). */
export function translateRows(map: TranslationMap, x: Mat): Mat {
  return normalizeRows(applyBatch(map, x));
}

/** Mean squared row distance between two equally shaped matrices. */
export function meanSquaredError(a: Mat, b: Mat): number {
  let s = 0;
  for (let i = 0; i < a.data.length; i++) {
    const d = a.data[i]! - b.data[i]!;
    s += d * d;
  }
  return s / Math.max(1, a.rows);
}

/** Top-1 accuracy of retrieving y_i for prediction p_i among the first `limit` targets (cosine). */
export function top1Accuracy(pred: Mat, target: Mat, limit = 1000): { accuracy: number; candidates: number } {
  const n = Math.min(pred.rows, target.rows, limit);
  if (n === 0) return { accuracy: 0, candidates: 0 };
  const norms = new Float64Array(n);
  for (let j = 0; j < n; j++) norms[j] = Math.sqrt(dot(row(target, j), row(target, j))) || 1;
  // All n×n scores in one SIMD product: pred (n×d) · targetᵀ (d×n).
  const d = target.cols;
  const tt = new Float32Array(d * n);
  for (let j = 0; j < n; j++) for (let k = 0; k < d; k++) tt[k * n + j] = target.data[j * d + k]!;
  const scores = new Float32Array(n * n);
  matmulF32(pred.data.subarray(0, n * pred.cols), n, d, tt, n, null, scores);
  let hits = 0;
  for (let i = 0; i < n; i++) {
    let best = -1;
    let bestScore = -Infinity;
    for (let j = 0; j < n; j++) {
      const s = scores[i * n + j]! / norms[j]!;
      if (s > bestScore) {
        bestScore = s;
        best = j;
      }
    }
    if (best === i) hits++;
  }
  return { accuracy: hits / n, candidates: n };
}

function meanCosine(a: Mat, b: Mat): number {
  let s = 0;
  for (let i = 0; i < a.rows; i++) {
    const x = row(a, i);
    const y = row(b, i);
    const d = Math.sqrt(dot(x, x) * dot(y, y));
    s += d > 0 ? dot(x, y) / d : 0;
  }
  return s / Math.max(1, a.rows);
}

/** Scores F on held-out pairs (x, y): the honest confidence, cosine and top-1 retrieval. */
export function evaluateDirection(map: TranslationMap, x: Mat, y: Mat, maxCandidates = 1000): DirectionMetrics {
  const pred = translateRows(map, x);
  const loss = meanSquaredError(pred, y);
  const mean = new Float32Array(y.cols);
  for (let r = 0; r < y.rows; r++) for (let j = 0; j < y.cols; j++) mean[j]! += y.data[r * y.cols + j]! / y.rows;
  let baseline = 0;
  let baseCos = 0;
  const meanNorm = Math.sqrt(dot(mean, mean));
  for (let r = 0; r < y.rows; r++) {
    const yr = row(y, r);
    for (let j = 0; j < y.cols; j++) baseline += (mean[j]! - yr[j]!) ** 2;
    const yn = Math.sqrt(dot(yr, yr));
    baseCos += meanNorm > 0 && yn > 0 ? dot(mean, yr) / (meanNorm * yn) : 0;
  }
  baseline /= Math.max(1, y.rows);
  const top = top1Accuracy(pred, y, maxCandidates);
  return {
    confidence: baseline > 0 ? clamp01(1 - loss / baseline) : 0,
    loss,
    baseline_loss: baseline,
    mean_cosine: meanCosine(pred, y),
    baseline_mean_cosine: baseCos / Math.max(1, y.rows),
    top1_accuracy: top.accuracy,
    candidates: top.candidates,
  };
}

/**
 * The spec's cycle loss on held-out pairs: mean over pairs of ‖x − G(F(x))‖² + ‖y − F(G(y))‖², with
 * served (normalized) translations. Reported, never used as confidence: any invertible F with G = F⁻¹
 * has zero cycle loss however wrong F is.
 */
export function cycleLoss(forward: TranslationMap, backward: TranslationMap, x: Mat, y: Mat): number {
  const xBack = translateRows(backward, translateRows(forward, x));
  const yBack = translateRows(forward, translateRows(backward, y));
  return meanSquaredError(xBack, x) + meanSquaredError(yBack, y);
}
