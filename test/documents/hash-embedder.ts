import { createHash } from 'node:crypto';
import type { EmbeddingProvider, EmbeddingRegistry } from '../../src/embeddings/provider.ts';

/**
 * A small deterministic embedding for tests: hashed bag of words (with a few hand-written synonym
 * groups so "semantic-only" matches exist). Not a model; it only exercises the vector path.
 */
const SYNONYMS: Record<string, string> = { automobile: 'car', vehicle: 'car', physician: 'doctor', medic: 'doctor' };

export function hashEmbedder(id = 'test/hash-64d', dimensions = 64): EmbeddingProvider {
  return {
    id,
    dimensions,
    async embed(texts) {
      return texts.map((t) => {
        const v = new Float32Array(dimensions);
        for (const raw of t.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
          const w = SYNONYMS[raw] ?? raw;
          if (w.length < 3) continue;
          const h = createHash('sha256').update(w).digest();
          v[h.readUInt32LE(0) % dimensions]! += h[4]! & 1 ? 1 : -1;
        }
        let n = 0;
        for (const x of v) n += x * x;
        n = Math.sqrt(n) || 1;
        for (let i = 0; i < v.length; i++) v[i]! /= n;
        return v;
      });
    },
  };
}

export function registryOf(...providers: EmbeddingProvider[]): EmbeddingRegistry {
  const first = providers[0];
  if (!first) throw new Error('at least one provider');
  return { defaultId: first.id, get: (id) => providers.find((p) => p.id === id), list: () => providers };
}
