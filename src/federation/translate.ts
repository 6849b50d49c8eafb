import { cosine } from '../embeddings/vector.ts';
import { applyTranslation, type TranslationRegistry } from '../translations/index.ts';

/**
 * A registered embedding translation, as the federated query uses it: either document side (`apply` maps a
 * passage vector into the query model's space) or query side (`similarity` compares the passage vector with
 * the query vector translated into the passage model's space).
 */
export interface Translation {
  readonly id: string;
  /** 0..1, reported per item as `federation_confidence`. */
  readonly confidence: number;
  /** Which vector is translated; 'document' when absent. */
  readonly side?: 'document' | 'query';
  apply?(vector: Float32Array): Float32Array;
  similarity?(passageVector: Float32Array, queryVector: Float32Array): number;
}

/** Cosine of a passage vector and the query vector through the translation, whichever side it translates. */
export function translatedSimilarity(t: Translation, passageVector: Float32Array, queryVector: Float32Array): number {
  if (t.similarity) return t.similarity(passageVector, queryVector);
  return t.apply ? similar(t.apply(passageVector), queryVector) : 0;
}

/** Port onto the translations service (src/translations): the tenant's translation between two models, or null. */
export interface Translator {
  find(tenantId: string, sourceModel: string, targetModel: string): Promise<Translation | null>;
}

/** Cosine of two vectors, 0 when their dimensions differ (a translation into another space than the query's). */
const similar = (a: Float32Array, b: Float32Array): number => (a.length === b.length ? cosine(a, b) : 0);

/**
 * The translations service (src/translations) as a `Translator`. For passages of model B and a query of model
 * A it prefers B → A on the passage vectors (document side) and falls back to A → B on the query vector (query
 * side, translated once per query) when only that direction is registered. Measured on both shared BEIR sets
 * and both index/query directions (docs/vec2vec.md): the document side retrieved at least as well in every
 * case, even where its direction had the lower held-out confidence (a chunk's vector averages many words and
 * survives translation better than a short query's).
 */
export function translatorFrom(registry: Pick<TranslationRegistry, 'findTranslation'>): Translator {
  return {
    async find(tenantId, passageModel, queryModel) {
      const [docSide, querySide] = await Promise.all([
        registry.findTranslation(tenantId, passageModel, queryModel),
        registry.findTranslation(tenantId, queryModel, passageModel),
      ]);
      if (querySide && !docSide) {
        let last: { query: Float32Array; translated: Float32Array } | null = null;
        return {
          id: querySide.id,
          confidence: querySide.confidence,
          side: 'query',
          similarity(passageVector, queryVector) {
            if (last?.query !== queryVector) last = { query: queryVector, translated: applyTranslation(querySide, queryVector) };
            return similar(passageVector, last.translated);
          },
        };
      }
      return docSide ? { id: docSide.id, confidence: docSide.confidence, side: 'document', apply: (v) => applyTranslation(docSide, v) } : null;
    },
  };
}
