import { type Mat, takeRows } from './linalg.ts';
import { DEFAULT_RIDGE_ALPHAS, fitLinearPair, type LinearFit } from './linear.ts';
import type { TranslationMap } from './map.ts';
import { cycleLoss, type DirectionMetrics, evaluateDirection, meanSquaredError, translateRows } from './metrics.ts';
import { DEFAULT_NEURAL_OPTIONS, type NeuralOptions, trainNeuralPair } from './neural.ts';
import { splitByHash } from './split.ts';

export interface TrainConfig extends NeuralOptions {
  readonly useNeural: boolean;
  /** Share of pairs held out (by text hash) for the reported metrics; the same share of the rest selects λ and stops training. */
  readonly validationSplit: number;
  /** Top-1 accuracy is measured among at most this many held-out targets. */
  readonly maxCandidates: number;
  readonly alphas: readonly number[];
}

export const DEFAULT_TRAIN_CONFIG: TrainConfig = {
  ...DEFAULT_NEURAL_OPTIONS,
  useNeural: false,
  validationSplit: 0.1,
  maxCandidates: 1000,
  alphas: DEFAULT_RIDGE_ALPHAS,
};

export interface PairMetrics {
  readonly kind: 'linear' | 'neural';
  readonly forward: DirectionMetrics;
  readonly backward: DirectionMetrics;
  /** Mean over held-out pairs of ‖x − G(F(x))‖² + ‖y − F(G(y))‖². */
  readonly cycle_loss: number;
  readonly sample_count: number;
  readonly train_count: number;
  readonly selection_count: number;
  readonly held_out_count: number;
  readonly linear: { readonly forward: LinearSummary; readonly backward: LinearSummary };
  readonly neural: { readonly epochs_run: number; readonly best_epoch: number; readonly selection_loss: readonly number[]; readonly forward_used: boolean; readonly backward_used: boolean } | null;
  readonly train_seconds: number;
}

interface LinearSummary {
  readonly method: 'ridge' | 'procrustes';
  readonly alpha: number | null;
}

export interface TrainedPair {
  /** source → target */
  readonly forward: TranslationMap;
  /** target → source */
  readonly backward: TranslationMap;
  readonly metrics: PairMetrics;
}

export interface TrainHooks {
  /** Fraction of training done (0..1). */
  readonly onProgress?: (done: number) => void | Promise<void>;
  /** Awaited often during long loops: yield to the event loop, throw to abort. */
  readonly onTick?: () => void | Promise<void>;
  /** Neural mode: after each epoch, its selection-split loss (mean squared error of F plus G). */
  readonly onEpoch?: (epoch: number, loss: number) => void;
}

const summary = (fit: LinearFit): LinearSummary => ({ method: fit.map.method, alpha: fit.alpha });

/**
 * Fits F (source → target) and G (target → source) on parallel embeddings of the same texts.
 * Pairs are split by text hash into train / selection / held-out; λ (and Procrustes) and early stopping
 * use the selection split; every reported metric is measured on held-out pairs no fit has seen.
 */
export async function trainTranslationPair(
  texts: readonly string[],
  source: Mat,
  target: Mat,
  config: Partial<TrainConfig> = {},
  hooks: TrainHooks = {},
): Promise<TrainedPair> {
  const c = { ...DEFAULT_TRAIN_CONFIG, ...config };
  if (source.rows !== texts.length || target.rows !== texts.length) throw new Error('texts, source and target must have one row per text');
  const started = performance.now();
  const outer = splitByHash(texts, c.validationSplit, c.seed);
  const trainTexts = outer.train.map((i) => texts[i]!);
  const inner = splitByHash(trainTexts, c.validationSplit, c.seed + 101);
  const trainIdx = inner.train.map((i) => outer.train[i]!);
  const selIdx = inner.heldOut.map((i) => outer.train[i]!);
  if (outer.heldOut.length < 2 || selIdx.length < 2 || trainIdx.length < 2) {
    throw new Error(`too few pairs to split: ${texts.length} pairs give ${trainIdx.length} train, ${selIdx.length} selection, ${outer.heldOut.length} held-out`);
  }
  const part = (idx: number[]) => ({ x: takeRows(source, idx), y: takeRows(target, idx) });
  const tr = part(trainIdx);
  const sel = part(selIdx);
  const test = part(outer.heldOut);
  await hooks.onTick?.();
  // Both directions in one call: the Gram matrices and the Procrustes polar factor are shared.
  const { forward: linF, backward: linG } = fitLinearPair(tr, sel, c.alphas, () => void hooks.onProgress?.(c.useNeural ? 0.1 : 0.45));
  await hooks.onProgress?.(c.useNeural ? 0.2 : 0.9);
  let forward: TranslationMap = linF.map;
  let backward: TranslationMap = linG.map;
  let neural: PairMetrics['neural'] = null;
  if (c.useNeural) {
    // The MLP starts from the linear fits on the training rows only, so the selection split stays unseen.
    const fit = await trainNeuralPair(
      tr,
      sel,
      linF.trainOnly,
      linG.trainOnly,
      c,
      (done, info) => {
        hooks.onEpoch?.(info.epoch, info.valLoss);
        return hooks.onProgress?.(0.2 + 0.75 * done);
      },
      hooks.onTick,
    );
    // Keep a direction's MLP only where it beats its linear start on the selection split.
    const better = (m: TranslationMap, lin: TranslationMap, x: Mat, y: Mat) =>
      meanSquaredError(translateRows(m, x), y) < meanSquaredError(translateRows(lin, x), y);
    const fUsed = fit.bestEpoch > 0 && better(fit.forward, linF.trainOnly, sel.x, sel.y);
    const gUsed = fit.bestEpoch > 0 && better(fit.backward, linG.trainOnly, sel.y, sel.x);
    if (fUsed) forward = fit.forward;
    if (gUsed) backward = fit.backward;
    neural = { epochs_run: fit.epochsRun, best_epoch: fit.bestEpoch, selection_loss: fit.valLoss, forward_used: fUsed, backward_used: gUsed };
  }
  await hooks.onTick?.();
  const metrics: PairMetrics = {
    kind: forward.kind === 'neural' || backward.kind === 'neural' ? 'neural' : 'linear',
    forward: evaluateDirection(forward, test.x, test.y, c.maxCandidates),
    backward: evaluateDirection(backward, test.y, test.x, c.maxCandidates),
    cycle_loss: cycleLoss(forward, backward, test.x, test.y),
    sample_count: texts.length,
    train_count: trainIdx.length,
    selection_count: selIdx.length,
    held_out_count: outer.heldOut.length,
    linear: { forward: summary(linF), backward: summary(linG) },
    neural,
    train_seconds: (performance.now() - started) / 1000,
  };
  await hooks.onProgress?.(1);
  return { forward, backward, metrics };
}
