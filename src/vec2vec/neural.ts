import { accumulateOuter, backprop, type Mat, matmulAdd } from './linalg.ts';
import type { LinearMap, NeuralMap } from './map.ts';
import { meanSquaredError, translateRows } from './metrics.ts';
import { gaussian, seededRandom, shuffleInPlace } from './split.ts';

export interface NeuralOptions {
  readonly epochs: number;
  readonly learningRate: number;
  readonly hidden: number;
  readonly batchSize: number;
  /** Weight of the cycle terms ‖G(F(x)) − x‖² + ‖F(G(y)) − y‖² against the direct pair loss. */
  readonly cycleWeight: number;
  /** Share of each batch the cycle terms are computed on (they cost as much as the direct terms). */
  readonly cycleFraction: number;
  /** Epochs without improvement on the selection split before stopping. */
  readonly patience: number;
  readonly seed: number;
}

export const DEFAULT_NEURAL_OPTIONS: NeuralOptions = {
  epochs: 20,
  learningRate: 1e-3,
  hidden: 128,
  batchSize: 64,
  cycleWeight: 0.1,
  cycleFraction: 0.25,
  patience: 3,
  seed: 7,
};

/** Called between epochs with the fraction done; may throw (e.g. on abort) to stop training. */
export type EpochHook = (done: number, info: { epoch: number; valLoss: number }) => void | Promise<void>;

interface Net {
  readonly din: number;
  readonly dout: number;
  readonly h: number;
  readonly lin: LinearMap;
  /** w1, b1, w2, b2, in that order (Adam state is kept per tensor). */
  readonly params: [Float32Array, Float32Array, Float32Array, Float32Array];
  readonly grads: [Float32Array, Float32Array, Float32Array, Float32Array];
  readonly m: Float32Array[];
  readonly v: Float32Array[];
}

function newNet(lin: LinearMap, h: number, random: () => number): Net {
  const { sourceDim: din, targetDim: dout } = lin;
  const w1 = new Float32Array(din * h);
  const scale = Math.sqrt(2 / din);
  for (let i = 0; i < w1.length; i++) w1[i] = gaussian(random) * scale;
  // The residual branch starts at zero, so epoch 0 is exactly the linear map.
  const params: Net['params'] = [w1, new Float32Array(h), new Float32Array(h * dout), new Float32Array(dout)];
  const zeros = () => params.map((p) => new Float32Array(p.length));
  return { din, dout, h, lin, params, grads: zeros() as Net['grads'], m: zeros(), v: zeros() };
}

interface Cache {
  readonly x: Float32Array;
  readonly pre: Float32Array;
  readonly act: Float32Array;
  readonly out: Float32Array;
}

/** Forward for n rows; `linOut` is L(x) when already known (direct terms), else computed. */
function forward(net: Net, x: Float32Array, n: number, linOut?: Float32Array): Cache {
  const [w1, b1, w2, b2] = net.params;
  const out = new Float32Array(n * net.dout);
  if (linOut) out.set(linOut.subarray(0, n * net.dout));
  else matmulAdd(x, n, net.din, net.lin.weight, net.dout, net.lin.bias, out);
  const pre = new Float32Array(n * net.h);
  matmulAdd(x, n, net.din, w1, net.h, b1, pre);
  const act = new Float32Array(pre.length);
  for (let i = 0; i < pre.length; i++) act[i] = Math.max(pre[i]!, 0);
  const res = new Float32Array(n * net.dout);
  matmulAdd(act, n, net.h, w2, net.dout, b2, res);
  for (let i = 0; i < out.length; i++) out[i]! += res[i]!;
  return { x, pre, act, out };
}

/** Accumulates parameter gradients for dLoss/dOut; returns dLoss/dx when `wantInput`. */
function backward(net: Net, c: Cache, n: number, dOut: Float32Array, wantInput: boolean): Float32Array | null {
  const [w1, , w2] = net.params;
  const [g1, gb1, g2, gb2] = net.grads;
  accumulateOuter(c.act, n, net.h, dOut, net.dout, g2);
  for (let r = 0; r < n; r++) for (let j = 0; j < net.dout; j++) gb2[j]! += dOut[r * net.dout + j]!;
  const dAct = new Float32Array(n * net.h);
  backprop(dOut, n, net.dout, w2, net.h, dAct);
  for (let i = 0; i < dAct.length; i++) if (c.pre[i]! <= 0) dAct[i] = 0;
  accumulateOuter(c.x, n, net.din, dAct, net.h, g1);
  for (let r = 0; r < n; r++) for (let k = 0; k < net.h; k++) gb1[k]! += dAct[r * net.h + k]!;
  if (!wantInput) return null;
  const dx = new Float32Array(n * net.din);
  backprop(dAct, n, net.h, w1, net.din, dx);
  backprop(dOut, n, net.dout, net.lin.weight, net.din, dx, true);
  return dx;
}

/** d‖a − b‖²/da for n rows, scaled. */
function sqErrGrad(a: Float32Array, b: Float32Array, len: number, scale: number): Float32Array {
  const g = new Float32Array(len);
  for (let i = 0; i < len; i++) g[i] = 2 * scale * (a[i]! - b[i]!);
  return g;
}

function adamStep(net: Net, lr: number, t: number): void {
  const b1 = 0.9;
  const b2 = 0.999;
  const c1 = 1 - b1 ** t;
  const c2 = 1 - b2 ** t;
  net.params.forEach((p, k) => {
    const g = net.grads[k]!;
    const m = net.m[k]!;
    const v = net.v[k]!;
    for (let i = 0; i < p.length; i++) {
      const gi = g[i]!;
      m[i] = b1 * m[i]! + (1 - b1) * gi;
      v[i] = b2 * v[i]! + (1 - b2) * gi * gi;
      p[i]! -= (lr * (m[i]! / c1)) / (Math.sqrt(v[i]! / c2) + 1e-8);
    }
    g.fill(0);
  });
}

