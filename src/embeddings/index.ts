export { createDistilledUseProvider } from './distilled/provider.ts';
export { createGloveProvider } from './glove/provider.ts';
export { createOnnxProvider } from './onnx/provider.ts';
export { writeStaticModelFolder } from './onnx/tiny-model.ts';
export { createOpenAiProvider } from './openai/provider.ts';
export type { EmbeddingProvider, EmbeddingRegistry } from './provider.ts';
export { resolveModelName } from './provider.ts';
export {
  createEmbeddingRegistry,
  DISTILLED_MODEL_ID,
  type EmbeddingsConfig,
  GLOVE_MODEL_ID,
  type ManagedEmbeddingRegistry,
  type ProviderKind,
  providerKindOf,
  USE_MODEL_ID,
} from './registry.ts';
export { createUseProvider } from './use/provider.ts';
export { cosine, hasDirection, l2normalize } from './vector.ts';
