import { Workspace } from './kernels.ts';
import { affine, type Mat, mat, matmulAdd, normalizeInPlace } from './linalg.ts';

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

/**
 * A map's weights resident in their own WebAssembly memory, with input and output buffers, so one vector
 * costs one SIMD pass over the weights and no allocation. Built once per map (weights are immutable).
 */
class Resident {
  private readonly ws: Workspace;
  private readonly x: Float32Array;
  private readonly out: Float32Array;
  private readonly h: Float32Array | null;
  private readonly ptr: { x: number; w: number; out: number; w1: number; h: number };

  constructor(private readonly map: TranslationMap) {
    const lin = map.kind === 'linear' ? map : map.linear;
    const hidden = map.kind === 'neural' ? map.hidden : 0;
    const floats = lin.weight.length + map.sourceDim + map.targetDim + (map.kind === 'neural' ? map.w1.length + hidden : 0);
    this.ws = new Workspace(floats * 4 + 1024);
    const w = this.ws.put(lin.weight, 'f32');
    const w1 = map.kind === 'neural' ? this.ws.put(map.w1, 'f32') : 0;
    const x = this.ws.alloc(map.sourceDim * 4);
    const out = this.ws.alloc(map.targetDim * 4);
    const h = this.ws.alloc(hidden * 4);
    this.ptr = { x, w, out, w1, h };
    this.x = this.ws.f32(x, map.sourceDim);
    this.out = this.ws.f32(out, map.targetDim);
    this.h = hidden > 0 ? this.ws.f32(h, hidden) : null;
  }

  /** The raw image of `x` into `out`. */
  apply(x: ArrayLike<number>, out: Float32Array): Float32Array {
    const { map, ptr } = this;
    const din = map.sourceDim;
    const dout = map.targetDim;
    const lin = map.kind === 'linear' ? map : map.linear;
    this.x.set(x);
    this.out.set(lin.bias);
    this.ws.gemm('f32', 1, dout, din, ptr.x, din, 1, ptr.w, dout, ptr.out, dout);
    out.set(this.out);
    if (map.kind === 'neural' && this.h) {
      this.h.set(map.b1);
      this.ws.gemm('f32', 1, map.hidden, din, ptr.x, din, 1, ptr.w1, map.hidden, ptr.h, map.hidden);
      const h = this.h;
      for (let k = 0; k < map.hidden; k++) {
        const a = h[k]!;
        if (a <= 0) continue;
        const o = k * dout;
        for (let j = 0; j < dout; j++) out[j]! += a * map.w2[o + j]!;
      }
      for (let j = 0; j < dout; j++) out[j]! += map.b2[j]!;
    }
    return out;
  }
}

const resident = new WeakMap<TranslationMap, Resident>();
function residentOf(map: TranslationMap): Resident {
  let r = resident.get(map);
  if (!r) {
    r = new Resident(map);
    resident.set(map, r);
  }
  return r;
}

/** Translates one vector into the target space, L2-normalized like every stored embedding. */
export function translateVector(map: TranslationMap, x: ArrayLike<number>, out: Float32Array = new Float32Array(map.targetDim), _scratch?: Float32Array): Float32Array {
  if (x.length !== map.sourceDim) throw new Error(`vector has ${x.length} dimensions, the map expects ${map.sourceDim}`);
  return normalizeInPlace(residentOf(map).apply(x, out));
}

/** Translates many vectors at once (one SIMD matrix product), each L2-normalized; row i of the result is vectors[i]'s translation. */
export function translateVectors(map: TranslationMap, vectors: readonly ArrayLike<number>[]): Float32Array[] {
  vectors.forEach((v, i) => {
    if (v.length !== map.sourceDim) throw new Error(`vector ${i} has ${v.length} dimensions, the map expects ${map.sourceDim}`);
  });
  const x = mat(vectors.length, map.sourceDim);
  vectors.forEach((v, i) => {
    x.data.set(v, i * map.sourceDim);
  });
  const out = applyBatch(map, x);
  return vectors.map((_, i) => normalizeInPlace(out.data.slice(i * map.targetDim, (i + 1) * map.targetDim)));
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
