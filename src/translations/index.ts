// Translation service: the registry (shipped + trained translations), training jobs, and the API glue.
export { type ConfidenceBand, confidenceBand } from './bands.ts';
export { BUILTIN_DIR, type ManifestEntry, manifestSchema, readBuiltinManifest } from './builtin.ts';
export {
  applyTranslation,
  createTranslationRegistry,
  findTranslation,
  type LoadedTranslation,
  type TranslationRegistry,
  type TranslationRegistryOptions,
} from './registry.ts';
export { cancelTrainingRequest, deleteTranslation, requestTraining, type TrainAccepted, type TrainRequest } from './requests.ts';
export type { TranslationRecord } from './store.ts';
export {
  cancelTraining,
  createTrainJobHandler,
  embedSecondsPerText,
  estimateTrainingSeconds,
  TRAIN_JOB,
  TRAIN_JOB_KIND,
  type TrainPayload,
  type TrainRequestConfig,
  type TrainResult,
  trainConfigSchema,
  trainingView,
} from './training.ts';
export { IDENTITY_ID, resolveKnownModel, type TranslateInput, type TranslateOutput, translateOne } from './translate.ts';
