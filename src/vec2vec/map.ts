import { affine, affineT, type Mat, mat, matmulAdd, normalizeInPlace, transpose } from './linalg.ts';

/** y = x·W + b, fitted by ridge regression or orthogonal Procrustes (W is sourceDim×targetDim). */
export interface LinearMap {
  readonly kind: 'linear';
  readonly method: 'ridge' | 'procrustes';
  readonly sourceDim: number;
  readonly targetDim: number;
  readonly weight: Float32Array;
  readonly bias: Float32Array;
}

/** y = L(x) + W₂·relu(W₁x + b₁) + b₂: a residual MLP on top of a frozen linear map. */
export interface NeuralMap {
  readonly kind: 'neural';
  readonly sourceDim: number;
  readonly targetDim: number;
  readonly hidden: number;
  readonly linear: LinearMap;
  readonly w1: Float32Array;
  readonly b1: Float32Array;
  readonly w2: Float32Array;
  readonly b2: Float32Array;
}

export type TranslationMap = LinearMap | NeuralMap;

/** The raw image of `x` (not normalized). `scratch` must hold `hidden` values for a neural map. */
export function applyRaw(map: TranslationMap, x: ArrayLike<number>, out: Float32Array = new Float32Array(map.targetDim), scratch?: Float32Array): Float32Array {
  if (map.kind === 'linear') return affine(x, map.weight, map.bias, map.sourceDim, map.targetDim, out);
  affine(x, map.linear.weight, map.linear.bias, map.sourceDim, map.targetDim, out);
  const h = affine(x, map.w1, map.b1, map.sourceDim, map.hidden, scratch ?? new Float32Array(map.hidden));
  for (let k = 0; k < map.hidden; k++) {
    const a = h[k]!;
    if (a <= 0) continue;
    const o = k * map.targetDim;
    for (let j = 0; j < map.targetDim; j++) out[j]! += a * map.w2[o + j]!;
  }
  for (let j = 0; j < map.targetDim; j++) out[j]! += map.b2[j]!;
  return out;
}

// Transposed weights for the single-vector path, computed once per weight array.
const transposed = new WeakMap<Float32Array, Float32Array>();
function transposedOf(w: Float32Array, rows: number, cols: number): Float32Array {
  let t = transposed.get(w);
  if (!t) {
    t = transpose(w, rows, cols);
    transposed.set(w, t);
  }
  return t;
}

/** Translates one vector into the target space, L2-normalized like every stored embedding. */
export function translateVector(map: TranslationMap, x: ArrayLike<number>, out: Float32Array = new Float32Array(map.targetDim), scratch?: Float32Array): Float32Array {
  if (x.length !== map.sourceDim) throw new Error(`vector has ${x.length} dimensions, the map expects ${map.sourceDim}`);
  const xv = x instanceof Float32Array ? x : Float32Array.from(x);
  const lin = map.kind === 'linear' ? map : map.linear;
  affineT(xv, transposedOf(lin.weight, map.sourceDim, map.targetDim), lin.bias, map.sourceDim, map.targetDim, out);
  if (map.kind === 'neural') {
    const h = affineT(xv, transposedOf(map.w1, map.sourceDim, map.hidden), map.b1, map.sourceDim, map.hidden, scratch ?? new Float32Array(map.hidden));
    for (let k = 0; k < map.hidden; k++) {
      const a = h[k]!;
      if (a <= 0) continue;
      const o = k * map.targetDim;
      for (let j = 0; j < map.targetDim; j++) out[j]! += a * map.w2[o + j]!;
    }
    for (let j = 0; j < map.targetDim; j++) out[j]! += map.b2[j]!;
  }
  return normalizeInPlace(out);
}

/** Raw images of every row of `x`. */
export function applyBatch(map: TranslationMap, x: Mat): Mat {
  const out = new Float32Array(x.rows * map.targetDim);
  if (map.kind === 'linear') {
    matmulAdd(x.data, x.rows, x.cols, map.weight, map.targetDim, map.bias, out);
    return mat(x.rows, map.targetDim, out);
  }
  matmulAdd(x.data, x.rows, x.cols, map.linear.weight, map.targetDim, map.linear.bias, out);
  const h = new Float32Array(x.rows * map.hidden);
  matmulAdd(x.data, x.rows, x.cols, map.w1, map.hidden, map.b1, h);
  for (let i = 0; i < h.length; i++) if (h[i]! < 0) h[i] = 0;
  const res = new Float32Array(x.rows * map.targetDim);
  matmulAdd(h, x.rows, map.hidden, map.w2, map.targetDim, map.b2, res);
  for (let i = 0; i < out.length; i++) out[i]! += res[i]!;
  return mat(x.rows, map.targetDim, out);
}

export function parameterCount(map: TranslationMap): number {
  const lin = (m: LinearMap) => m.weight.length + m.bias.length;
  if (map.kind === 'linear') return lin(map);
  return lin(map.linear) + map.w1.length + map.b1.length + map.w2.length + map.b2.length;
}
