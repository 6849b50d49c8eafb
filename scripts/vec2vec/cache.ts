import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { EmbeddingProvider } from '../../src/embeddings/index.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CACHE_DIR = path.join(ROOT, 'node_modules/.cache/atrium-vec2vec');

const key = (t: string) => createHash('sha1').update(t).digest('hex');
const loaded = new Map<string, Map<string, Float32Array>>();

/** The on-disk cache of one model: 20-byte SHA-1 of the text, then the vector (float32 LE), appended. */
async function load(p: Pick<EmbeddingProvider, 'id' | 'dimensions'>): Promise<{ file: string; cache: Map<string, Float32Array> }> {
  await fs.mkdir(CACHE_DIR, { recursive: true });
  const file = path.join(CACHE_DIR, `${p.id.replace(/\W+/g, '_')}.bin`);
  let cache = loaded.get(file);
  if (!cache) {
    cache = new Map();
    const rec = 20 + p.dimensions * 4;
    const buf = await fs.readFile(file).catch(() => Buffer.alloc(0));
    // A run killed mid-append leaves a partial record: drop it so later appends stay aligned.
    if (buf.length % rec !== 0) await fs.truncate(file, buf.length - (buf.length % rec));
    for (let o = 0; o + rec <= buf.length; o += rec) {
      const v = new Float32Array(p.dimensions);
      for (let d = 0; d < p.dimensions; d++) v[d] = buf.readFloatLE(o + 20 + d * 4);
      cache.set(buf.subarray(o, o + 20).toString('hex'), v);
    }
    loaded.set(file, cache);
  }
  return { file, cache };
}

/** Texts of `texts` not yet in the model's cache. */
export async function uncached(p: Pick<EmbeddingProvider, 'id' | 'dimensions'>, texts: readonly string[]): Promise<string[]> {
  const { cache } = await load(p);
  return [...new Set(texts.filter((t) => !cache.has(key(t))))];
}

/** Embeds with a per-model on-disk cache keyed by the text's SHA-1 (so a re-run skips re-embedding). */
export async function cachedEmbed(p: EmbeddingProvider, texts: readonly string[], batchSize = 128): Promise<Float32Array[]> {
  const { file, cache } = await load(p);
  const rec = 20 + p.dimensions * 4;
  const missing = [...new Set(texts.filter((t) => !cache.has(key(t))))];
  const started = Date.now();
  for (let i = 0; i < missing.length; i += batchSize) {
    const batch = missing.slice(i, i + batchSize);
    const vecs = await p.embed(batch);
    const out = Buffer.alloc(batch.length * rec);
    batch.forEach((t, j) => {
      Buffer.from(key(t), 'hex').copy(out, j * rec);
      for (let d = 0; d < p.dimensions; d++) out.writeFloatLE(vecs[j]![d]!, j * rec + 20 + d * 4);
      cache.set(key(t), vecs[j]!);
    });
    await fs.appendFile(file, out);
    const done = Math.min(missing.length, i + batchSize);
    const rate = done / ((Date.now() - started) / 1000);
    process.stderr.write(`${p.id}: embedded ${done}/${missing.length} (${rate.toFixed(1)}/s)\n`);
  }
  return texts.map((t) => cache.get(key(t))!);
}
