export type { EmbeddingProvider, EmbeddingRegistry } from './provider.ts';
export {
  createEmbeddingRegistry,
  type EmbeddingsConfig,
  type ManagedEmbeddingRegistry,
  type ProviderKind,
  providerKindOf,
  DISTILLED_MODEL_ID,
  GLOVE_MODEL_ID,
  USE_MODEL_ID,
} from './registry.ts';
export { createGloveProvider } from './glove/provider.ts';
export { createUseProvider } from './use/provider.ts';
export { createDistilledUseProvider } from './distilled/provider.ts';
export { createOpenAiProvider } from './openai/provider.ts';
export { createOnnxProvider } from './onnx/provider.ts';
export { writeStaticModelFolder } from './onnx/tiny-model.ts';
export { cosine, l2normalize } from './vector.ts';
