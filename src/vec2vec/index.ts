// Embedding-space translation: pure math, no imports from the rest of src/.
export { decodeMap, encodeMap } from './codec.ts';
export { matmulF32, Workspace } from './kernels.ts';
export { type Mat, mat, normalizeInPlace, row, stack, takeRows } from './linalg.ts';
export { DEFAULT_RIDGE_ALPHAS, fitLinearPair, fitLinearSelected, fitProcrustes, fitRidge, type LinearFit } from './linear.ts';
export { applyBatch, applyRaw, type LinearMap, type NeuralMap, parameterCount, type TranslationMap, translateVector, translateVectors } from './map.ts';
export { clamp01, cycleLoss, type DirectionMetrics, evaluateDirection, top1Accuracy, translateRows } from './metrics.ts';
export { DEFAULT_NEURAL_OPTIONS, type NeuralFit, type NeuralOptions, trainNeuralPair } from './neural.ts';
export { dedupeTexts, normalizeText, seededRandom, splitByHash, textHash } from './split.ts';
export { DEFAULT_TRAIN_CONFIG, type PairMetrics, type TrainConfig, type TrainedPair, type TrainHooks, trainTranslationPair } from './train.ts';
