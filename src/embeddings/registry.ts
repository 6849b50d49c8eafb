import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { createDistilledUseProvider, DISTILLED_MODEL_ID } from './distilled/provider.ts';
import { createGloveProvider, GLOVE_MODEL_ID } from './glove/provider.ts';
import { createOnnxProvider } from './onnx/provider.ts';
import { createOpenAiProvider, KNOWN_DIMENSIONS } from './openai/provider.ts';
import { type EmbeddingProvider, type EmbeddingRegistry, resolveModelName } from './provider.ts';
import { createUseProvider, USE_MODEL_ID } from './use/provider.ts';

/** The embedding part of the configuration (ATRIUM_EMBEDDING* variables, see src/config). */
export type EmbeddingsConfig = Config['embeddings'];

export type ProviderKind = 'builtin' | 'openai-compatible' | 'onnx';

/** Which provider serves a model id, from its prefix (`builtin/`, `openai/`, `onnx/`). */
export function providerKindOf(id: string): ProviderKind {
  if (id.startsWith('openai/')) return 'openai-compatible';
  if (id.startsWith('onnx/')) return 'onnx';
  return 'builtin';
}

export interface ManagedEmbeddingRegistry extends EmbeddingRegistry {
  /** Loads the default model in the background (startup never waits for it). */
  warmUp(): Promise<void>;
  close(): Promise<void>;
}

/** Builds every configured model; none is loaded until first used (or warmed up). */
export function createEmbeddingRegistry(config: { readonly embeddings: EmbeddingsConfig }, log: Logger): ManagedEmbeddingRegistry {
  const c = config.embeddings;
  const providers = new Map<string, { provider: EmbeddingProvider; warm?: () => Promise<unknown> }>();
  const glove = createGloveProvider({ cacheDir: c.cacheDir, log });
  providers.set(glove.id, { provider: glove, warm: () => glove.load() });
  const use = createUseProvider({ workers: c.workers > 0 ? c.workers : undefined, log });
  providers.set(use.id, { provider: use, warm: () => use.embed(['warm up']) });
  const distilled = createDistilledUseProvider({ root: fileURLToPath(new URL('../../', import.meta.url)), log });
  providers.set(distilled.id, { provider: distilled, warm: () => distilled.load() });
  if (c.openai) {
    const dimensions = c.openai.dimensions ?? KNOWN_DIMENSIONS[c.openai.model];
    if (!dimensions) throw new Error(`set ATRIUM_EMBEDDINGS_OPENAI_DIMENSIONS: the output size of '${c.openai.model}' is not known`);
    const p = createOpenAiProvider({ ...c.openai, dimensions, requestDimensions: c.openai.dimensions !== undefined, log });
    providers.set(p.id, { provider: p });
  }
  if (c.onnx) {
    const p = createOnnxProvider({ ...c.onnx, log });
    providers.set(p.id, { provider: p, warm: () => p.embed(['warm up']) });
  }
  if (!providers.has(c.defaultModel)) {
    throw new Error(
      `ATRIUM_EMBEDDING_MODEL '${c.defaultModel}' is not configured (have: ${[...providers.keys()].join(', ')})`,
    );
  }
  /** Warm-up time of models that do not time their own loading (USE in worker threads, ONNX). */
  const warmed = new Map<string, number>();
  return {
    defaultId: c.defaultModel,
    // A model may be named by its full id or its short name (`glove-100d`), in any case, when that is unambiguous.
    get: (id) => {
      const resolved = resolveModelName(id, providers.keys());
      return resolved === null ? undefined : providers.get(resolved)?.provider;
    },
    list: () => [...providers.values()].map((p) => p.provider),
    loadTimes() {
      const out = new Map<string, number>();
      for (const [id, p] of providers) {
        const ms = p.provider.loadedMs?.() ?? warmed.get(id);
        if (ms !== undefined && ms !== null) out.set(id, ms);
      }
      return out;
    },
    async warmUp() {
      const started = Date.now();
      try {
        await providers.get(c.defaultModel)?.warm?.();
        warmed.set(c.defaultModel, Date.now() - started);
        log.info({ model: c.defaultModel, ms: Date.now() - started }, 'default embedding model ready');
      } catch (err) {
        log.error({ err, model: c.defaultModel }, 'default embedding model failed to load');
      }
    },
    async close() {
      await Promise.all([...providers.values()].map((p) => p.provider.close?.()));
    },
  };
}

export { DISTILLED_MODEL_ID, GLOVE_MODEL_ID, USE_MODEL_ID };