function toMap(net: Net): NeuralMap {
  const [w1, b1, w2, b2] = net.params;
  return {
    kind: 'neural',
    sourceDim: net.din,
    targetDim: net.dout,
    hidden: net.h,
    linear: net.lin,
    w1: Float32Array.from(w1),
    b1: Float32Array.from(b1),
    w2: Float32Array.from(w2),
    b2: Float32Array.from(b2),
  };
}

function gather(m: Mat, idx: readonly number[], from: number, to: number, out: Float32Array): Float32Array {
  for (let r = from; r < to; r++) out.set(m.data.subarray(idx[r]! * m.cols, (idx[r]! + 1) * m.cols), (r - from) * m.cols);
  return out;
}

export interface NeuralFit {
  readonly forward: NeuralMap;
  readonly backward: NeuralMap;
  readonly epochsRun: number;
  readonly bestEpoch: number;
  /** Selection-split loss of F plus G after each epoch (index 0 = the linear start). */
  readonly valLoss: readonly number[];
}

/**
 * Trains residual MLPs F (x → y) and G (y → x) jointly with Adam on the direct pair loss plus the cycle
 * loss, starting from the given linear maps, and early-stops on the served loss of F and G on `val`.
 * Returns the best epoch's weights.
 */
export async function trainNeuralPair(
  train: { x: Mat; y: Mat },
  val: { x: Mat; y: Mat },
  linF: LinearMap,
  linG: LinearMap,
  options: Partial<NeuralOptions> = {},
  onEpoch?: EpochHook,
  /** Awaited every few batches so a caller can yield to its event loop or abort. */
  onTick?: () => void | Promise<void>,
): Promise<NeuralFit> {
  const o = { ...DEFAULT_NEURAL_OPTIONS, ...options };
  const random = seededRandom(o.seed);
  const f = newNet(linF, o.hidden, random);
  const g = newNet(linG, o.hidden, random);
  const dx = train.x.cols;
  const dy = train.y.cols;
  const n = train.x.rows;
  // L(x) and L'(y) of the training rows never change: compute them once.
  const linFx = new Float32Array(n * dy);
  matmulAdd(train.x.data, n, dx, linF.weight, dy, linF.bias, linFx);
  const linGy = new Float32Array(n * dx);
  matmulAdd(train.y.data, n, dy, linG.weight, dx, linG.bias, linGy);
  const valLossOf = () => meanSquaredError(translateRows(toMap(f), val.x), val.y) + meanSquaredError(translateRows(toMap(g), val.y), val.x);

  const history = [valLossOf()];
  let best = { loss: history[0]!, epoch: 0, f: toMap(f), g: toMap(g) };
  const order = Array.from({ length: n }, (_, i) => i);
  const bs = Math.max(1, o.batchSize);
  const xb = new Float32Array(bs * dx);
  const yb = new Float32Array(bs * dy);
  const lfb = new Float32Array(bs * dy);
  const lgb = new Float32Array(bs * dx);
  let step = 0;
  let epoch = 0;
  for (epoch = 1; epoch <= o.epochs; epoch++) {
    shuffleInPlace(order, random);
    for (let s = 0; s < n; s += bs) {
      const e = Math.min(n, s + bs);
      const b = e - s;
      gather(train.x, order, s, e, xb);
      gather(train.y, order, s, e, yb);
      gather({ rows: n, cols: dy, data: linFx }, order, s, e, lfb);
      gather({ rows: n, cols: dx, data: linGy }, order, s, e, lgb);
      const fx = forward(f, xb, b, lfb);
      const gy = forward(g, yb, b, lgb);
      const dFx = sqErrGrad(fx.out, yb, b * dy, 1 / b);
      const dGy = sqErrGrad(gy.out, xb, b * dx, 1 / b);
      const nc = o.cycleWeight > 0 ? Math.max(1, Math.round(b * o.cycleFraction)) : 0;
      if (nc > 0) {
        // x → F → G ≈ x: gradient flows through G into F's output.
        const gfx = forward(g, fx.out, nc);
        const dIn = backward(g, gfx, nc, sqErrGrad(gfx.out, xb, nc * dx, o.cycleWeight / nc), true)!;
        for (let i = 0; i < nc * dy; i++) dFx[i]! += dIn[i]!;
        // y → G → F ≈ y.
        const fgy = forward(f, gy.out, nc);
        const dIn2 = backward(f, fgy, nc, sqErrGrad(fgy.out, yb, nc * dy, o.cycleWeight / nc), true)!;
        for (let i = 0; i < nc * dx; i++) dGy[i]! += dIn2[i]!;
      }
      backward(f, fx, b, dFx, false);
      backward(g, gy, b, dGy, false);
      step++;
      adamStep(f, o.learningRate, step);
      adamStep(g, o.learningRate, step);
      if (onTick && step % 8 === 0) await onTick();
    }
    const loss = valLossOf();
    history.push(loss);
    if (loss < best.loss) best = { loss, epoch, f: toMap(f), g: toMap(g) };
    await onEpoch?.(epoch / o.epochs, { epoch, valLoss: loss });
    if (epoch - best.epoch >= o.patience) break;
  }
  return { forward: best.f, backward: best.g, epochsRun: Math.min(epoch, o.epochs), bestEpoch: best.epoch, valLoss: history };
}
